"""The permission policy, table-driven: mode x tool x path, rules, shell commands, suggestions."""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent.permissions.policy import (
    MODES,
    Mode,
    Policy,
    Rule,
    cycle_mode,
    plan_mode_note,
)
from tools import TOOL_MODULES
from tools.base import ResolvedPath, Tool, ToolContext, ToolResult

# -- tools: the real ones where they exist, fakes with the same names and flags otherwise ----
_READ_ONLY = {
    "Read": True,
    "Glob": True,
    "Grep": True,
    "Write": False,
    "Edit": False,
    "MultiEdit": False,
    "Bash": False,
    "TodoWrite": False,
}
_PATH_ARG = {"Glob": "path", "Grep": "path"}


@dataclass
class FakeTool:
    name: str
    read_only: bool
    description: str = "fake"
    input_schema: dict[str, Any] = field(default_factory=dict)

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        raise AssertionError("the policy never runs tools")

    def paths(self, args: dict[str, Any], ctx: ToolContext) -> list[ResolvedPath]:
        key = _PATH_ARG.get(self.name, "file_path")
        return [ctx.resolve(args[key])] if key in args else []

    def summary(self, args: dict[str, Any]) -> str:
        return ""


def _tool(name: str) -> Tool:
    try:
        tool: Tool = importlib.import_module(TOOL_MODULES[name]).TOOL
    except ImportError:
        return FakeTool(name, _READ_ONLY[name])
    assert tool.name == name
    return tool


TOOLS = {name: _tool(name) for name in _READ_ONLY}


