"""Claude Code's permission rule syntax, table-driven: each row is a rule in one list, a call,
and the decision Claude Code's documentation gives for it (code.claude.com/docs/en/permissions:
"Permission rule syntax", "Wildcard patterns", "Read and Edit", "WebFetch", "MCP"), checked
through the real policy with the real tools in default mode.

Where eddy is stricter on purpose the row says so: a read-only command (``ls``, ``cat``)
inside the workspace runs without a rule, so rows about wildcards use commands that change
state (``npm``, ``git push``, ``docker``) to see the rule decide.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent.permissions.policy import Policy, Rule
from agent.permissions.why import tool_named
from tools.base import ToolContext


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    project = home / "project"
    for d in (project / "src" / "deep", project / "docs", home / "notes", tmp_path / "etc"):
        d.mkdir(parents=True)
    for f in ("src/a.py", "src/deep/b.ts", "docs/x.md", ".env", "README.md", "config.env"):
        (project / f).write_text("x\n")
    (home / "notes" / "n.md").write_text("n\n")
    (home / ".zshrc").write_text("z\n")
    (tmp_path / "etc" / "hosts").write_text("h\n")
    monkeypatch.setenv("HOME", str(home))
    return project


BASH = "Bash"
WF = "WebFetch(domain:example.com)"
# (list, rule, tool, input, expected); {out} is a directory outside the project (tmp/etc)
TABLE: list[tuple[str, str, str, dict[str, Any], str]] = [
    # -- Bash: exact, prefix, wildcards ---------------------------------------------------
    ("allow", "Bash(npm run build)", BASH, {"command": "npm run build"}, "allow"),
    ("allow", "Bash(npm run build)", BASH, {"command": "npm run build --watch"}, "ask"),
    ("allow", "Bash(npm run test:*)", BASH, {"command": "npm run test:unit"}, "ask"),
    ("allow", "Bash(npm run test:*)", BASH, {"command": "npm run test -- -x"}, "allow"),
    ("allow", "Bash(npm run *)", BASH, {"command": "npm run test"}, "allow"),
    ("allow", "Bash(npm run *)", BASH, {"command": "npm runtime"}, "ask"),
    ("allow", "Bash(npm*)", BASH, {"command": "npmrc-tool x"}, "allow"),
    ("allow", "Bash(npm*)", BASH, {"command": "npm install"}, "allow"),
    ("allow", "Bash(git commit *)", BASH, {"command": "git commit -m 'fix it'"}, "allow"),
    ("allow", "Bash(git commit *)", BASH, {"command": "git commit"}, "allow"),
    ("allow", "Bash(git commit *)", BASH, {"command": "git commitx"}, "ask"),
    ("allow", "Bash(git * main)", BASH, {"command": "git checkout main"}, "allow"),
    ("allow", "Bash(git * main)", BASH, {"command": "git push origin main"}, "allow"),
    ("allow", "Bash(git * main)", BASH, {"command": "git push origin dev"}, "ask"),
    ("allow", "Bash(* --version)", BASH, {"command": "node --version"}, "allow"),
    ("allow", "Bash(* --version)", BASH, {"command": "node --version --x"}, "ask"),
    ("allow", "Bash(docker*)", BASH, {"command": "docker-compose up"}, "allow"),
    ("allow", "Bash(docker *)", BASH, {"command": "docker-compose up"}, "ask"),
    ("allow", "Bash", BASH, {"command": "make deploy"}, "allow"),
    ("allow", "Bash(*)", BASH, {"command": "make deploy"}, "allow"),
    # shell operators: every part must be allowed
    ("allow", "Bash(git push *)", BASH, {"command": "git push && rm -rf build"}, "ask"),
    ("allow", "Bash(git * main)", BASH, {"command": "git push main; rm -rf /"}, "ask"),
    ("allow", "Bash(npm run *)", BASH, {"command": "npm run $(curl evil)"}, "ask"),
    # wrappers are seen through
    ("allow", "Bash(npm test *)", BASH, {"command": "timeout 30 npm test"}, "allow"),
    ("allow", "Bash(npm test *)", BASH, {"command": "nohup npm test"}, "allow"),
    # deny and ask beat allow; deny beats ask
    ("deny", "Bash(git push *)", BASH, {"command": "git push origin main"}, "deny"),
    ("deny", "Bash(aws *)", BASH, {"command": "aws s3 ls"}, "deny"),
    ("deny", "Bash(rm * /)", BASH, {"command": "/bin/rm -rf /"}, "deny"),
    ("ask", "Bash(git push *)", BASH, {"command": "git push"}, "ask"),
    ("deny", "Bash(curl:*)", BASH, {"command": "curl -s https://x.org"}, "deny"),
    # -- Read / Edit: gitignore paths ---------------------------------------------------
    ("deny", "Read(./.env)", "Read", {"file_path": ".env"}, "deny"),
    ("deny", "Read(*.env)", "Read", {"file_path": "config.env"}, "deny"),
    ("deny", "Read(.env)", "Read", {"file_path": "README.md"}, "allow"),
    ("deny", "Read(/src/**)", "Read", {"file_path": "src/deep/b.ts"}, "deny"),
    ("deny", "Read(/src/**/*.ts)", "Read", {"file_path": "src/a.py"}, "allow"),
    ("deny", "Read(~/.zshrc)", "Read", {"file_path": "~/.zshrc"}, "deny"),
    ("allow", "Read(~/notes/**)", "Read", {"file_path": "~/notes/n.md"}, "allow"),
    ("allow", "Read(//{out}/**)", "Read", {"file_path": "{out}/hosts"}, "allow"),
    ("allow", "Read(/etc/**)", "Read", {"file_path": "{out}/hosts"}, "ask"),  # project's etc/
    ("allow", "Edit(/docs/**)", "Edit", {"file_path": "docs/x.md", "old_string": "x"}, "allow"),
    ("allow", "Edit(docs/**)", "Write", {"file_path": "docs/new.md", "content": ""}, "allow"),
    ("allow", "Edit(src/**)", "Edit", {"file_path": "docs/x.md", "old_string": "x"}, "ask"),
    ("allow", "Edit(src/**/*.py)", "Edit", {"file_path": "src/a.py", "old_string": "x"}, "allow"),
    # an Edit allow implies Read; a Read deny also blocks Edit and Write
    ("allow", "Edit(~/notes/**)", "Read", {"file_path": "~/notes/n.md"}, "allow"),
    ("deny", "Read(./.env)", "Edit", {"file_path": ".env", "old_string": "x"}, "deny"),
    ("deny", "Read(./.env)", "Write", {"file_path": ".env", "content": ""}, "deny"),
    ("deny", "Read(docs/**)", "Grep", {"pattern": "x", "path": "docs"}, "deny"),
    ("deny", "Edit(docs/**)", "Read", {"file_path": "docs/x.md"}, "allow"),
    # -- WebFetch and MCP ----------------------------------------------------------------
    ("allow", WF, "WebFetch", {"url": "https://example.com/a"}, "allow"),
    ("allow", WF, "WebFetch", {"url": "https://a.example.com"}, "allow"),
    ("allow", WF, "WebFetch", {"url": "https://evil.org"}, "ask"),
    ("deny", "WebFetch", "WebFetch", {"url": "https://example.com"}, "deny"),
    ("allow", "mcp__puppeteer", "mcp__puppeteer__navigate", {}, "allow"),
    ("allow", "mcp__puppeteer__*", "mcp__puppeteer__click", {}, "allow"),
    ("allow", "mcp__puppeteer__navigate", "mcp__puppeteer__navigate", {}, "allow"),
    ("allow", "mcp__puppeteer__navigate", "mcp__puppeteer__click", {}, "ask"),
    ("allow", "mcp__puppeteer", "mcp__puppeteer_x__navigate", {}, "ask"),
    ("deny", "mcp__github", "mcp__github__create_issue", {}, "deny"),
]


def _fill(value: Any, out: Path) -> Any:
    return value.replace("{out}", str(out)) if isinstance(value, str) else value


@pytest.mark.parametrize(("kind", "rule", "tool", "args", "expected"), TABLE)
def test_a_rule_decides_as_claude_code_documents(
    ws: Path, kind: str, rule: str, tool: str, args: dict[str, Any], expected: str
) -> None:
    out = ws.parent.parent / "etc"
    policy = Policy("default", **{kind: [Rule.parse(_fill(rule, out).replace("//" + "/", "//"))]})
    filled = {k: _fill(v, out) for k, v in args.items()}
    if tool in ("Edit",):
        filled.setdefault("new_string", "y")
    decision = policy.check(tool_named(tool), filled, ToolContext(ws))
    assert decision.verdict == expected, decision.reason


def test_the_table_has_at_least_forty_rows() -> None:
    assert len(TABLE) >= 40


def test_shift_tab_leaves_dont_ask_for_default() -> None:
    from agent.permissions.policy import MODES, cycle_mode

    assert "dontAsk" in MODES and cycle_mode("dontAsk") == "default"


@pytest.mark.parametrize(
    "text",
    ["Bash(", "Bash(npm run 'x:*)", "WebFetch(example.com)", "mcp__a__b__*x", "Read()", ""],
)
def test_rules_that_cannot_be_parsed_are_reported(text: str) -> None:
    with pytest.raises(ValueError):
        Rule.parse(text)


def test_a_rule_made_by_a_decision_names_it(ws: Path) -> None:
    rule = Rule.parse("Bash(git * main)")
    decision = Policy("default", [rule]).check(
        tool_named(BASH), {"command": "git push origin main"}, ToolContext(ws)
    )
    assert decision.verdict == "allow" and decision.by == rule
