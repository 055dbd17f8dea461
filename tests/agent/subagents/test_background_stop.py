"""Background agents and Esc, and stopping one (agent/subagents/host.py's docstring), through
the real loop and the fake Messages API: Esc leaves a background child running and it reports
later; TaskStop and KillShell stop one blocked in a model call or a tool (its history closed
validly, its transcript saying interrupted, its cost counted, one notice for the model); an
unknown or finished id is an is_error result; the session's close stops the rest."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent import events as ev
from agent import ops
from agent.messages import ToolResultBlock, check_invariant
from agent.store.load import load
from tests.agent.subagents.background_api import (
    STALL,
    Agents,
    bg_agent,
    bg_session,
    call,
    child_transcript,
    held,
    signal,
    texts,
)
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.helpers.events import Events

STOPPED = "was stopped before it finished"


def notices_in(body: dict[str, Any]) -> int:
    """How many times the stop notice appears in one request (all its messages)."""
    return sum(texts(m).count(STOPPED) for m in body["messages"])


def tool_started(events: Events, name: str) -> Callable[[], bool]:
    """A predicate: a child has started a call of tool ``name``."""
    return lambda: any(
        e.event["type"] == "tool_call_started" and e.event["name"] == name
        for e in events.of(ev.SubagentEvent)
    )


async def test_esc_leaves_a_background_child_running_and_it_reports_later(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    loop = asyncio.get_running_loop()
    parent_waiting = asyncio.Event()
    gate = threading.Event()
    agents = Agents(
        fake_api,
        {
            "child-late": [held(gate, Reply([text("the late child report")]))],
            "start the work": [
                bg_agent("p1", "child-late task"),
                signal(loop, parent_waiting, STALL),
                Reply([text("read the report")]),
            ],
        },
    )
    session, events = bg_session(fake_api, tmp_path)
    session.submit(ops.SubmitPrompt("start the work"))
    await asyncio.wait_for(parent_waiting.wait(), 30)
    session.submit(ops.Interrupt())  # Esc during the parent's turn
    await session.wait_idle()
    host = session.ctx.subagents
    (record,) = host.tasks.values()
    assert record.status == "running" and record.id in host.background
    gate.set()
    await asyncio.wait_for(asyncio.wait(set(host.background.values())), 30)
    assert record.status == "completed"
    await session.wait_idle()  # eddy is idle: the report starts a turn by itself
    assert events.of(ev.TurnStarted)[-1].origin == "background"
    last = agents.requests["start the work"][-1]["messages"][-1]
    assert "the late child report" in texts(last) and "<status>completed</status>" in texts(last)
    assert session.history[-1].text == "read the report"
    assert fake_api.violations == []
    await session.close()


async def test_task_stop_stops_a_child_blocked_in_a_model_call(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    loop = asyncio.get_running_loop()
    waiting = asyncio.Event()
    agents = Agents(
        fake_api,
        {
            "child-slow": [call("c1", "Glob", pattern="*"), signal(loop, waiting, STALL)],
            "start the work": [bg_agent("p1", "child-slow task"), Reply([text("started it")])],
        },
    )
    session, events = bg_session(fake_api, tmp_path)
    session.submit(ops.SubmitPrompt("start the work"))
    await session.wait_idle()
    await asyncio.wait_for(waiting.wait(), 30)  # the child's second call hangs
    host = session.ctx.subagents
    (record,) = host.tasks.values()
    agents.scripts["start the work"] += [
        call("p2", "TaskStop", task_id=record.id),
        Reply([text("stopped it")]),
    ]
    session.submit(ops.SubmitPrompt("stop it"))
    await session.wait_idle()
    assert record.status == "stopped" and not host.background
    after_stop = agents.requests["start the work"][3]
    result = texts(after_stop["messages"][-1])
    assert f"Successfully stopped agent: {record.id} (general-purpose: child-slow task)" in result
    assert notices_in(after_stop) == 1  # the one notice, read at the very next call
    # the child's history is closed validly by its own loop, and saved so
    history = record.child.history
    check_invariant(history, at_rest=True)
    assert history[-1].role == "user" and "interrupted" in history[-1].text
    saved = load(child_transcript(session, record.id))
    assert not saved.problems and "interrupted" in saved.history[-1].text
    ends = [e.event["subtype"] for e in events.of(ev.SubagentEvent)
            if e.event["type"] == "turn_finished"]  # fmt: skip
    assert ends == ["interrupted"]
    # its budget share is counted in the session's spend
    parent = sum(e.cost_usd for e in events.of(ev.TurnFinished))
    assert record.child.turn.cost > 0
    assert session.total_cost == pytest.approx(parent + record.child.turn.cost)
    session.submit(ops.SubmitPrompt("anything else?"))
    await session.wait_idle()
    assert notices_in(agents.requests["start the work"][-1]) == 1  # not twice
    assert fake_api.violations == []
    await session.close()


async def test_kill_shell_stops_a_child_blocked_in_a_slow_tool(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    agents = Agents(
        fake_api,
        {
            "child-tool": [call("c1", "Bash", command="sleep 300")],
            "start the work": [bg_agent("p1", "child-tool task"), Reply([text("started it")])],
        },
    )
    session, events = bg_session(fake_api, tmp_path)
    session.submit(ops.SubmitPrompt("start the work"))
    await session.wait_idle()
    await events.wait_until(tool_started(events, "Bash"), 30)
    host = session.ctx.subagents
    (record,) = host.tasks.values()
    agents.scripts["start the work"] += [
        call("p2", "KillShell", shell_id=record.id),
        Reply([text("killed it")]),
    ]
    session.submit(ops.SubmitPrompt("kill it"))
    await session.wait_idle()
    assert record.status == "stopped"
    after_stop = agents.requests["start the work"][3]
    assert "Successfully stopped agent" in texts(after_stop["messages"][-1])
    assert notices_in(after_stop) == 1
    history = record.child.history
    check_invariant(history, at_rest=True)
    bash_result = history[-1].content[0]
    assert isinstance(bash_result, ToolResultBlock) and bash_result.tool_use_id == "c1"
    assert bash_result.is_error and "interrupt" in str(bash_result.content)
    assert len(agents.requests["child-tool"]) == 1  # it made no call after the stop
    assert fake_api.violations == []
    await session.close()


async def test_stopping_an_unknown_or_finished_id_is_an_error_naming_what_exists(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    agents = Agents(
        fake_api,
        {
            "child-quick": [Reply([text("quick answer")])],
            "start the work": [bg_agent("p1", "child-quick task"), Reply([text("started it")])],
        },
    )
    session, events = bg_session(fake_api, tmp_path)
    session.submit(ops.SubmitPrompt("start the work"))
    await session.wait_idle()
    host = session.ctx.subagents
    if host.background:  # the child's quick answer may still be on its way
        await asyncio.wait_for(asyncio.wait(set(host.background.values())), 30)
    (record,) = host.tasks.values()
    assert record.status == "completed"
    uses = [
        tool_use("s1", "TaskStop", {"task_id": "nope"}),
        tool_use("s2", "TaskStop", {"task_id": record.id}),
        tool_use("s3", "KillShell", {"shell_id": record.id}),
        tool_use("s4", "TaskStop", {}),
    ]
    agents.scripts["start the work"] += [Reply(uses, "tool_use"), Reply([text("none left")])]
    session.submit(ops.SubmitPrompt("stop everything"))
    await session.wait_idle()
    results = session.history[-2].content
    assert [r.tool_use_id for r in results[:4]] == ["s1", "s2", "s3", "s4"]  # type: ignore[union-attr]
    assert all(r.is_error for r in results[:4])  # type: ignore[union-attr]
    named = f"{record.id} (general-purpose, completed)"
    assert "No shell found with ID: nope" in str(results[0].content)  # type: ignore[union-attr]
    assert named in str(results[0].content)  # type: ignore[union-attr]
    for r in results[1:3]:
        assert f"Agent {record.id} is not running (status: completed" in str(r.content)  # type: ignore[union-attr]
    assert "needs a task_id" in str(results[3].content)  # type: ignore[union-attr]
    assert fake_api.violations == []
    await session.close()


async def test_the_sessions_close_stops_the_background_children_left(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    loop = asyncio.get_running_loop()
    first, second = asyncio.Event(), asyncio.Event()
    Agents(
        fake_api,
        {
            "child-one": [signal(loop, first, STALL)],
            "child-two": [signal(loop, second, STALL)],
            "start the work": [
                Reply(
                    [
                        tool_use("p1", "Agent", {"description": "a", "prompt": "child-one",
                                 "subagent_type": "general-purpose", "run_in_background": True}),
                        tool_use("p2", "Agent", {"description": "b", "prompt": "child-two",
                                 "subagent_type": "general-purpose", "run_in_background": True}),
                    ],
                    "tool_use",
                ),
                Reply([text("started both")]),
            ],
        },
    )  # fmt: skip
    session, events = bg_session(fake_api, tmp_path)
    session.submit(ops.SubmitPrompt("start the work"))
    await session.wait_idle()
    await asyncio.wait_for(asyncio.gather(first.wait(), second.wait()), 30)
    host = session.ctx.subagents
    one, two = host.tasks.values()
    session.submit(ops.KillShell(one.id))  # /tasks kill ID
    await events.wait_until(lambda: one.status == "stopped", 30)
    assert two.status == "running"
    await session.close()
    assert two.status == "stopped" and not host.background
    for record in (one, two):
        check_invariant(record.child.history, at_rest=True)
        assert "interrupted" in load(child_transcript(session, record.id)).history[-1].text
    assert fake_api.violations == []
