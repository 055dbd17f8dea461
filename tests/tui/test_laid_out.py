"""A streaming answer that grows, and a prompt sent, cost one layout pass of the screen, not
two (tui/widgets/laid_out.py), and the conversation stays at its end."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult

from tui.widgets.conversation.assistant_text import AssistantText
from tui.widgets.conversation.conversation import Conversation
from tui.widgets.conversation.user_prompt import UserPrompt
from tui.widgets.prompt.status_line import StatusLine


class Harness(App[None]):
    def compose(self) -> ComposeResult:
        yield Conversation(lambda: 0.0, id="conversation")


def count_layouts(app: App[Any]) -> list[int]:
    """Counts the screen's layout passes from now on (``counted[0]``), and those that
    arranged the whole screen, not only moved what scrolled (``counted[1]``)."""
    screen = app.screen
    counted = [0, 0]
    original = screen._refresh_layout

    def counting(size: Any = None, scroll: bool = False) -> None:
        counted[0] += 1
        counted[1] += not scroll
        original(size, scroll)

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
    assert "Static" in UserPrompt._css_type_names
    assert "Static" in StatusLine._css_type_names


class Bottom(App[None]):
    """A conversation above a status line, as on the main screen."""

    def compose(self) -> ComposeResult:
        yield Conversation(lambda: 0.0, id="conversation")
        yield StatusLine(lambda: 0.0, frozen=True, id="status")


def watch_layouts(app: App[Any], conversation: Conversation) -> list[tuple[float, int]]:
    """After each layout pass of the screen from now on: the conversation's scroll offset and
    the end it can scroll to."""
    screen = app.screen
    seen: list[tuple[float, int]] = []
    original = screen._refresh_layout

    def watching(*args: Any, **kwargs: Any) -> None:
        original(*args, **kwargs)
        seen.append((conversation.scroll_y, conversation.max_scroll_y))

    screen._refresh_layout = watching  # type: ignore[method-assign]
    return seen


async def settle(pilot: Any) -> None:
    for _ in range(4):  # a second pass, if asked for, would run meanwhile
        await pilot.pause()


async def test_a_turn_start_costs_one_pass_each() -> None:
    """A turn starts: its prompt's block is mounted, and the status line grows a line (the
    conversation a line shorter). Each costs one pass (before, each of the three widgets
    asked for a second one to settle: a second frame after Enter)."""
    app = Bottom()
    async with app.run_test(size=(80, 24)) as pilot:
        conversation = app.query_one(Conversation)
        status = app.query_one(StatusLine)
        conversation.add_line("a short conversation", "notice")
        await settle(pilot)
        counted = count_layouts(app)
        conversation.add_user("fix the failing test")
        await settle(pilot)
        assert counted == [1, 1]
        prompt = conversation.query_one(UserPrompt)
        assert prompt.size.height == 1
        status.start_work()  # a second line: the spinner, what the turn does
        await settle(pilot)
        assert status.size.height == 2
        # and no pass that only scrolls: shorter than its area, the anchored conversation
        # gets a negative offset from Textual's compositor (its blocks at the bottom), which
        # Textual clamped to 0 after the pass; the next pass, which only scrolled, set it back
        assert counted == [2, 2]
        assert conversation.scroll_y < 0 == conversation.max_scroll_y
        assert prompt.region.bottom == conversation.content_region.bottom


async def test_a_prompt_sent_shows_at_the_end_from_the_first_pass() -> None:
    """In a conversation longer than the screen, anchored to its end: no pass leaves it a line
    short of the end as the status line grows (Textual anchored it with the height from
    before the pass; a second pass and frame brought the new prompt into view)."""
    app = Bottom()
    async with app.run_test(size=(80, 24)) as pilot:
        conversation = app.query_one(Conversation)
        for i in range(30):  # longer than the screen: it scrolls
            conversation.add_line(f"earlier line {i}", "notice")
        await settle(pilot)
        seen = watch_layouts(app, conversation)
        conversation.add_user("fix the failing test")
        app.query_one(StatusLine).start_work()
        await settle(pilot)
        assert seen
        assert all(scroll == end for scroll, end in seen)  # at the end after every pass
        prompt = conversation.query_one(UserPrompt)
        assert prompt.region.bottom <= conversation.content_region.bottom  # in view


async def test_a_conversation_scrolled_up_keeps_its_place() -> None:
    """Scrolled up, the conversation is not anchored: the status line's new line leaves it
    where the user put it."""
    app = Bottom()
    async with app.run_test(size=(80, 24)) as pilot:
        conversation = app.query_one(Conversation)
        for i in range(30):
            conversation.add_line(f"earlier line {i}", "notice")
        await settle(pilot)
        conversation.scroll_to(y=5, animate=False)
        await pilot.pause()
        conversation.add_user("and the next one")
        app.query_one(StatusLine).start_work()
        await settle(pilot)
        assert conversation.scroll_y == 5
        assert conversation.scroll_y < conversation.max_scroll_y