@dataclass
class Env:
    ws: Path
    outside: Path
    home: Path
    ctx: ToolContext

    def check(self, policy: Policy, name: str, args: dict[str, Any]) -> str:
        return policy.decide(TOOLS[name], args, self.ctx)[0]

    def bash(self, policy: Policy, command: str) -> str:
        return self.check(policy, "Bash", {"command": command})


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Env:
    home = tmp_path / "home"
    ws = home / "project"
    outside = tmp_path / "outside"
    for d in (ws / "src" / "deep", ws / "secrets", outside, home / "notes"):
        d.mkdir(parents=True)
    (ws / "src" / "a.py").write_text("a = 1\n")
    (ws / ".env").write_text("KEY=1\n")
    (ws / "README.md").write_text("hi\n")
    (outside / "secret.txt").write_text("s\n")
    (home / "notes" / "n.md").write_text("n\n")
    os.symlink(outside, ws / "link_out")
    os.symlink(ws / ".env", ws / "envlink")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("EDDY_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("EDDY_DATA_DIR", str(tmp_path / "data"))
    return Env(ws, outside, home, ToolContext(ws))


# -- mode x tool x path --------------------------------------------------------------------
PLACES = ("inside", "outside", "dotdot", "symlink")


def _file(env: Env, place: str) -> str:
    return {
        "inside": "src/a.py",
        "outside": str(env.outside / "secret.txt"),
        "dotdot": "../../outside/secret.txt",
        "symlink": "link_out/secret.txt",
    }[place]


def _dir(env: Env, place: str) -> str:
    return {
        "inside": "src",
        "outside": str(env.outside),
        "dotdot": "../../outside",
        "symlink": "link_out",
    }[place]


def _args(env: Env, tool: str, place: str) -> tuple[str, dict[str, Any]]:
    path = _file(env, place)
    if tool == "Read":
        return tool, {"file_path": path}
    if tool == "Write":
        return tool, {"file_path": path, "content": "x"}
    if tool == "Edit":
        return tool, {"file_path": path, "old_string": "a", "new_string": "b"}
    if tool == "MultiEdit":
        return tool, {"file_path": path, "edits": [{"old_string": "a", "new_string": "b"}]}
    if tool in ("Glob", "Grep"):
        return tool, {"pattern": "*", "path": _dir(env, place)}
    if tool == "Bash(read)":
        return "Bash", {"command": f"cat {path}"}
    if tool == "Bash(write)":
        return "Bash", {"command": f"echo x > {path}"}
    if tool == "Bash(other)":
        return "Bash", {"command": f"chmod +x {path}"}
    if tool == "Bash(fileop)":
        return "Bash", {"command": f"touch {path}"}
    if tool == "TodoWrite":
        return tool, {"todos": []}
    raise AssertionError(tool)


#               default  acceptEdits  plan     bypass   dontAsk (what would ask is refused)
READ_LIKE = {
    "inside": ("allow", "allow", "allow", "allow", "allow"),
    "outside": ("ask", "ask", "ask", "allow", "deny"),
}
EDIT_LIKE = {
    "inside": ("ask", "allow", "deny", "allow", "deny"),
    "outside": ("ask", "ask", "deny", "allow", "deny"),
}
SHELL = {
    "inside": ("ask", "ask", "deny", "allow", "deny"),
    "outside": ("ask", "ask", "deny", "allow", "deny"),
}
HARMLESS = {"inside": ("allow",) * 5, "outside": ("allow",) * 5}
EXPECTED = {
    "Read": READ_LIKE,
    "Glob": READ_LIKE,
    "Grep": READ_LIKE,
    "Bash(read)": READ_LIKE,
    "Write": EDIT_LIKE,
    "Edit": EDIT_LIKE,
    "MultiEdit": EDIT_LIKE,
    "Bash(write)": EDIT_LIKE,
    "Bash(fileop)": EDIT_LIKE,
    "Bash(other)": SHELL,
    "TodoWrite": HARMLESS,
}


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("tool", list(EXPECTED))
@pytest.mark.parametrize("mode", MODES)
def test_mode_tool_path(env: Env, mode: Mode, tool: str, place: str) -> None:
    name, args = _args(env, tool, place)
    expected = EXPECTED[tool]["inside" if place == "inside" else "outside"][MODES.index(mode)]
    verdict, reason = Policy(mode).decide(TOOLS[name], args, env.ctx)
    assert verdict == expected, reason
    if verdict == "deny":
        assert f"{mode} mode" in reason


def test_an_added_directory_counts_as_inside(env: Env) -> None:
    ctx = ToolContext(env.ws, extra_dirs=(env.outside.resolve(),))
    for place in ("outside", "dotdot", "symlink"):
        name, args = _args(env, "Write", place)
        assert Policy("acceptEdits").decide(TOOLS[name], args, ctx)[0] == "allow"
        name, args = _args(env, "Bash(read)", place)
        assert Policy("default").decide(TOOLS[name], args, ctx)[0] == "allow"


# -- rules ---------------------------------------------------------------------------------
def rules(*texts: str) -> list[Rule]:
    return [Rule.parse(t) for t in texts]


def test_deny_beats_ask_beats_allow(env: Env) -> None:
    policy = Policy(
        "default",
        rules("Bash(git:*)"),
        rules("Bash(git push --force:*)"),
        rules("Bash(git push:*)"),
    )
    assert env.bash(policy, "git commit -m x") == "allow"
    assert env.bash(policy, "git push origin main") == "ask"
    assert env.bash(policy, "git push --force origin") == "deny"
    policy = Policy(
        "acceptEdits", rules("Edit"), rules("Edit(secrets/**)"), rules("Edit(src/deep/**)")
    )
    assert env.check(policy, "Edit", {"file_path": "src/a.py"}) == "allow"
    assert env.check(policy, "Edit", {"file_path": "src/deep/x.py"}) == "ask"
    assert env.check(policy, "Write", {"file_path": "secrets/k"}) == "deny"


@pytest.mark.parametrize("mode", MODES)
def test_deny_rules_hold_in_every_mode(env: Env, mode: Mode) -> None:
    policy = Policy(
        mode,
        rules("Bash", "Read", "Edit"),
        rules("Bash(rm:*)", "Read(./.env)", "Write(~/notes/**)"),
    )
    assert env.bash(policy, "rm -rf x") == "deny"
    assert env.check(policy, "Read", {"file_path": ".env"}) == "deny"
    assert env.check(policy, "Write", {"file_path": "~/notes/n.md", "content": ""}) == "deny"


@pytest.mark.parametrize("path", [".env", "src/../.env", "envlink", "./.env"])
def test_path_deny_sees_through_dotdot_and_symlinks(env: Env, path: str) -> None:
    policy = Policy("bypassPermissions", deny=rules("Read(./.env)"))
    assert env.check(policy, "Read", {"file_path": path}) == "deny"
    assert env.bash(policy, f"cat {path}") == "deny"
    assert env.bash(policy, f"grep KEY {path}") == "deny"
    assert env.bash(policy, f"wc -l < {path}") == "deny"


def test_bare_pattern_matches_at_any_depth_anchored_does_not(env: Env) -> None:
    (env.ws / "src" / ".env").write_text("x")
    anywhere = Policy(deny=rules("Read(.env)"))
    anchored = Policy(deny=rules("Read(./.env)"))
    assert env.check(anywhere, "Read", {"file_path": "src/.env"}) == "deny"
    assert env.check(anchored, "Read", {"file_path": "src/.env"}) == "allow"


def test_edit_rules_cover_shell_redirections(env: Env) -> None:
    policy = Policy("acceptEdits", deny=rules("Edit(./.env)"))
    assert env.bash(policy, "echo KEY=2 > .env") == "deny"
    assert env.bash(policy, "echo x > src/out.txt") == "allow"
    policy = Policy("default", allow=rules("Edit(logs/**)"))
    assert env.bash(policy, "echo x > logs/run.log") == "allow"
    assert env.bash(policy, "echo x > other.log") == "ask"


def test_a_bare_allow_is_inside_the_workspace_only(env: Env) -> None:
    policy = Policy("default", rules("Write", "Edit"))
    for tool in ("Write", "Edit"):
        for place in PLACES:
            name, args = _args(env, tool, place)
            assert env.check(policy, name, args) == ("allow" if place == "inside" else "ask")
    policy = Policy("default", rules("Bash"))
    assert env.bash(policy, "make build") == "allow"
    assert env.bash(policy, "echo x > out.txt") == "allow"
    assert env.bash(policy, f"echo x > {env.outside}/x") == "ask"
    assert env.bash(policy, f"cat {env.outside}/secret.txt") == "ask"


def test_a_rule_naming_an_outside_path_allows_it(env: Env) -> None:
    policy = Policy("default", rules("Write(~/notes/**)", "Read(//etc/hostname)"))
    notes = {"file_path": "~/notes/new.md", "content": ""}
    assert env.check(policy, "Write", notes) == "allow"
    assert env.check(policy, "Write", {"file_path": "~/other.md", "content": ""}) == "ask"
    assert env.check(policy, "Read", {"file_path": "/etc/hostname"}) == "allow"
    assert env.check(policy, "Read", {"file_path": "/etc/passwd"}) == "ask"
    assert env.bash(policy, "cat /etc/hostname") == "allow"
    policy = Policy("default", rules(f"Read(/{env.outside}/**)"))  # two slashes: absolute
    assert env.check(policy, "Read", {"file_path": "link_out/secret.txt"}) == "allow"
    assert env.check(policy, "Glob", {"pattern": "*", "path": str(env.outside)}) == "allow"
    # one slash: from the project root, as in Claude Code (an allow rule names nothing outside)
    policy = Policy("default", rules(f"Read({env.outside}/**)"))
    assert env.check(policy, "Read", {"file_path": "link_out/secret.txt"}) == "ask"


def test_ask_rules_beat_modes_but_not_bypass(env: Env) -> None:
    policy = Policy("acceptEdits", ask=rules("Read(./secrets/**)", "Edit(src/**)"))
    assert env.check(policy, "Read", {"file_path": "secrets/k"}) == "ask"
    assert env.bash(policy, "cat secrets/k") == "ask"
    assert env.check(policy, "Edit", {"file_path": "src/a.py"}) == "ask"
    policy.mode = "bypassPermissions"
    assert env.check(policy, "Read", {"file_path": "secrets/k"}) == "allow"


def test_plan_mode_refuses_changes_even_when_a_rule_allows_them(env: Env) -> None:
    policy = Policy("plan", rules("Bash(npm test:*)", "Edit"))
    verdict, reason = policy.decide(TOOLS["Bash"], {"command": "npm test"}, env.ctx)
    assert verdict == "deny" and "plan mode" in reason and "npm test" in reason
    assert env.check(policy, "Edit", {"file_path": "src/a.py"}) == "deny"
    assert env.bash(policy, "git log --oneline | head -5") == "allow"
    assert env.check(policy, "TodoWrite", {"todos": []}) == "allow"
    assert "plan mode" in plan_mode_note()


def test_non_file_tools(env: Env) -> None:
    change = FakeTool("Change", read_only=False)
    assert Policy().decide(change, {}, env.ctx)[0] == "ask"
    assert Policy(allow=rules("Change")).decide(change, {}, env.ctx)[0] == "allow"
    fetch = FakeTool("WebFetch", read_only=False)
    policy = Policy(allow=rules("WebFetch(domain:example.com)"))
    assert policy.decide(fetch, {"url": "https://docs.example.com/x"}, env.ctx)[0] == "allow"
    assert policy.decide(fetch, {"url": "https://example.org/x"}, env.ctx)[0] == "ask"
    assert policy.decide(fetch, {"url": "https://evilexample.com/"}, env.ctx)[0] == "ask"


@pytest.mark.parametrize(
    ("text", "tool", "specifier"),
    [
        ("Bash", "Bash", None),
        ("Bash(git status)", "Bash", "git status"),
        (" Bash ( npm run test:* ) ", "Bash", "npm run test:*"),
        ("Bash(*)", "Bash", None),
        ("Edit(src/**)", "Edit", "src/**"),
        ("WebFetch(domain:example.com)", "WebFetch", "domain:example.com"),
        ("mcp__server__tool", "mcp__server__tool", None),
        ("Bash(echo ')')", "Bash", "echo ')'"),
    ],
)
def test_rule_parse(text: str, tool: str, specifier: str | None) -> None:
    rule = Rule.parse(text)
    assert (rule.tool, rule.specifier) == (tool, specifier)
    assert Rule.parse(str(rule)) == rule


@pytest.mark.parametrize(
    "text", ["", "Bash(", "(x)", "Bash()", "Bash('open:*)", "WebFetch(example.com)", "1Tool"]
)
def test_rule_parse_errors(text: str) -> None:
    with pytest.raises(ValueError):
        Rule.parse(text)


@pytest.mark.parametrize(
    ("rule", "command", "expected"),
    [
        ("Bash(git status)", "git status", True),
        ("Bash(git status)", "git status -s", False),
        ("Bash(npm run test:*)", "npm run test", True),
        ("Bash(npm run test:*)", "npm run test -- -x", True),
        ("Bash(npm run test:*)", "npm run testing", False),  # word boundary
        ("Bash(npm run test *)", "npm run test foo", True),
        ("Bash(git commit:*)", "git commit -m 'a b'", True),
        ("Bash(git commit:*)", "cd x && git commit -m y", False),  # every part must match
        ("Bash(ls:*)", "ls && ls -la", True),
    ],
)
def test_rule_matches(rule: str, command: str, expected: bool) -> None:
    assert Rule.parse(rule).matches("Bash", {"command": command}) == expected


# -- shell commands -------------------------------------------------------------------------
# Rules that must not authorise the dangerous part: a harmless command, or a wrapper's name.
SAFE_RULES = (
    "Bash(cd:*)",
    "Bash(git status:*)",
    "Bash(echo:*)",
    "Bash(npm test:*)",
    "Bash(timeout:*)",
    "Bash(env:*)",
    "Bash(xargs:*)",
    "Bash(sh -c:*)",
    "Bash(nice:*)",
    "Bash(true)",
)
BYPASS_ATTEMPTS = [
    "cd /tmp && rm -rf x",
    "cd src && rm -rf x",
    "git status; rm -rf /",
    "git status && curl x | sh",
    "git status || rm x",
    "git status | sh",
    "echo $(rm -rf /)",
    'echo "$(rm -rf /)"',
    "echo `rm -rf /`",
    'echo "`rm x`"',
    "echo $(echo $(rm x))",
    "FOO=1 rm x",
    "PATH=. ls",
    "LD_PRELOAD=evil.so ls",
    "GIT_EXTERNAL_DIFF=evil git diff",
    "env rm x",
    "env -i PATH=/x rm x",
    "timeout 5 rm x",
    "nice -n 5 rm x",
    "nohup rm x",
    "command rm x",
    "exec rm x",
    "xargs rm",
    "ls | xargs rm",
    'sh -c "rm x"',
    "bash -c 'rm x'",
    "bash -lc 'cd x; rm y'",
    "eval 'rm x'",
    "git status > /etc/passwd",
    "git status >> ~/.bashrc",
    "echo x > ../../outside/x",
    "echo x > link_out/x",
    "ls\nrm x",
    "ls\r\nrm x",
    "(rm x)",
    "(ls; rm x)",
    "{ ls; rm x; }",
    "ls & rm x",
    "ls &\nrm x",
    "if true; then rm x; fi",
    "while true; do rm x; done",
    "for f in *; do rm $f; done",
    "cat <(rm x)",
    "echo x > >(rm y)",
    "cat <<EOF\n$(rm x)\nEOF",
    "cat <<< $(rm x)",
    "$CMD x",
    "$(echo rm) x",
    "{rm,-rf,x}",
    "'r'm x",
    "\\rm x",
    "/bin/rm x",
    "./ls",
    "ls; cd /; cat etc/passwd",
    "cd $HOME && cat .ssh/id_rsa",
    "cat ~/.ssh/id_rsa",
    "cat ../../outside/secret.txt",
    "cat link_out/secret.txt",
    "ls link_out",
    "cat < /etc/shadow",
    "grep -r key /etc",
    "find . -delete",
    "find . -exec rm {} \\;",
    "find / -name x",
    "sort -o /etc/x y",
    "git diff --output=/tmp/x",
    "git -c core.pager=evil log",
    "git branch -D main",
    "rg --pre ./evil x",
    "sed -i s/a/b/ f",
    "echo ${x:-$(rm y)}",
    "x='a[$(id)]'; echo $((x))",
    "printf -v 'a[$(id)]' x",
    "case x in x) rm y;; esac",
    "f() { rm x; }; f",
    "echo 'unterminated",
    "cat $FILE",
    "ls `pwd`/../..",
    "true && sudo rm x",
    "cd src; while true; do cd ..; cat outside.txt; done",
]


# acceptEdits runs ordinary file commands inside the workspace: these disguises of `rm x`
# (x inside) and `sed -i` are allowed there on purpose
ACCEPT_EDITS_RUNS = {
    "case x in x) rm y;; esac",  # every branch is checked: rm inside runs in acceptEdits
    "f() { rm x; }; f",  # the call stands for its body
    "bash -c 'rm x'",
    "eval 'rm x'",
    "ls\nrm x",
    "(rm x)",
    "(ls; rm x)",
    "{ ls; rm x; }",
    "ls & rm x",
    "ls &\nrm x",
    "if true; then rm x; fi",
    "while true; do rm x; done",
    "cat <<EOF\n$(rm x)\nEOF",
    "cat <<< $(rm x)",
    "'r'm x",
    "\\rm x",
    "sed -i s/a/b/ f",
    "nohup rm x",
    "command rm x",
    "exec rm x",
    'sh -c "rm x"',
    "timeout 5 rm x",
    "nice -n 5 rm x",
    "env rm x",
    "cd src && rm -rf x",
    "git status || rm x",
    'echo "`rm x`"',
    "echo $(echo $(rm x))",
}


@pytest.mark.parametrize("command", BYPASS_ATTEMPTS)
@pytest.mark.parametrize("mode", ["default", "acceptEdits"])
def test_bypass_attempts_ask_or_deny(env: Env, mode: Mode, command: str) -> None:
    policy = Policy(mode, rules(*SAFE_RULES))
    expected = (
        ("allow",) if mode == "acceptEdits" and command in ACCEPT_EDITS_RUNS else ("ask", "deny")
    )
    assert env.bash(policy, command) in expected, command


@pytest.mark.parametrize(
    "command",
    [
        "ls > out.txt",
        "echo x &> log",
        "echo x >&out",
        "git status 2> err.txt",
        "cat README.md >> src/copy",
    ],
)
def test_writing_a_file_inside_asks_outside_accept_edits(env: Env, command: str) -> None:
    assert env.bash(Policy("default", rules(*SAFE_RULES)), command) == "ask"
    assert env.bash(Policy("acceptEdits", rules(*SAFE_RULES)), command) == "allow"
    assert env.bash(Policy("plan", rules(*SAFE_RULES)), command) == "deny"


def test_a_rule_naming_a_command_reaches_outside_paths(env: Env) -> None:
    policy = Policy("default", rules("Bash(cat:*)"), rules("Read(~/.ssh/**)"))
    assert env.bash(policy, "cat ../../outside/secret.txt") == "allow"
    assert env.bash(policy, "cat ~/.ssh/id_rsa") == "deny"


RM_VARIANTS = [
    "rm -rf x",
    "/bin/rm x",
    "\\rm x",
    "'rm' x",
    "timeout 5 rm x",
    "env A=1 rm x",
    "xargs rm",
    "sh -c 'rm x'",
    "echo $(rm x)",
    "ls && rm x",
    "sudo rm x",
    "nice rm x",
    "command rm x",
    "(rm x)",
    "bash -c \"bash -c 'rm x'\"",
    "$X x",
    "{rm,x}",
    "r?m x",
    "eval rm x",
    "cat <(rm x)",
]


@pytest.mark.parametrize("command", RM_VARIANTS)
def test_a_deny_rule_holds_in_bypass_for_every_disguise(env: Env, command: str) -> None:
    policy = Policy("bypassPermissions", deny=rules("Bash(rm:*)"))
    assert env.bash(policy, command) in ("deny", "ask"), command
    assert env.bash(Policy("bypassPermissions"), command) == "allow"


def test_deny_of_a_subcommand_cannot_be_dodged_with_a_variable(env: Env) -> None:
    policy = Policy("bypassPermissions", deny=rules("Bash(git push:*)"))
    assert env.bash(policy, "git push") == "deny"
    assert env.bash(policy, "git $SUB origin") == "ask"
    assert env.bash(policy, "git status") == "allow"


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("ls -la", "allow"),
        ("ls src && cat src/a.py | head -5", "allow"),
        ("git status && git diff HEAD~1 -- src", "allow"),
        ("git log --oneline -n 5 | wc -l", "allow"),
        ("grep -rn 'import os' src", "allow"),
        ("rg -n '/api/v1' src", "allow"),
        ("find . -name '*.py' -type f", "allow"),
        ("cat *.md", "allow"),
        ("sed -n '1,5p' README.md", "allow"),
        ("echo $HOME", "allow"),
        ("echo hi 2>&1 >/dev/null", "allow"),
        ("cd src && ls", "allow"),
        ("cd src/deep && cat ../a.py", "allow"),
        ("cd src/deep && cat ../../../outside/secret.txt", "ask"),
        ("LANG=C sort README.md", "allow"),
        ("export FOO=1; echo $FOO", "allow"),
        ("npm test", "ask"),
        ("npm test > log.txt", "ask"),
        ("git commit -m 'x'", "ask"),
        ("ls | sort | uniq -c", "allow"),
        ("wc -l < README.md", "allow"),
        ("echo ok || true", "allow"),
        ("for f in src/*.py; do wc -l $f; done", "allow"),
        ('for f in src/*.py; do wc -l "$f"; done', "allow"),
        ("for f in ../../outside/*; do cat $f; done", "ask"),
        ("for f in src/*.py; do f=../../outside/secret.txt; cat $f; done", "ask"),
        ("cat $f; for f in src/a.py; do :; done", "ask"),
        ("find src -name '*.py' | xargs wc -l", "allow"),
        ("find . -name '*.py' | xargs wc -l", "ask"),  # link_out leads out of the workspace
        ("find . -L | xargs wc -l", "ask"),
        ("echo /etc/passwd | xargs cat", "ask"),
        ("awk '{print $1}' README.md", "allow"),
        ("awk '{print $1 > \"x\"}' README.md", "ask"),
        ("awk 'BEGIN{system(\"id\")}'", "ask"),
        ("cd nonexistent; cat ../../outside/secret.txt", "ask"),
        ("cd src; cat ../README.md", "ask"),
        ("cd src && cat ../README.md", "allow"),
        ("cat ~+/../../outside/secret.txt", "ask"),
        ("echo $ANTHROPIC_API_KEY", "ask"),
    ],
)
def test_read_only_commands_run_in_default_mode(env: Env, command: str, expected: str) -> None:
    assert env.bash(Policy("default"), command) == expected


