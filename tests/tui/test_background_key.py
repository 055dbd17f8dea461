"""Ctrl+B in the TUI sends the running foreground Bash command to the background (issue 22):
the call returns with the shell's id, the command runs on, and the session's close ends it."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agent import events as ev
from agent.messages import assistant
from tests.fakes.scripted import ScriptedModel, tool_call
from tests.helpers.tui import SIZE, make_app, settle, type_and_send, wait_ready
from tools.bash import TOOL as BASH


async def test_ctrl_b_moves_the_running_command_to_the_background(
    workspace: Path, tmp_path: Path
) -> None:
    sig = tmp_path / "sig"
    command = f"echo before; while [ ! -e {sig} ]; do sleep 0.02; done; echo after"
    model = ScriptedModel([assistant(tool_call("b1", "Bash", command=command)), "moved"])
    app, events = make_app(workspace, model, [BASH], "--permission-mode", "bypassPermissions")
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "build it")
        await events.wait_until(
            lambda: any("before" in e.text for e in events.of(ev.ToolOutputDelta))
        )
        await pilot.press("ctrl+b")
        finished = await events.wait_for(ev.ToolCallFinished)
        await settle(app, pilot)
        assert "sent this command to the background" in str(finished.content)
        assert not finished.is_error
        shell = app.session.shells.shells["bash_1"]
        assert shell.status == "running"
        sig.touch()
        await asyncio.wait_for(shell.done.wait(), 20)
        assert "after" in "".join(shell.unread)


async def test_ctrl_b_with_nothing_running_does_nothing(workspace: Path) -> None:
    app, events = make_app(workspace, ScriptedModel([]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await pilot.press("ctrl+b")
        await pilot.pause()
        assert not events.of(ev.Notice)
