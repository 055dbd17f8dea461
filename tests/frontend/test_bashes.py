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


async def test_tasks_lists_agents_beside_shells_and_kill_stops_an_agent(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    from tests.agent.subagents.background_api import (
        STALL,
        Agents,
        bg_agent,
        bg_session,
        signal,
        texts,
    )
    from tests.agent.subagents.background_api import call as agent_call

    loop = asyncio.get_running_loop()
    waiting = asyncio.Event()
    agents = Agents(
        fake_api,
        {
            "child-list": [
                agent_call("c1", "Glob", pattern="*"),
                signal(loop, waiting, STALL),
            ],
            "start two": [
                agent_call("p0", "Bash", command="sleep 300", run_in_background=True),
                bg_agent("p1", "child-list task\nwith a second line"),
                Reply([text("started")]),
            ],
        },
    )
    session, events = bg_session(fake_api, tmp_path)
    session.submit(ops.SubmitPrompt("start two"))
    await session.wait_idle()
    await asyncio.wait_for(waiting.wait(), 30)
    (record,) = session.ctx.subagents.tasks.values()
    lines, op = bashes_command(session, "")
    assert op is None
    assert lines[0] == "Background shells (1 running):"
    assert lines[1].split()[:2] == ["bash_1", "running"]
    assert lines[2] == "Background agents (1 running):"
    words = lines[3].split()
    assert words[:4] == [record.id, "general-purpose", "running", words[3]]
    assert "1 turn, $" in lines[3] and lines[3].endswith("child-list task")
    assert lines[-1].endswith("/bashes kill ID (or /tasks kill ID) stops one.")
    lines, op = bashes_command(session, f"kill {record.id}")  # /tasks kill ID
    assert op == ops.KillShell(record.id)
    session.submit(op)
    notice = await events.wait_for(ev.Notice)
    assert notice.text.startswith(f"Successfully stopped agent: {record.id}")
    assert record.status == "stopped"
    assert "stopped" in bashes_command(session, "")[0][3]
    session.submit(ops.KillShell(record.id))
    error = await events.wait_for(ev.Error)
    assert f"Agent {record.id} is not running (status: stopped" in error.message
    session.submit(ops.SubmitPrompt("what now?"))
    await session.wait_idle()
    last = agents.requests["start two"][-1]
    assert sum(texts(m).count("was stopped before it finished") for m in last["messages"]) == 1
    assert texts(last["messages"][-1]).startswith("what now?")
    assert fake_api.violations == []
    await session.close()
