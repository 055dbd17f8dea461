"""Red team: the places that configure or extend eddy (agent/permissions/places.py) are written
only with the user's yes, in every mode, whatever the rules, by the file tools and the shell,
directly, through ``sh -c``, through a skill's grant and through a subagent; and git's own
commands keep writing its configuration where nothing runs (``git remote add``).

Every attack here got through before this list existed (checked against eddy before it):
skills, agents, commands and memory files were not protected, bypassPermissions wrote every
protected file, and ``git config core.hooksPath`` followed the rules like any command.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from agent import ops
from agent.messages import ToolResultBlock, assistant
from agent.permissions.policy import Mode, Policy, Rule
from agent.session.config import SessionConfig
from agent.session.core import Session
from agent.subagents.attach import attach_subagents
from agent.subagents.definitions import load_agents
from tests.fakes.scripted import tool_call
from tests.helpers.events import Events
from tests.helpers.sandbox import needs_bwrap, run_bash, sandboxed_ctx
from tests.helpers.subagents import TreeModel
from tools import default_tools
from tools.base import ToolContext
from tools.bash import TOOL as BASH
from tools.edit import EditTool
from tools.notebook_edit import NotebookEditTool
from tools.write import WriteTool

PLANTED = [
    ".claude/skills/x/SKILL.md",
    ".claude/agents/a.md",
    ".claude/commands/c.md",
    ".claude/rules/r.md",
    ".claude/hooks/guard.sh",
    ".eddy/settings.json",
    ".eddy/skills/x/SKILL.md",
    "CLAUDE.md",
    "CLAUDE.local.md",
    "AGENTS.md",
    "sub/CLAUDE.md",
    ".mcp.json",
    ".git/hooks/pre-commit",
    ".git/config",
]
MODES: list[Mode] = ["default", "acceptEdits", "bypassPermissions", "dontAsk"]
RULES = [[], ["Write", "Edit"], ["Write(./**)", "Edit(./**)"], ["Edit(.claude/**)"]]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("rules", RULES, ids=["none", "bare", "everything", "named"])
def test_the_file_tools_never_write_a_place_that_configures_eddy_unasked(
    tmp_path: Path, mode: Mode, rules: list[str]
) -> None:
    ctx = ToolContext(tmp_path)
    policy = Policy(mode, [Rule.parse(r) for r in rules])
    for rel in PLANTED:
        write = policy.check(WriteTool(), {"file_path": rel, "content": "x"}, ctx)
        edit = policy.check(
            EditTool(), {"file_path": rel, "old_string": "a", "new_string": "b"}, ctx
        )
        for decision in (write, edit):
            assert decision.verdict != "allow", (mode, rules, rel)
            if mode != "dontAsk":
                assert decision.verdict == "ask" and "protected" in decision.warning, rel
            else:
                assert "protected" in decision.reason, rel  # the refusal says why


def test_a_notebook_in_a_protected_place_asks_too(tmp_path: Path) -> None:
    args = {"notebook_path": ".claude/x.ipynb", "new_source": "x", "cell_number": 0}
    decision = Policy("bypassPermissions").check(NotebookEditTool(), args, ToolContext(tmp_path))
    assert decision.verdict == "ask" and "configures eddy" in decision.warning


def test_plan_mode_refuses_them_outright(tmp_path: Path) -> None:
    decision = Policy("plan").check(
        WriteTool(), {"file_path": "CLAUDE.md", "content": "x"}, ToolContext(tmp_path)
    )
    assert decision.verdict == "deny" and "plan mode" in decision.reason


def test_ordinary_files_follow_the_mode_as_before(tmp_path: Path) -> None:
    ctx = ToolContext(tmp_path)
    for mode in ("acceptEdits", "bypassPermissions"):
        decision = Policy(mode).check(
            WriteTool(), {"file_path": "src/claude.md", "content": ""}, ctx
        )  # type: ignore[arg-type]
        assert decision.verdict == "allow"


SHELL = [
    "echo x > CLAUDE.md",
    "echo x >> AGENTS.md",
    "cat x > .claude/skills/x/SKILL.md",
    "cp x .claude/agents/a.md",
    "mkdir -p .claude/skills/x",
    "touch CLAUDE.local.md",
    "mv notes.md AGENTS.md",
    "sed -i s/a/b/ CLAUDE.md",
    "tee .eddy/settings.json < x",
    "sh -c 'cp x CLAUDE.md'",
    "bash -c 'echo {} > .mcp.json'",
    "cp x .git/hooks/pre-commit",
    "rm .claude/settings.json",
]
SHELL_RULES = [
    "Bash",
    "Bash(cp:*)",
    "Bash(sh:*)",
    "Bash(bash:*)",
    "Bash(tee:*)",
    "Bash(mv:*)",
    "Bash(sed:*)",
]


@pytest.mark.parametrize("mode", ["default", "acceptEdits", "bypassPermissions"])
def test_the_shell_never_writes_them_unasked(tmp_path: Path, mode: Mode) -> None:
    ctx = ToolContext(tmp_path)
    policy = Policy(mode, [Rule.parse(r) for r in SHELL_RULES])
    for command in SHELL:
        decision = policy.check(BASH, {"command": command}, ctx)
        assert decision.verdict == "ask", (mode, command, decision)
        assert "protected" in decision.warning, command


def test_commands_that_only_read_a_memory_file_follow_the_rules(tmp_path: Path) -> None:
    policy = Policy("default", [Rule.parse("Bash(git add:*)"), Rule.parse("Bash(git commit:*)")])
    for command in ("git add CLAUDE.md", "git commit -m 'update AGENTS.md'"):
        assert policy.check(BASH, {"command": command}, ToolContext(tmp_path)).verdict == "allow"
    copy = {"command": "cat CLAUDE.md > notes.md"}
    assert Policy("acceptEdits").check(BASH, copy, ToolContext(tmp_path)).verdict == "allow"


async def test_a_skills_grant_does_not_open_them(tmp_path: Path) -> None:
    """A skill granting ``Write`` and ``Bash`` (its allowed-tools) still asks for them."""
    from agent.prompt.skills import Skill, SkillGrants, Skills

    skill = Skill("x", "d", tmp_path / "SKILL.md", ("Write", "Bash"))
    policy = Policy("acceptEdits")
    grants = SkillGrants(Skills({"x": skill}), policy.allow)
    grants.grant("Skill", {"skill": "x"})
    ctx = ToolContext(tmp_path)
    assert policy.check(WriteTool(), {"file_path": "a.py", "content": ""}, ctx).verdict == "allow"
    write = policy.check(
        WriteTool(), {"file_path": ".claude/skills/y/SKILL.md", "content": ""}, ctx
    )
    shell = policy.check(BASH, {"command": "echo x > CLAUDE.md"}, ctx)
    assert write.verdict == shell.verdict == "ask"


def _results(message: Any) -> list[ToolResultBlock]:
    return [b for b in message.content if isinstance(b, ToolResultBlock)]


async def test_a_subagent_cannot_plant_a_skill_either(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    skill = {"file_path": str(ws / ".claude/skills/x/SKILL.md"), "content": "---\n---\n"}
    model = TreeModel(
        {
            "go": [
                assistant(
                    tool_call(
                        "p",
                        "Agent",
                        description="d",
                        prompt="child work",
                        subagent_type="general-purpose",
                    )
                ),
                "done",
            ],  # noqa: E501
            "child work": [assistant(tool_call("c", "Write", **skill)), "ok"],
        }
    )
    config = SessionConfig(workspace=ws, model="claude-sonnet-5-5", headless=True)
    config.policy.mode = "acceptEdits"
    session = Session(config, model, default_tools(), Events())
    attach_subagents(session, load_agents(ws, home=tmp_path / "home"))
    session.submit(ops.SubmitPrompt("go"))
    await session.wait_idle()
    (refused,) = _results(model.by_prompt["child work"][1].messages[-1])
    assert refused.is_error and "protected" in str(refused.content)
    assert not (ws / ".claude").exists()
    await session.close()


CODE_KEYS = [
    "git config core.hooksPath .hooks",
    "git config core.fsmonitor 'touch pwned'",
    "git config core.sshCommand 'sh -c evil'",
    "git config core.pager 'sh -c evil'",
    "git config alias.st '!touch pwned'",
    "git config filter.x.clean 'touch pwned'",
    "git config diff.x.textconv evil",
    "git config include.path ../evil.cfg",
    "git config --global core.editor evil",
    "git config set core.editor evil",
    "git config --edit",
    'git config "$KEY" value',
    "sh -c 'git config core.hooksPath x'",
]
HARMLESS_CONFIG = [
    "git config user.name 'A Person'",
    "git config user.email a@example.com",
    "git remote add origin https://example.com/r.git",
    "git remote set-url origin https://example.com/s.git",
    "git branch --set-upstream-to=origin/main",
    "git checkout --track origin/feature",
    "git config --unset user.name",
]


@pytest.mark.parametrize("mode", ["default", "acceptEdits", "bypassPermissions"])
def test_git_settings_that_run_programs_always_ask(tmp_path: Path, mode: Mode) -> None:
    policy = Policy(mode, [Rule.parse("Bash(git:*)"), Rule.parse("Bash(sh:*)"), Rule.parse("Bash")])
    for command in CODE_KEYS:
        decision = policy.check(BASH, {"command": command}, ToolContext(tmp_path))
        assert decision.verdict == "ask", (mode, command)
        assert "git" in decision.warning, command
    for command in HARMLESS_CONFIG:
        decision = policy.check(BASH, {"command": command}, ToolContext(tmp_path))
        assert decision.verdict == "allow", (mode, command)


def test_harmless_git_config_writes_get_a_grant_that_lets_git_write_it(tmp_path: Path) -> None:
    policy = Policy("default", [Rule.parse("Bash(git remote add:*)"), Rule.parse("Bash(make:*)")])
    ctx = ToolContext(tmp_path)
    decision = policy.check(BASH, {"command": "git remote add o https://x/r.git"}, ctx)
    assert decision.verdict == "allow" and decision.git_config
    mixed = policy.check(BASH, {"command": "git remote add o https://x && make"}, ctx)
    assert mixed.verdict == "allow" and not mixed.git_config  # make could write anything


def _repo(path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


@needs_bwrap
async def test_git_remote_add_allowed_by_a_rule_works_in_the_sandbox(tmp_path: Path) -> None:
    ws = _repo(tmp_path / "ws")
    ctx = sandboxed_ctx(ws)
    result = await run_bash(ctx, "git remote add origin https://example.com/r.git", "git_config")
    assert not result.is_error, result.content
    assert "example.com" in (ws / ".git" / "config").read_text()
    hooked = await run_bash(ctx, "git config core.hooksPath /tmp/x", "rule")
    assert hooked.is_error  # a rule's ordinary grant: .git/config stays read-only
    assert "hooksPath" not in (ws / ".git" / "config").read_text()