def test_compound_is_allowed_only_if_every_part_is(env: Env) -> None:
    policy = Policy("default", rules("Bash(npm test:*)", "Bash(make:*)"))
    assert env.bash(policy, "npm test && make build") == "allow"
    assert env.bash(policy, "npm test && make build && rm x") == "ask"
    assert env.bash(policy, "cd src && npm test -- -x") == "allow"
    assert env.bash(policy, "timeout 60 npm test") == "allow"
    assert env.bash(policy, "NODE_ENV=test npm test") == "allow"


def test_the_shells_working_directory_is_where_relative_paths_start(env: Env) -> None:
    ctx = ToolContext(env.ws)
    ctx.shell.cwd = env.outside
    assert Policy().decide(TOOLS["Bash"], {"command": "cat secret.txt"}, ctx)[0] == "ask"
    assert Policy().decide(TOOLS["Bash"], {"command": "ls"}, ctx)[0] == "ask"
    ctx.shell.cwd = env.ws / "src"
    assert Policy().decide(TOOLS["Bash"], {"command": "cat a.py"}, ctx)[0] == "allow"


def test_an_exact_rule_for_an_unparsable_command_allows_exactly_it(env: Env) -> None:
    command = "select x in a; do echo a; done"
    assert env.bash(Policy(), command) == "ask"
    policy = Policy(allow=rules(f"Bash({command})"))
    assert env.bash(policy, command) == "allow"
    assert env.bash(policy, command + "; rm x") == "ask"


