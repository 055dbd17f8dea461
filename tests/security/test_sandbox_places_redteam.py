"""Red team: a command no one approved (allowed by a rule, acceptEdits, a skill's grant, in a
subagent, or in bypassPermissions outside the sandbox) cannot keep any place that configures
eddy that did not exist when it started, whatever it spells (names built at run time,
``sh -c``, Python), in the foreground or the background, and the mechanism leaves nothing in
the user's tree.

Before agent/sandbox/watch.py, the sandbox bound read-only only what existed: every attack
below left its file behind for the next session (checked against eddy before it); in
bypassPermissions the watch came later still (bench/bench_redteam.py's
shell-builds-name-bypass got through).
"""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import pytest

from agent import ops
from agent.messages import ToolResultBlock, assistant
from agent.permissions.policy import Rule
from agent.prompt.skills import Skill, SkillGrants, Skills
from agent.session.config import SessionConfig
from agent.session.core import Session
from agent.session.shells import ShellRegistry
from agent.subagents.attach import attach_subagents
from agent.subagents.definitions import load_agents
from tests.fakes.scripted import ScriptedModel, tool_call
from tests.helpers.events import Events
from tests.helpers.sandbox import needs_bwrap, run_bash, sandboxed_ctx
from tests.helpers.subagents import TreeModel
from tools import default_tools
from tools.base import Grant
from tools.bash import BashTool

pytestmark = needs_bwrap

SETTINGS = '{"permissions": {"allow": ["Bash"]}, "sandbox": {"enabled": false}}'
BUILT_AT_RUN_TIME = [
    # Python building the name from pieces
    (
        ".eddy",
        "python3 -c \"import os; d='.'+'ed'+'dy'; os.makedirs(d); "
        f"open(d+'/settings.json','w').write('{SETTINGS}')\"",
    ),
    # a shell variable, inside sh -c
    (
        ".claude",
        "sh -c 'n=.cl; mkdir -p ${n}aude/skills/x && echo hi > ${n}aude/skills/x/SKILL.md'",
    ),
    # printf-built names, no protected word anywhere in the command
    (".mcp.json", "f=$(printf '.%s.%s' mcp json); echo '{}' > \"$f\""),
    ("CLAUDE.md", "f=$(echo Q0xBVURFLm1k | base64 -d); echo 'obey' > \"$f\""),
    ("AGENTS.md", "python3 -c \"open(''.join(['AG','ENTS.md']),'w').write('obey')\""),
    ("CLAUDE.local.md", "cd sub && cd .. && f=CLAUDE; touch ${f}.local.md"),
    (".envrc", "python3 -c \"import pathlib; pathlib.Path('.en'+'vrc').write_text('curl x')\""),
    (".claude", "ln -s /tmp .cl''aude"),  # a symlink is a place too
]


def _tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


@pytest.mark.parametrize("grant", ["rule", "bypass"])
@pytest.mark.parametrize(("place", "command"), BUILT_AT_RUN_TIME)
async def test_a_place_created_by_a_command_no_one_approved_does_not_stay(
    tmp_path: Path, place: str, command: str, grant: Grant
) -> None:
    ws = tmp_path / "ws"
    (ws / "sub").mkdir(parents=True)
    ctx = sandboxed_ctx(ws)
    result = await run_bash(ctx, command, grant)  # bypass: outside the sandbox, watched
    assert not (ws / place).exists() and not (ws / place).is_symlink(), result.content
    assert result.is_error and "moved them out" in str(result.content), result.content
    assert place in str(result.content)  # the refusal names it, and why
    assert _tree(ws) == ["sub"]  # and nothing else is left behind


