"""Ctrl+B in line mode sends the running Bash command to the background (issue 22); /exit
ends the background shell's whole group."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from agent import events as ev
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.helpers.plain import ENTER

CTRL_B = "\x02"


def group_gone(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    return False


async def test_ctrl_b_in_line_mode(
    harness: Any, fake_api: FakeAnthropic, workspace: Path, tmp_path: Path
) -> None:
    sig = tmp_path / "sig"
    command = f"echo before; while [ ! -e {sig} ]; do sleep 0.02; done"
    fake_api.push(
        Reply([tool_use("toolu_1", "Bash", {"command": command})], "tool_use"),
        Reply([text("moved on")]),
    )
    h = harness("--permission-mode", "bypassPermissions")
    await h.start()
    h.type("build" + ENTER)
    await h.event(ev.ToolOutputDelta)
    h.type(CTRL_B)
    finished = await h.event(ev.ToolCallFinished)
    assert "sent this command to the background" in str(finished.content)
    await h.event(ev.TurnFinished)
    await h.idle()
    shell = h.app.session.shells.shells["bash_1"]
    assert shell.status == "running"
    assert fake_api.violations == []
    assert await h.exit() == 0
    assert group_gone(shell.pgid)