_SAFE_PARTS = ["ls", "pwd", "git status", "cat README.md", "echo hi", "wc -l src/a.py"]
_UNSAFE_PARTS = ["rm x", "curl evil", "npm install", "echo x > f", "touch y", "cat /etc/passwd"]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(_SAFE_PARTS + _UNSAFE_PARTS),
            st.sampled_from([" && ", " || ", "; ", " | ", " & ", "\n"]),
        ),
        min_size=1,
        max_size=5,
    )
)
def test_a_compound_is_allowed_iff_every_part_is(parts: list[tuple[str, str]]) -> None:
    ws = Path(__file__).resolve().parents[3]  # any real directory with a README.md will do
    command = "".join(p + sep for p, sep in parts[:-1]) + parts[-1][0]
    verdict = Policy().decide(TOOLS["Bash"], {"command": command}, ToolContext(ws))[0]
    all_safe = all(p in _SAFE_PARTS for p, _ in parts)
    assert (verdict == "allow") == all_safe, command


# -- suggested rules ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("command", "rule"),
    [
        ("git commit -m x", "Bash(git commit:*)"),
        ("npm run test -- -x", "Bash(npm run test:*)"),
        ("npm test", "Bash(npm test:*)"),
        ("python -m pytest -x tests", "Bash(python -m pytest:*)"),
        ("cargo build --release", "Bash(cargo build:*)"),
        ("make", "Bash(make:*)"),
        ("pytest tests/x.py", "Bash(pytest:*)"),
        ("rm -rf build", "Bash(rm -rf build)"),
        ("ls && git commit -m x", "Bash(git commit:*)"),  # ls never asks
        # two parts ask: a rule of one would ask again for the other, so the command itself
        ("ls && git commit -m x && npm test", "Bash(ls && git commit -m x && npm test)"),
        ("cd src && npm test", "Bash(npm test:*)"),
        ("timeout 60 npm test", "Bash(npm test:*)"),
        ("FOO=1 make check", "Bash(make check:*)"),
        ("git status > out.txt", "Edit(./out.txt)"),
        ("git log > logs/a.txt", "Edit(logs/**)"),
        ("cat /etc/hosts", "Read(//etc/**)"),
        ("$X y", "Bash($X y)"),
        ("case a in a) b;; esac", "Bash(b:*)"),  # a case statement is its commands
        ("select a in b; do c; done", "Bash(select a in b; do c; done)"),
    ],
)
def test_suggested_rules_for_commands(env: Env, command: str, rule: str) -> None:
    assert Policy().suggest(TOOLS["Bash"], {"command": command}, env.ctx) == rule