async def test_the_same_command_approved_by_the_user_keeps_its_file(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    ctx = sandboxed_ctx(ws)
    await run_bash(ctx, "echo hi > CLAUDE.md", "user")  # outside the sandbox, the user's yes
    assert (ws / "CLAUDE.md").read_text() == "hi\n"


async def test_an_ordinary_command_leaves_no_trace(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("a")
    ctx = sandboxed_ctx(ws)
    result = await run_bash(ctx, "cat a.txt > b.txt && mkdir build", "rule")
    assert not result.is_error
    assert _tree(ws) == ["a.txt", "b.txt", "build"]  # no mount point of a missing place


async def test_git_init_is_kept_but_a_planted_hook_or_setting_is_not(tmp_path: Path) -> None:
    plain, hooked, configured = tmp_path / "plain", tmp_path / "hooked", tmp_path / "configured"
    for ws in (plain, hooked, configured):
        ws.mkdir()
    ok = await run_bash(sandboxed_ctx(plain), "git init -q", "rule")
    assert not ok.is_error and (plain / ".git" / "config").exists()
    await run_bash(
        sandboxed_ctx(hooked),
        "git init -q && printf '#!/bin/sh\\ntouch pwned\\n' > .git/hooks/pre-commit",
        "rule",
    )
    await run_bash(sandboxed_ctx(configured), "git init -q && git config core.fsmonitor x", "rule")
    assert not (hooked / ".git").exists() and not (configured / ".git").exists()


async def test_a_missing_hooks_folder_cannot_be_filled(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    subprocess.run(["rm", "-rf", str(ws / ".git" / "hooks")], check=True)
    ctx = sandboxed_ctx(ws)
    command = "h=.git/ho; mkdir ${h}oks && echo 'touch pwned' > ${h}oks/post-checkout"
    result = await run_bash(ctx, command, "rule")
    assert result.is_error and not (ws / ".git" / "hooks").exists()


async def test_a_background_command_cannot_keep_one_either(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    ctx = sandboxed_ctx(ws)
    ctx.shells = ShellRegistry(ctx.limits, ctx.output_dir)
    command = "sleep 0.2; python3 -c \"import os; os.makedirs('.'+'claude/agents')\""
    args = {"command": command, "run_in_background": True}
    started = await BashTool().run(args, ctx.for_call(lambda _t: None, "rule"))
    shell = next(iter(ctx.shells.shells.values()))
    await asyncio.wait_for(shell.done.wait(), 30)
    assert "ID:" in str(started.content)
    assert not (ws / ".claude").exists()
    assert "moved them out" in ctx.shells.read(shell.id, None)
    await ctx.shells.close()


async def test_what_the_user_let_a_tool_write_meanwhile_is_left_alone(tmp_path: Path) -> None:
    from agent.sandbox.runner import Sandbox

    ws = tmp_path / "ws"
    ws.mkdir()
    ctx = sandboxed_ctx(ws)
    assert isinstance(ctx.sandbox, Sandbox)
    watch = ctx.sandbox.watch("rule", "make", ctx.roots())
    assert watch is not None
    (ws / "CLAUDE.md").write_text("the user's own")  # as a Write the user approved would
    ctx.sandbox.approve([ws / "CLAUDE.md"])
    assert watch.finish() is None and (ws / "CLAUDE.md").exists()


PLANT = BUILT_AT_RUN_TIME[0][1]  # python3 building '.'+'ed'+'dy' and writing settings.json


def _skill(home: Path) -> Skills:
    """A user's own skill (approved by nature) whose allowed-tools grant python3."""
    path = home / "skills" / "py" / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_text("---\nname: py\ndescription: d\n---\nRun python.\n")
    return Skills({"py": Skill("py", "d", path, ("Bash(python3:*)",))})


def _results(model: ScriptedModel) -> list[ToolResultBlock]:
    return [
        b
        for request in model.requests
        for m in request.messages
        for b in m.content
        if isinstance(b, ToolResultBlock)
    ]


@pytest.mark.parametrize("route", ["rule", "bypassPermissions", "skill", "subagent"])
async def test_no_route_through_a_session_keeps_a_planted_place(tmp_path: Path, route: str) -> None:
    """The whole way: the gate picks the grant, the Bash tool the sandbox and the watch."""
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    plant = assistant(tool_call("b", "Bash", command=PLANT))
    config = SessionConfig(workspace=ws, model="claude-sonnet-5-5", headless=True)
    config.policy.mode = "bypassPermissions" if route == "bypassPermissions" else "acceptEdits"
    if route in ("rule", "subagent"):
        config.policy.allow.append(Rule.parse("Bash(python3:*)"))
    skills = _skill(home)
    model: ScriptedModel
    if route == "subagent":
        agent = tool_call(
            "p", "Agent", description="d", prompt="child work", subagent_type="general-purpose"
        )
        model = TreeModel({"go": [assistant(agent), "done"], "child work": [plant, "ok"]})
    elif route == "skill":
        model = ScriptedModel([assistant(tool_call("s", "Skill", skill="py")), plant, "done"])
    else:
        model = ScriptedModel([plant, "done"])
    session = Session(config, model, [*default_tools(), skills.tool()], Events())
    session.add_extension(SkillGrants(skills, config.policy.allow))
    if route == "subagent":
        attach_subagents(session, load_agents(ws, home=home))
    session.submit(ops.SubmitPrompt("go"))
    await session.wait_idle()
    await session.close()
    planted = [r for r in _results(model) if r.tool_use_id == "b"]
    assert planted and planted[-1].is_error, route
    assert "moved them out" in str(planted[-1].content)
    assert not (ws / ".eddy").exists()
