"""The request to the model goes before the screen shows what comes with it (tui/screens/
paced.py ``before_frame``, tui/screens/main_events.py ``AHEAD_OF_REQUEST``): the prompt's
block and the answer's are mounted once the loop waits for the network, not between the
steps that build and send the request; the frame that shows them follows, and every event
is still shown in the order it came."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from agent import events as ev
from tests.fakes.scripted import ScriptedModel
from tests.helpers.tui import SIZE, make_app, settle, type_and_send, wait_ready
from tests.helpers.wait import until
from tui.screens import paced
from tui.screens.paced import FramePacer
from tui.widgets.conversation.assistant_text import AssistantText
from tui.widgets.conversation.conversation import Conversation
from tui.widgets.conversation.message_line import MessageLine
from tui.widgets.conversation.user_prompt import UserPrompt

PERIOD = 1 / 60


def chain(loop: asyncio.AbstractEventLoop, order: list[str], name: str, steps: int) -> None:
    """``steps`` callbacks, each making the next ready (as a request is built and sent)."""

    def step(n: int) -> None:
        order.append(f"{name} {n}")
        if n < steps:
            loop.call_soon(step, n + 1)

    loop.call_soon(step, 1)


async def test_work_goes_after_the_ready_chain_and_the_frame_after_what_it_started() -> None:
    loop = asyncio.get_running_loop()
    order: list[str] = []
    painted = asyncio.Event()

    def paint() -> None:
        order.append("paint")
        painted.set()

    def work() -> None:
        order.append("work")
        chain(loop, order, "mount", 3)

    pacer = FramePacer(paint, PERIOD, yield_s=30.0)
    chain(loop, order, "request", 4)
    pacer.resume()  # a frame asked for before the work (the prompt cleared)
    pacer.before_frame(work)
    await asyncio.wait_for(painted.wait(), 30)
    assert order == [
        *(f"request {n}" for n in range(1, 5)),
        "work",
        *(f"mount {n}" for n in range(1, 4)),
        "paint",
    ]


async def test_work_is_kept_when_a_frame_is_called_off_and_paints_nothing_itself() -> None:
    order: list[str] = []
    done = asyncio.Event()

    def work() -> None:
        order.append("work")
        done.set()

    pacer = FramePacer(lambda: order.append("paint"), PERIOD, yield_s=30.0)
    pacer.resume()
    pacer.before_frame(work)
    pacer.pause()  # a layout painted the frame meanwhile: the work still goes
    await asyncio.wait_for(done.wait(), 30)
    # nothing is scheduled after the work: no frame can follow unless one is asked for
    assert order == ["work"] and pacer.due is None


async def test_work_does_not_wait_for_a_frames_credit() -> None:
    loop = asyncio.get_running_loop()
    pacer = FramePacer(lambda: None, PERIOD, burst=1, yield_s=30.0)
    pacer.painted(loop.time())  # the credit spent: the next frame waits a period
    pacer.resume()
    due = pacer.due
    assert due is not None and due > loop.time()
    ran = asyncio.Event()
    pacer.before_frame(ran.set)
    assert pacer.due is not None and pacer.due <= loop.time()  # the work goes at once
    await asyncio.wait_for(ran.wait(), 30)
    assert pacer.due is not None  # ... and the frame is still asked for


class RequestModel:
    """Builds its request in a chain of loop steps (as the SDK does), notes what the screen
    shows when it leaves, then waits for the network (the loop idle) and answers."""

    name = "scripted"

    def __init__(self, app_of: Any) -> None:
        self.app_of = app_of
        self.at_request: tuple[int, int] | None = None
        self.at_answer: tuple[int, int] | None = None
        self._script = ScriptedModel(["The answer."])

    def shown(self) -> tuple[int, int]:
        app = self.app_of()
        return len(app.query(UserPrompt)), len(app.query(AssistantText))

    async def respond(self, request: Any, sink: Any) -> Any:
        for _ in range(10):  # steps of the loop, not time: sleep(0) only yields once
            await asyncio.sleep(0)
        self.at_request = self.shown()
        # the network: the loop has nothing ready while it polls, so the held blocks show
        self.at_answer = await until(
            lambda: self.shown() if self.shown() == (1, 1) else None,
            what=lambda: f"both blocks shown while the request waits (shown: {self.shown()})",
        )
        return await self._script.respond(request, sink)


async def test_the_request_leaves_before_the_answers_block_is_mounted(
    workspace: Path, monkeypatch: Any
) -> None:
    monkeypatch.setattr(paced, "YIELD_S", 30.0)  # no deadline cuts the wait short here
    apps: list[Any] = []
    model = RequestModel(lambda: apps[0])
    app, events = make_app(workspace, model, frozen=False)
    apps.append(app)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "hello")
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
        # neither the prompt's block (TurnStarted) nor the answer's (ModelCallStarted, just
        # before the request) was mounted while the turn started and the request was built:
        # the loop was never idle in between, and the second event did not show the first
        assert model.at_request == (0, 0)
        assert model.at_answer == (1, 1)  # both mounted while it waited for the network
        conversation = app.main.query_one(Conversation)
        blocks = [type(b).__name__ for b in conversation.children][-2:]
        assert blocks == ["UserPrompt", "AssistantText"]
        assert app.main.query_one(AssistantText).text == "The answer."


async def test_an_event_held_back_that_fails_to_show_is_reported_and_the_next_shown(
    workspace: Path, monkeypatch: Any
) -> None:
    def broken(self: Conversation, event: Any) -> None:
        raise RuntimeError("no prompt block today")

    monkeypatch.setattr(Conversation, "_on_turn_started", broken)
    app, events = make_app(workspace, ScriptedModel(["Still here."]), frozen=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "hello")
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
        lines = [str(m.render()) for m in app.main.query(MessageLine)]
        assert any("Could not display a turn_started event" in line for line in lines)
        assert app.main.query_one(AssistantText).text == "Still here."  # the call's block
