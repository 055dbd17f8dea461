"""Ctrl+C and Ctrl+D as in Claude Code (issue 25): Ctrl+C stops a running turn like Esc,
clears a non-empty prompt, and twice on an empty prompt quits; Ctrl+D on an empty prompt
quits (the prompt's TextArea binds both keys, so they must reach the app first)."""

from __future__ import annotations

from pathlib import Path

from agent import events as ev
from frontend.keys import CTRL_C_AGAIN
from tests.fakes.scripted import ScriptedModel
from tests.helpers.tui import SIZE, StreamThenStall, make_app, wait_ready
from tui.widgets.conversation.message_line import MessageLine


def hints(app) -> list[str]:
    return [line.text for line in app.query(MessageLine)]


async def test_ctrl_c_stops_a_running_turn(workspace: Path) -> None:
    model = StreamThenStall("Working on it, slowly", ScriptedModel(["after"]))
    app, events = make_app(workspace, model)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_ready(app, pilot)
        app.main.prompt.insert("go")
        await pilot.press("enter")
        await model.streaming.wait()
        await pilot.press("ctrl+c")
        await events.wait_for(ev.Interrupted)
        await events.wait_for(ev.TurnFinished)
        assert not app._notifications  # no "press ctrl+q to quit" toast
        assert app.return_value is None  # still running


async def test_ctrl_c_clears_the_prompt_then_twice_on_an_empty_one_quits(workspace: Path) -> None:
    app, _ = make_app(workspace, ScriptedModel([]))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_ready(app, pilot)
        app.main.prompt.focus()
        await pilot.press(*"half a thought")
        await pilot.press("ctrl+c")
        assert app.main.prompt.text == "" and app.return_value is None
        await pilot.press("ctrl+c")
        assert CTRL_C_AGAIN in hints(app) and app.return_value is None
        assert not app._notifications
        await pilot.press("ctrl+c")
        assert app.return_value == 0


async def test_ctrl_d_quits_on_an_empty_prompt_and_deletes_otherwise(workspace: Path) -> None:
    app, _ = make_app(workspace, ScriptedModel([]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        prompt = app.main.prompt
        prompt.focus()
        await pilot.press(*"abc", "home", "ctrl+d")
        assert prompt.text == "bc" and app.return_value is None  # the TextArea's delete
        prompt.load_text("")
        await pilot.press("ctrl+d")
        assert app.return_value == 0
