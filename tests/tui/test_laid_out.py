"""A streaming answer that grows costs one layout pass of the screen, not two
(tui/widgets/laid_out.py), and the conversation stays at its end with the answer's height."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult

from tui.widgets.conversation.assistant_text import AssistantText
from tui.widgets.conversation.conversation import Conversation


class Harness(App[None]):
    def compose(self) -> ComposeResult:
        yield Conversation(lambda: 0.0, id="conversation")


def count_layouts(app: App[Any]) -> list[int]:
    """Counts the screen's layout passes from now on (``counted[0]``)."""
    screen = app.screen
    counted = [0]
    original = screen._refresh_layout

    def counting(*args: Any, **kwargs: Any) -> None:
        counted[0] += 1
        original(*args, **kwargs)

    screen._refresh_layout = counting  # type: ignore[method-assign]
    return counted


async def test_a_growing_answer_is_laid_out_once_per_change() -> None:
    app = Harness()
    async with app.run_test(size=(80, 24)) as pilot:
        conversation = app.query_one(Conversation)
        for i in range(30):  # a conversation longer than the screen: it scrolls
            conversation.add_line(f"earlier line {i}", "notice")
        answer = AssistantText()
        conversation.add_block(answer)
        answer.set_tail("first line")
        for _ in range(3):
            await pilot.pause()
        counted = count_layouts(app)
        for grown in range(2, 6):
            answer.set_tail("\n\n".join(f"line {n}" for n in range(grown)))
            for _ in range(3):  # a second pass, if asked for, would run meanwhile
                await pilot.pause()
            assert answer.size.height == 2 * grown - 1  # as tall as its text
            assert conversation.scroll_y == conversation.max_scroll_y  # the end in view
        assert counted[0] == 4  # one pass per change (8 before: each one asked for another)


def test_the_widgets_keep_their_textual_styles() -> None:
    """``LaidOut`` is their last base: Textual's CSS follows the first one only (first, it
    dropped the answer's ``height: auto`` and the scroll container's rules)."""
    assert "FrozenMarkdown" in AssistantText._css_type_names
    assert "VerticalScroll" in Conversation._css_type_names
