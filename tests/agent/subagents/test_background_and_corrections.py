"""Background children report completion as a notice the model reads at its next call;
``@agent-<name> text`` while a child runs is a queued correction for that child."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from agent import events as ev
from agent import ops
from agent.messages import ToolResultBlock, assistant
from tests.fakes.scripted import tool_call
from tests.helpers.subagents import TreeModel, tree_session


def bg_call(call_id: str, prompt: str) -> Any:
    return tool_call(call_id, "Agent", description="bg", prompt=prompt,
                     subagent_type="general-purpose", run_in_background=True)  # fmt: skip


async def test_a_background_childs_report_reaches_the_next_call_of_the_running_turn(
    tmp_path: Path,
) -> None:
    release = asyncio.Event()
    calls: list[int] = []
    session_box: list[Any] = []

    async def parent_hold() -> None:
        calls.append(1)
        if len(calls) == 2:  # the parent's second call: let the child finish first
            release.set()
            await events.wait_until(lambda: bool(session_box[0].queue))

    model = TreeModel(
        {
            "go": [
                assistant(bg_call("p1", "background work")),
                assistant(tool_call("g", "Glob", pattern="*")),
                "saw the report",
            ],
            "background work": ["the background answer"],
        },
        hold={"go": parent_hold, "background work": release.wait},
    )
    session, events = tree_session(tmp_path, model)
    session_box.append(session)
    session.submit(ops.SubmitPrompt("go"))
    await session.wait_idle()
    started = session.history[2].content[0]
    assert isinstance(started, ToolResultBlock) and not started.is_error
    assert "in the background" in str(started.content)
    third = model.by_prompt["go"][2].messages[-1]
    assert "the background answer" in third.text and "<status>completed</status>" in third.text
    assert session.history[-1].text == "saw the report"
    await session.close()


async def test_a_report_after_the_turn_ended_starts_a_turn_by_itself(tmp_path: Path) -> None:
    release = asyncio.Event()
    model = TreeModel(
        {
            "go": [assistant(bg_call("p1", "later")), "started it", "next answer"],
            "later": ["late answer"],
        },
        hold={"later": release.wait},
    )
    session, events = tree_session(tmp_path, model)
    session.submit(ops.SubmitPrompt("go"))
    await session.wait_idle()
    host = session.ctx.subagents
    assert host.background  # still running after its parent's turn ended
    release.set()
    await asyncio.gather(*host.background.values())
    await session.wait_idle()  # eddy is idle: the report starts a turn by itself
    prompt = model.by_prompt["go"][-1].messages[-1]
    assert prompt.text.startswith("<system-reminder>") and "late answer" in prompt.text
    (started,) = [e for e in events.of(ev.TurnStarted) if e.origin == "background"]
    assert started.prompt == 'Agent "bg" finished'
    assert session.history[-1].text == "next answer"
    assert session.total_cost > 0
    await session.close()


async def test_close_stops_a_running_background_child(tmp_path: Path) -> None:
    never = asyncio.Event()
    model = TreeModel(
        {"go": [assistant(bg_call("p1", "forever")), "ok"], "forever": ["x"]},
        hold={"forever": never.wait},
    )
    session, events = tree_session(tmp_path, model)
    session.submit(ops.SubmitPrompt("go"))
    await session.wait_idle()
    await session.close()
    ends = [e.event["subtype"] for e in events.of(ev.SubagentEvent)
            if e.event["type"] == "turn_finished"]  # fmt: skip
    assert ends == ["interrupted"] and not session.ctx.subagents.background


async def test_at_agent_text_is_a_correction_for_that_running_child(tmp_path: Path) -> None:
    waiting, release = asyncio.Event(), asyncio.Event()

    async def first_call_waits() -> None:
        if not waiting.is_set():
            waiting.set()
            await release.wait()

    call = tool_call("p1", "Agent", description="w", prompt="work",
                     subagent_type="general-purpose")  # fmt: skip
    model = TreeModel(
        {
            "go": [assistant(call), "parent done"],
            "work": [assistant(tool_call("g", "Glob", pattern="*")), "worked"],
        },
        hold={"work": first_call_waits},
    )
    session, events = tree_session(tmp_path, model)
    session.submit(ops.SubmitPrompt("go"))
    await asyncio.wait_for(waiting.wait(), 10)
    session.submit(ops.SubmitPrompt("@agent-general-purpose also look at the tests"))
    assert session.queue == []  # not the parent's
    release.set()
    await session.wait_idle()
    second = model.by_prompt["work"][1].messages[-1]
    assert second.text == "also look at the tests"
    assert "also look at the tests" not in str([m.to_param() for m in session.history])
    assert any("Queued for the agent" in n.text for n in events.of(ev.Notice))
