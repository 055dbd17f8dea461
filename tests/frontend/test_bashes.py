"""``/bashes`` lists the session's background shells and ``/bashes kill ID`` stops one."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agent import events as ev
from agent import ops
from frontend.bashes import USAGE, bashes_command
from tests.agent.test_background_shells import call, group_gone, make_session, prompt
from tests.fakes.fake_api import FakeAnthropic, Reply, text


async def test_bashes_lists_and_kills(fake_api: FakeAnthropic, tmp_path: Path) -> None:
    fake_api.push(
        call("toolu_a", "Bash", command="sleep 300", run_in_background=True),
        call("toolu_b", "Bash", command="exit 4", run_in_background=True),
        Reply([text("two")]),
    )
    session, events = make_session(fake_api, tmp_path / "ws")
    await prompt(session, "start two")
    done = session.shells.shells["bash_2"]
    await asyncio.wait_for(done.done.wait(), 20)
    lines, op = bashes_command(session, "")
    assert op is None
    assert lines[0] == "Background shells (1 running):"
    assert lines[1].split()[:2] == ["bash_1", "running"]
    assert lines[1].endswith("sleep 300")
    assert "failed (exit 4)" in lines[2] and lines[2].endswith("exit 4")
    assert bashes_command(session, "kill") == ([USAGE], None)
    assert bashes_command(session, "what") == ([USAGE], None)
    lines, op = bashes_command(session, "kill bash_1")
    assert op == ops.KillShell("bash_1")
    session.submit(op)
    notice = await events.wait_for(ev.Notice)
    assert notice.text == "Successfully killed shell: bash_1 (sleep 300)"
    assert group_gone(session.shells.shells["bash_1"].pgid)
    session.submit(ops.KillShell("bash_1"))
    error = await events.wait_for(ev.Error)
    assert "not running" in error.message
    await session.close()
