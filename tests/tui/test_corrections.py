"""Typing while a turn runs queues a correction: shown, editable, delivered after the results."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agent import events as ev
from agent.messages import TextBlock, ToolResultBlock, assistant, check_invariant
from tests.fakes.scripted import ScriptedModel, tool_call
from tests.helpers.tui import (
    SIZE,
    StreamThenStall,
    make_app,
    settle,
    shell_tool,
    type_and_send,
    wait_ready,
)
from tui.widgets.conversation.tool_call import ToolCallBlock
from tui.widgets.conversation.user_prompt import UserPrompt

BYPASS = ("--permission-mode", "bypassPermissions")


def one_tool_then_done() -> ScriptedModel:
    return ScriptedModel(
        [assistant("Testing.", tool_call("c1", "Bash", command="make test")), "ok"]
    )


async def test_a_correction_typed_during_a_tool_reaches_the_next_request(workspace: Path) -> None:
    release = asyncio.Event()
    model = one_tool_then_done()
    app, events = make_app(workspace, model, [shell_tool(release)], *BYPASS)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "run the tests")
        await events.wait_for(ev.ToolCallRunning)
        await type_and_send(pilot, "use pytest -x instead")
        await events.wait_for(ev.QueueChanged)
        await pilot.pause()
        queued = app.main.queued
        assert queued.display and queued.items == ("use pytest -x instead",)
        assert "use pytest -x instead" in str(queued.render())
        assert "1 queued" in str(app.main.status.render())
        release.set()
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
        assert not queued.display
        # the correction is shown where the model read it: after the tool call
        children = list(app.main.conversation.children)
        tool_at = next(i for i, c in enumerate(children) if isinstance(c, ToolCallBlock))
        corrections = [
            c for c in children if isinstance(c, UserPrompt) and c.has_class("correction")
        ]
        assert [c.text for c in corrections] == ["use pytest -x instead"]
        assert children.index(corrections[0]) > tool_at
    sent = model.requests[1].messages
    check_invariant(sent)
    blocks = sent[-1].content
    assert isinstance(blocks[0], ToolResultBlock)
    assert blocks[1:] == (TextBlock("use pytest -x instead"),)


async def test_up_on_an_empty_prompt_takes_the_queued_correction_back(workspace: Path) -> None:
    release = asyncio.Event()
    model = one_tool_then_done()
    app, events = make_app(workspace, model, [shell_tool(release)], *BYPASS)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "run the tests")
        await events.wait_for(ev.ToolCallRunning)
        await type_and_send(pilot, "use pytset")
        await events.wait_for(ev.QueueChanged)
        await pilot.press("up")
        await events.wait_for(ev.QueueChanged, 2)
        await pilot.pause()
        prompt = app.main.prompt
        assert prompt.text == "use pytset"
        assert app.session.queue == [] and not app.main.queued.display
        prompt.load_text("use pytest")
        await pilot.press("enter")
        await events.wait_for(ev.QueueChanged, 3)
        assert app.session.queue == ["use pytest"]
        release.set()
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
    blocks = model.requests[1].messages[-1].content
    assert blocks[1:] == (TextBlock("use pytest"),)


async def test_esc_with_a_queue_stops_and_sends_the_queue_at_once(workspace: Path) -> None:
    then = ScriptedModel(["ok, doing that"])
    model = StreamThenStall("I will rewrite everything " * 10, then)
    app, events = make_app(workspace, model)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "refactor")
        await model.streaming.wait()
        await type_and_send(pilot, "no, only the parser")
        await events.wait_for(ev.QueueChanged)
        await pilot.press("escape")
        second = await events.wait_for(ev.TurnStarted, 2)
        await events.wait_for(ev.TurnFinished, 2)
        await settle(app, pilot)
        assert second.prompt == "no, only the parser"
        texts = [p.text for p in app.query(UserPrompt)]
        assert texts == ["refactor", "no, only the parser"]
    sent = then.requests[-1].messages
    check_invariant(sent)
    assert sent[-1].content[-1] == TextBlock("no, only the parser")
