"""``/permissions why`` and ``eddy permissions why``: the decision for one call, and the rule,
file and line that made it (agent/permissions/why.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.permissions.why import call_for, decide
from agent.settings.files import build_policy, load_settings
from agent.settings.rule_editor import PermissionEditor, text_command
from cli.main import main
from tools.base import ToolContext

SETTINGS = {
    "permissions": {
        "allow": ["Bash(git * main)", "Read(~/notes/**)"],
        "ask": ["Bash(git push *)"],
        "deny": ["Bash(git push --force *)", "Read(./.env)"],
    }
}


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text(json.dumps(SETTINGS, indent=2))
    (project / ".eddy").mkdir()
    (project / ".eddy" / "settings.local.json").write_text(
        '{"permissions": {"allow": ["Bash(make *)"]}}'
    )
    return project


@pytest.mark.parametrize(
    ("call", "verdict", "rule"),
    [
        (
            "Bash(git push --force origin main)",
            "deny",
            "deny Bash(git push --force *) — .claude/settings.json line 11",
        ),
        (
            "Bash(git push origin main)",
            "ask",
            "ask Bash(git push *) — .claude/settings.json line 8",
        ),
        (
            "Bash(git checkout main)",
            "allow",
            "allow Bash(git * main) — .claude/settings.json line 4",
        ),
        ("Bash(make all)", "allow", "allow Bash(make *) — .eddy/settings.local.json line 1"),
        ("Read(.env)", "deny", "deny Read(./.env) — .claude/settings.json line 12"),
        ("Edit(.env)", "deny", "deny Read(./.env) — .claude/settings.json line 12"),
        ("Read(~/notes/a.md)", "allow", "allow Read(~/notes/**) — .claude/settings.json line 5"),
        ("Bash(rm -rf build)", "ask", "none; the default mode decides"),
    ],
)
def test_why_names_the_decision_and_the_rule_file_and_line(
    ws: Path, call: str, verdict: str, rule: str
) -> None:
    settings, problems = load_settings(ws)
    assert problems == []
    policy, _ = build_policy(settings)
    decision, text = decide(policy, ToolContext(ws), call)
    assert decision.verdict == verdict
    assert text.splitlines()[0].startswith(f"{call}: {verdict}")
    assert f"  rule: {rule}" in text.splitlines()


def test_a_command_line_rule_says_so(ws: Path) -> None:
    settings, _ = load_settings(ws)
    policy, _ = build_policy(settings, allowed_tools=["Bash(npm test *)"])
    _, text = decide(policy, ToolContext(ws), '"Bash(npm test)"')
    assert "rule: allow Bash(npm test *) — the command line or this session" in text


def test_calls_are_read_like_rules() -> None:
    assert call_for("Bash(git push)") == ("Bash", {"command": "git push"})
    assert call_for("WebFetch(example.com)")[1]["url"] == "https://example.com"
    assert call_for("mcp__github__create_issue") == ("mcp__github__create_issue", {})
    with pytest.raises(ValueError):
        call_for("not a call(")


def test_the_slash_command_prints_it(ws: Path) -> None:
    settings, _ = load_settings(ws)
    editor = PermissionEditor(ws, build_policy(settings)[0])
    ((text, kind),) = text_command(editor, 'why "Bash(git push origin main)"') or []
    assert kind == "hint" and "Bash(git push *) — .claude/settings.json line 8" in text
    ((text, kind),) = text_command(editor, "why") or []
    assert kind == "error"


def test_eddy_permissions_why(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["permissions", "why", "Bash(git push --force origin main)", "--cwd", str(ws)])
    out = capsys.readouterr().out
    assert code == 0
    assert out.startswith("Bash(git push --force origin main): deny")
    assert ".claude/settings.json line 11" in out
    assert main(["permissions", "why", "bad(", "--cwd", str(ws)]) == 2
    assert main(["permissions"]) == 2