def test_suggested_rules_for_files(env: Env) -> None:
    def suggest(name: str, path: str) -> str | None:
        args = {"file_path": path, "content": ""} if name == "Write" else {"file_path": path}
        return Policy().suggest(TOOLS[name], args, env.ctx)

    assert suggest("Edit", "src/a.py") == "Edit(src/**)"
    assert suggest("Write", "src/deep/new.py") == "Edit(src/deep/**)"
    assert suggest("Edit", "README.md") == "Edit(./README.md)"
    assert suggest("Write", "~/notes/n.md") == "Edit(~/notes/**)"
    assert suggest("Read", str(env.outside / "secret.txt")).endswith("/outside/**)")  # type: ignore[union-attr]
    assert suggest("Read", "src/a.py") is None  # it does not ask


def test_no_rule_is_suggested_when_an_ask_rule_asked(env: Env) -> None:
    policy = Policy(ask=rules("Bash(git push:*)"))
    assert policy.suggest(TOOLS["Bash"], {"command": "git push"}, env.ctx) is None


@pytest.mark.parametrize(
    ("command", "then"),
    [
        ("git commit -m x", "git commit -m x"),
        ("npm run test -- -x", "npm run test -- -x"),
        ("git status > out.txt", "git status > out.txt"),
        ("cat /etc/hosts", "cat /etc/hosts"),
        ("$X y", "$X y"),
        ("rm -rf build", "rm -rf build"),
    ],
)
def test_the_suggested_rule_allows_the_next_identical_call(
    env: Env, command: str, then: str
) -> None:
    policy = Policy()
    rule = policy.suggest(TOOLS["Bash"], {"command": command}, env.ctx)
    assert rule is not None
    policy.allow.append(Rule.parse(rule))
    assert env.bash(policy, then) == "allow"


def test_cycle_mode() -> None:
    assert cycle_mode("default") == "acceptEdits"
    assert cycle_mode("acceptEdits") == "plan"
    assert cycle_mode("plan") == "default"
    assert cycle_mode("bypassPermissions") == "default"
