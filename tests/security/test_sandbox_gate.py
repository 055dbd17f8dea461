"""How the gate and the sandbox work together: the grant each call carries, and what changes
when no sandbox is available (read-only auto-allow off, said once, fail closed)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent import events as ev
from agent import ops
from agent.messages import ToolUseBlock, assistant
from agent.permissions.policy import Policy, Rule
from agent.sandbox.config import SandboxSettings
from agent.sandbox.detect import INSTALL_HINT, availability
from agent.sandbox.runner import Sandbox
from agent.session.config import SessionConfig
from agent.session.core import Session
from agent.session.gate import PermissionGate
from tests.fakes.scripted import ScriptedModel, tool_call
from tests.helpers.sandbox import needs_bwrap, run_bash, sandboxed_ctx
from tools import default_tools
from tools.base import ToolContext, ToolError
from tools.bash import BashTool


def gate_for(
    tmp_path: Path, policy: Policy, sandbox: Sandbox | None, events: list[Any], headless=False
) -> PermissionGate:
    ctx = ToolContext(tmp_path, sandbox=sandbox)
    return PermissionGate(
        policy, ctx, events.append, lambda: 1, tmp_path, headless=headless, sandbox=sandbox
    )


def bash(command: str) -> ToolUseBlock:
    return ToolUseBlock("b1", "Bash", {"command": command})


@needs_bwrap
@pytest.mark.parametrize(
    ("policy", "command", "grant"),
    [
        (Policy(), "ls -la", "read_only"),
        (Policy(), "cat README.md | wc -l", "read_only"),
        (Policy(mode="plan"), "git status", "read_only"),
        (Policy(allow=[Rule.parse("Bash(make:*)")]), "make test", "rule"),
        (Policy(allow=[Rule.parse("Bash(ls -la)")]), "ls -la", "rule"),
        (Policy(allow=[Rule.parse("Bash")]), "rm -f x", "rule"),
        (Policy(mode="bypassPermissions"), "rm -f x", "bypass"),
        (Policy(mode="bypassPermissions"), "ls", "bypass"),
    ],
)
async def test_the_gate_says_why_a_call_runs(
    tmp_path: Path, policy: Policy, command: str, grant: str
) -> None:
    gate = gate_for(tmp_path, policy, Sandbox(), [])
    decision = await gate(bash(command), BashTool())
    assert decision.allow and decision.grant == grant


async def test_a_yes_from_the_user_is_the_user_grant(tmp_path: Path) -> None:
    events: list[Any] = []
    gate = gate_for(tmp_path, Policy(), Sandbox(), events)
    import asyncio

    task = asyncio.ensure_future(gate(bash("rm -f x"), BashTool()))
    while not any(isinstance(e, ev.PermissionRequested) for e in events):
        await asyncio.sleep(0)
    request = next(e for e in events if isinstance(e, ev.PermissionRequested))
    gate.answer(ops.AnswerPermission(request.request_id, "allow"))
    decision = await task
    assert decision.allow and decision.grant == "user"


def test_the_detector_sees_a_missing_bubblewrap(no_sandbox: None) -> None:
    found = availability()
    assert found.backend is None and "bubblewrap" in found.why and "install" in found.why


def test_the_detector_sees_a_bubblewrap_that_does_not_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tmp_path / "bwrap"
    fake.write_text(
        "#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n"
    )
    fake.chmod(0o755)
    monkeypatch.setenv("EDDY_SANDBOX_BWRAP", str(fake))
    found = availability()
    assert found.backend is None and "does not work" in found.why


async def test_without_a_sandbox_read_only_commands_ask_and_eddy_says_why_once(
    tmp_path: Path, no_sandbox: None
) -> None:
    events: list[Any] = []
    gate = gate_for(tmp_path, Policy(), Sandbox(), events, headless=True)
    first = await gate(bash("ls"), BashTool())
    second = await gate(bash("cat README.md"), BashTool())
    assert not first.allow and not second.allow
    assert "bubblewrap" in first.reason and "sandbox" in first.reason
    notices = [e for e in events if isinstance(e, ev.Notice)]
    assert len(notices) == 1 and INSTALL_HINT in notices[0].text
    ruled = gate_for(tmp_path, Policy(allow=[Rule.parse("Bash(ls:*)")]), Sandbox(), [], True)
    assert (await ruled(bash("ls"), BashTool())).allow  # the user's own rule still allows it


async def test_without_a_sandbox_the_question_offers_this_exact_command(
    tmp_path: Path, no_sandbox: None
) -> None:
    import asyncio

    events: list[Any] = []
    gate = gate_for(tmp_path, Policy(), Sandbox(), events)
    task = asyncio.ensure_future(gate(bash("ls -la"), BashTool()))
    while not any(isinstance(e, ev.PermissionRequested) for e in events):
        await asyncio.sleep(0)
    request = next(e for e in events if isinstance(e, ev.PermissionRequested))
    assert "sandbox" in request.warning and request.suggested_rule == "Bash(ls -la)"
    gate.save_rules = False
    gate.answer(ops.AnswerPermission(request.request_id, "allow_always"))
    assert (await task).grant == "user"
    again = await gate(bash("ls -la"), BashTool())
    assert again.allow and again.grant == "rule"


async def test_the_sandbox_turned_off_also_turns_off_the_read_only_auto_allow(
    tmp_path: Path,
) -> None:
    gate = gate_for(tmp_path, Policy(), Sandbox(SandboxSettings(enabled=False)), [], True)
    decision = await gate(bash("ls"), BashTool())
    assert not decision.allow and "sandbox.enabled is false" in decision.reason


@needs_bwrap
async def test_excluded_commands_run_outside_and_so_ask(tmp_path: Path) -> None:
    sandbox = Sandbox(SandboxSettings(excluded_commands=("git:*",)))
    gate = gate_for(tmp_path, Policy(), sandbox, [], headless=True)
    assert not (await gate(bash("git status"), BashTool())).allow
    assert (await gate(bash("ls"), BashTool())).allow
    assert sandbox.profile_for("rule", "git push") is None
    assert sandbox.profile_for("rule", "git push; rm -rf x") == "workspace"


async def test_a_read_only_grant_with_no_sandbox_fails_closed(
    tmp_path: Path, no_sandbox: None
) -> None:
    ctx = sandboxed_ctx(tmp_path)
    with pytest.raises(ToolError, match="read-only"):
        await run_bash(ctx, "ls", "read_only")
    result = await run_bash(ctx, "echo ran", "rule")
    assert "ran" in str(result.content)  # a rule's command runs as it would without sandbox


@needs_bwrap
def test_all_commands_sandboxed_when_unsandboxed_commands_are_not_allowed() -> None:
    sandbox = Sandbox(SandboxSettings(allow_unsandboxed_commands=False))
    assert sandbox.profile_for("user", "rm -rf build") == "workspace"
    assert Sandbox().profile_for("user", "rm -rf build") is None


@needs_bwrap
async def test_a_session_runs_auto_allowed_commands_in_the_sandbox(
    tmp_path: Path, fake_home: Path
) -> None:
    command = "cat .ssh/id_x; echo done"  # eddy runs in HOME: the key is inside the workspace
    model = ScriptedModel([assistant(tool_call("b", "Bash", command=command)), "ok"])
    events: list[Any] = []
    config = SessionConfig(workspace=fake_home, model="claude-sonnet-5-5", headless=True)
    session = Session(config, model, default_tools(), events.append)
    session.submit(ops.SubmitPrompt("go"))
    await session.wait_idle()
    finished = [e for e in events if isinstance(e, ev.ToolCallFinished)]
    assert len(finished) == 1 and "done" in finished[0].content
    assert "SSH-CANARY" not in finished[0].content


async def test_a_session_without_sandbox_refuses_read_only_commands_headless(
    tmp_path: Path, no_sandbox: None
) -> None:
    model = ScriptedModel([assistant(tool_call("b", "Bash", command="ls")), "ok"])
    events: list[Any] = []
    config = SessionConfig(workspace=tmp_path, model="claude-sonnet-5-5", headless=True)
    session = Session(config, model, default_tools(), events.append)
    session.submit(ops.SubmitPrompt("go"))
    await session.wait_idle()
    finished = [e for e in events if isinstance(e, ev.ToolCallFinished)]
    assert finished[0].status == "refused" and "bubblewrap" in finished[0].content
