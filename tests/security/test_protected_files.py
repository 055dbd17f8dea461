"""Protected files always ask before an edit, whatever the rules and the mode (bypassPermissions
too; plan mode refuses), and the question says why; hook scripts are protected like settings."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from agent import events as ev
from agent import ops
from agent.messages import ToolUseBlock
from agent.permissions.places import SessionPlaces, hook_script_paths, protected_reason
from agent.permissions.policy import Policy, Rule
from agent.session.gate import PermissionGate
from tools.base import ToolContext
from tools.write import WriteTool

PROTECTED = [
    ".git/config",
    ".git/hooks/pre-commit",
    "vendor/lib/.git/config",
    ".gitmodules",
    ".eddy/settings.json",
    ".eddy/settings.local.json",
    ".eddy/commands/x.md",
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".mcp.json",
    ".envrc",
    ".bashrc",
    ".zshrc",
    ".profile",
    ".bash_profile",
    ".config/fish/config.fish",
    ".claude/notes.md",
    ".claude/skills/x/SKILL.md",
    ".claude/agents/a.md",
    ".eddy/skills/x/SKILL.md",
    "CLAUDE.md",
    "docs/CLAUDE.local.md",
    "AGENTS.md",
    ".git/info/attributes",
    ".gitconfig",
]
ORDINARY = ["src/config", "git/config", ".git-notes", "docs/.claude.md", "claude.md", "a.py"]


@pytest.mark.parametrize("rel", PROTECTED)
def test_protected_paths_have_a_reason(tmp_path: Path, rel: str) -> None:
    assert protected_reason(tmp_path / rel)


@pytest.mark.parametrize("rel", ORDINARY)
def test_ordinary_paths_are_not_protected(tmp_path: Path, rel: str) -> None:
    assert protected_reason(tmp_path / rel) is None


def test_home_rc_files_and_eddys_config_are_protected(tmp_path: Path) -> None:
    from agent.paths import config_dir

    assert protected_reason(Path.home() / ".bashrc")
    assert protected_reason(config_dir().resolve() / "settings.json")


def test_hook_scripts_are_protected(tmp_path: Path) -> None:
    script = tmp_path / "hooks" / "check.sh"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\n")
    (tmp_path / "lint.py").write_text("")
    scripts = hook_script_paths(
        ["bash hooks/check.sh --fast", "python3 lint.py", "echo hi", "'unbalanced"], tmp_path
    )
    assert scripts == (script, tmp_path / "lint.py")
    places = SessionPlaces().with_paths(scripts, "a configured hook runs this script")
    assert protected_reason(script, places) == "a configured hook runs this script"
    assert protected_reason(script) is None


POLICIES = [
    Policy(mode="acceptEdits"),
    Policy(allow=[Rule.parse("Edit")]),
    Policy(allow=[Rule.parse("Write(./**)"), Rule.parse("Edit(.git/**)")]),
    Policy(mode="acceptEdits", allow=[Rule.parse("Write")]),
]


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("rel", [".git/config", ".eddy/settings.json", ".git/hooks/post-checkout"])
def test_writing_a_protected_file_asks_whatever_the_rules(
    tmp_path: Path, policy: Policy, rel: str
) -> None:
    ctx = ToolContext(tmp_path)
    decision = policy.check(WriteTool(), {"file_path": rel, "content": "x"}, ctx)
    assert decision.verdict == "ask" and "protected file" in decision.warning
    ordinary = policy.check(WriteTool(), {"file_path": "src/a.py", "content": "x"}, ctx)
    assert ordinary.verdict == "allow"  # the same rules do allow an ordinary file


def test_bypass_permissions_asks_before_protected_files_and_deny_rules_still_hold(
    tmp_path: Path,
) -> None:
    ctx = ToolContext(tmp_path)
    args = {"file_path": ".git/config", "content": "x"}
    asked = Policy(mode="bypassPermissions").check(WriteTool(), args, ctx)
    assert asked.verdict == "ask" and "git runs programs" in asked.warning
    ordinary = {"file_path": "src/a.py", "content": "x"}
    assert Policy(mode="bypassPermissions").check(WriteTool(), ordinary, ctx).verdict == "allow"
    denied = Policy(mode="bypassPermissions", deny=[Rule.parse("Edit(.git/**)")])
    assert denied.check(WriteTool(), args, ctx).verdict == "deny"
    assert Policy(mode="plan").check(WriteTool(), args, ctx).verdict == "deny"


async def test_the_question_says_why_the_file_is_sensitive(tmp_path: Path) -> None:
    events: list[Any] = []
    ctx = ToolContext(tmp_path)
    policy = Policy(mode="acceptEdits")
    gate = PermissionGate(policy, ctx, events.append, lambda: 1, tmp_path, headless=False)
    use = ToolUseBlock("w", "Write", {"file_path": ".git/config", "content": "x"})
    task = asyncio.ensure_future(gate(use, WriteTool()))
    while not any(isinstance(e, ev.PermissionRequested) for e in events):
        await asyncio.sleep(0)
    request = next(e for e in events if isinstance(e, ev.PermissionRequested))
    assert "protected file" in request.warning and "git runs programs" in request.warning
    gate.answer(ops.AnswerPermission(request.request_id, "deny"))
    assert not (await task).allow


async def test_headless_refusal_of_a_protected_file_says_why(tmp_path: Path) -> None:
    ctx = ToolContext(tmp_path)
    policy = Policy(allow=[Rule.parse("Edit")])
    gate = PermissionGate(policy, ctx, lambda _e: None, lambda: 1, tmp_path, headless=True)
    use = ToolUseBlock("w", "Write", {"file_path": ".mcp.json", "content": "{}"})
    decision = await gate(use, WriteTool())
    assert not decision.allow and "MCP servers" in decision.reason
    assert "--allowed-tools" not in decision.reason  # allowing Write would not help
    assert not (tmp_path / ".mcp.json").exists()


@pytest.mark.parametrize(
    "command",
    [
        "echo '[core] fsmonitor = evil' >> .git/config",
        'echo \'{"permissions": {"allow": ["Bash"]}}\' > .eddy/settings.json',
        "cat x > ~/.bashrc",
    ],
)
def test_shell_output_redirected_to_a_protected_file_asks_even_when_allowed(
    tmp_path: Path, command: str
) -> None:
    from tools.bash import BashTool

    ctx = ToolContext(tmp_path)
    for policy in (Policy(mode="acceptEdits"), Policy(allow=[Rule.parse("Bash")])):
        decision = policy.check(BashTool(), {"command": command}, ctx)
        assert decision.verdict == "ask" and "protected file" in decision.warning
    bypass = Policy(mode="bypassPermissions").check(BashTool(), {"command": command}, ctx)
    assert bypass.verdict == "ask" and "protected file" in bypass.warning


BROAD_RULES = ["Bash", "Bash(cp:*)", "Bash(mkdir:*)", "Bash(sh:*)", "Bash(tee:*)"]


@pytest.mark.parametrize(
    "command",
    [
        "mkdir .eddy && cp x .eddy/settings.json",  # .eddy does not exist: the sandbox cannot
        "cp x .claude/settings.local.json",  # bind what is not there read-only
        "mkdir -p .git/hooks",
        "cp evil .git/hooks/pre-commit",
        "cp x .mcp.json",
        "sh -c 'cp x .mcp.json'",
        "cp x ~/.bashrc",
        "cp --target-directory=.eddy x",
    ],
)
@pytest.mark.parametrize("mode", ["default", "acceptEdits"])
def test_a_command_naming_a_protected_place_asks_whatever_the_rules(
    tmp_path: Path, command: str, mode: str
) -> None:
    from tools.bash import TOOL as BASH

    ctx = ToolContext(tmp_path)
    policy = Policy(mode=mode, allow=[Rule.parse(r) for r in BROAD_RULES])  # type: ignore[arg-type]
    decision = policy.check(BASH, {"command": command}, ctx)
    assert decision.verdict == "ask", (command, decision)
    assert "protected" in decision.warning


@pytest.mark.parametrize("command", ["cp a b", "mkdir build", "make test", "git commit -m x"])
def test_commands_that_name_no_protected_place_still_follow_the_rules(
    tmp_path: Path, command: str
) -> None:
    from tools.bash import TOOL as BASH

    ctx = ToolContext(tmp_path)
    policy = Policy(allow=[Rule.parse("Bash")])
    assert policy.check(BASH, {"command": command}, ctx).verdict == "allow"
