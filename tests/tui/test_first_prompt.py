"""The first prompt never waits for the SDK in silence (issue 25): typed while the model's
client is still being made (``import anthropic`` takes seconds), it shows in the conversation
at once with "connecting…" in the status line, and is sent as soon as the client exists,
shown once."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from agent import events as ev
from tests.fakes.scripted import ScriptedModel
from tests.helpers.tui import SIZE, make_app, settle, type_and_send, wait_ready
from tui.widgets.conversation.user_prompt import UserPrompt


class SlowClientModel:
    """A model with an SDK-like client that takes until ``made`` is set to make (as
    AnthropicModel's does: ``respond`` makes it if nobody has)."""

    name = "scripted"

    def __init__(self, answers: list[str]) -> None:
        self.made = threading.Event()
        self.calls = 0
        self._script = ScriptedModel(answers)

    def client(self) -> object:
        self.made.wait(timeout=10)  # bounded: a regression must fail, not hang the suite
        return object()

    async def respond(self, request: Any, sink: Any) -> Any:
        self.calls += 1
        self.client()
        return await self._script.respond(request, sink)


def shown_prompts(app: Any) -> list[str]:
    return [p.text for p in app.query(UserPrompt)]


async def test_a_prompt_typed_before_the_client_exists_shows_at_once_and_goes_once_made(
    workspace: Path,
) -> None:
    model = SlowClientModel(["Hello back."])
    app, events = make_app(workspace, model, frozen=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "hello")
        await pilot.pause()
        assert shown_prompts(app) == ["hello"]  # on screen before anything was sent
        assert "connecting" in app.main.status.activity
        assert model.calls == 0 and not events.of(ev.TurnStarted)
        model.made.set()  # the client exists: the prompt goes
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
        assert model.calls == 1
        assert shown_prompts(app) == ["hello"]  # shown once, not again by the turn's start
        assert "connecting" not in app.main.status.activity


async def test_prompts_after_the_client_exists_are_sent_at_once(workspace: Path) -> None:
    model = SlowClientModel(["one", "two"])
    model.made.set()
    app, events = make_app(workspace, model, frozen=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "first")
        await events.wait_for(ev.TurnFinished)
        await type_and_send(pilot, "second")
        await events.wait_for(ev.TurnFinished, 2)
        await settle(app, pilot)
        assert shown_prompts(app) == ["first", "second"]
