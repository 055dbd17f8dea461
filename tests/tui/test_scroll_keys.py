"""The conversation scrolls from the keyboard while the prompt has the focus (issue 25):
PageUp/PageDown, Shift+Up/Down, Ctrl+Home/End (over ssh there may be no mouse)."""

from __future__ import annotations

from pathlib import Path

from agent import events as ev
from tests.fakes.scripted import ScriptedModel
from tests.helpers.tui import SIZE, make_app, settle, type_and_send, wait_ready


async def test_page_shift_and_ctrl_keys_scroll_the_conversation(workspace: Path) -> None:
    answer = "\n\n".join(f"Paragraph {i} of a long answer." for i in range(120))
    app, events = make_app(workspace, ScriptedModel([answer]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "a long one")
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
        view, prompt = app.main.conversation, app.main.prompt
        prompt.insert("typed")
        await pilot.pause()
        bottom = view.max_scroll_y
        assert bottom > 50 and view.scroll_y == bottom
        await pilot.press("pageup")
        assert view.scroll_y < bottom - 10
        paged = view.scroll_y
        await pilot.press("shift+up")
        assert view.scroll_y < paged
        await pilot.press("shift+down")
        assert view.scroll_y == paged
        await pilot.press("ctrl+home")
        assert view.scroll_y == 0
        await pilot.press("pagedown")
        assert view.scroll_y > 0
        await pilot.press("ctrl+end")
        assert view.scroll_y == view.max_scroll_y
        assert prompt.has_focus and prompt.text == "typed"  # the prompt kept focus and text
