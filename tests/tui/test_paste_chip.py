"""A 3,000-line paste does not fill the screen (issue 25): it shows as a chip that sends the
whole text, is removed whole by Backspace, and can be expanded to edit (Ctrl+T)."""

from __future__ import annotations

from pathlib import Path

from textual import events

from agent import events as ev
from agent.messages import TextBlock
from tests.fakes.scripted import ScriptedModel
from tests.helpers.tui import SIZE, make_app, settle, wait_ready

PASTE = "\n".join(f"log line {i}" for i in range(3000))


async def paste(pilot, text: str) -> None:
    pilot.app.main.prompt.post_message(events.Paste(text))
    await pilot.pause()


async def test_a_long_paste_is_a_chip_that_sends_the_whole_text(workspace: Path) -> None:
    model = ScriptedModel(["Read it."])
    app, events_ = make_app(workspace, model)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        prompt = app.main.prompt
        prompt.focus()
        await pilot.press(*"why ")
        await paste(pilot, PASTE)
        assert prompt.text == "why [Pasted text #1 +3000 lines]"
        assert prompt.document.line_count == 1  # the screen is not filled
        await pilot.press(*" fails?", "enter")
        await events_.wait_for(ev.TurnFinished)
        await settle(app, pilot)
    sent = model.requests[0].messages[-1].content[0]
    assert isinstance(sent, TextBlock) and sent.text == f"why {PASTE} fails?"


async def test_backspace_removes_a_chip_whole_and_ctrl_t_expands_it(workspace: Path) -> None:
    app, _ = make_app(workspace, ScriptedModel([]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        prompt = app.main.prompt
        prompt.focus()
        await paste(pilot, PASTE)
        await pilot.press("backspace")
        assert prompt.text == ""
        await paste(pilot, PASTE)
        await pilot.press("ctrl+t")
        assert prompt.text == PASTE  # the text itself, to edit
        await paste(pilot, "short\npaste")
        assert prompt.text.endswith("short\npaste")  # a short paste is inserted as it is
