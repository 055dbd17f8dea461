"""A long answer streamed at full speed: sealed into lazily rendered pieces, all of it kept."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from agent import events as ev
from tests.fakes.scripted import ScriptedModel
from tests.helpers.tui import SIZE, make_app, settle, type_and_send, wait_ready
from tui.widgets.conversation.assistant_text import PIECE_CHARS, AssistantText, split_blocks
from tui.widgets.conversation.frozen_markdown import FrozenMarkdown
from tui.widgets.conversation.markdown_content import estimate_height, markdown_to_content


def long_answer(sections: int) -> str:
    return "".join(
        f"## Section {i}\n\nStep `{i}` checks the **bounds** and returns.\n\n"
        f"- parse {i}\n- emit {i}\n\n```python\ndef step_{i}(x):\n\n    return x * {i}\n```\n\n"
        for i in range(sections)
    )


def test_split_blocks_keeps_every_character_and_never_cuts_a_fence() -> None:
    text = long_answer(200)
    pieces = split_blocks(text, 1000)
    assert "".join(pieces) == text
    assert len(pieces) > 10
    for piece in pieces:
        assert piece.count("```") % 2 == 0  # the blank line inside each fence was not a cut
        assert len(piece) < 2000
    assert split_blocks("no blank line at all", 5) == ["no blank line at all"]
    assert split_blocks("", 5) == []


def test_estimate_height_wraps_lines_drops_fences_and_merges_blank_runs() -> None:
    assert estimate_height("a" * 25, 10) == 3
    assert estimate_height("one\n\n\n\ntwo", 80) == 3
    assert estimate_height("```python\nx = 1\n```", 80) == 1
    text = "## Title\n\nA short paragraph.\n\n- a\n- b\n"
    assert estimate_height(text, 80) == markdown_to_content(text).get_height({}, 80)


class Tall(App[None]):
    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static("\n".join(f"line {i}" for i in range(200)))
            yield FrozenMarkdown("# Far below\n\nnot painted yet", lazy=True)


async def test_a_lazy_piece_renders_only_once_it_is_painted() -> None:
    app = Tall()
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        piece = app.query_one(FrozenMarkdown)
        assert not piece.materialized  # off screen: no markdown rendered
        assert piece.virtual_region.height == 3  # laid out at its estimated height
        app.query_one(VerticalScroll).scroll_end(animate=False)
        await pilot.pause()
        await pilot.pause()
        assert piece.materialized
        assert "Far below" in str(piece.render())


async def test_a_long_fast_answer_is_sealed_into_pieces_and_all_rendered(workspace: Path) -> None:
    text = long_answer(400)  # ~50,000 characters, 12,000 tokens
    app, events = make_app(workspace, ScriptedModel([text], chunk=64))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "write")
        # no deadline: streaming 50,000 characters takes as long as the machine needs
        await events.wait_for(ev.TurnFinished, timeout=None)
        await settle(app, pilot)
        (answer,) = app.query(AssistantText)
        while not answer.settled:  # the off-screen pieces are rendered after the final frame
            await pilot.pause()
        assert not answer.children  # one widget, however long the answer
        assert answer.pieces >= len(text) // (2 * PIECE_CHARS)
        assert answer.text == answer.source == text  # every character in exactly one piece
        assert answer.materialized  # settled: heights are exact
        await pilot.pause()
        # the conversation followed the stream: the end of the answer is on screen
        conversation = app.main.conversation
        assert conversation.scroll_y == conversation.max_scroll_y > 0
        assert answer.region.bottom == conversation.region.bottom


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds


async def test_a_write_waits_for_a_key_to_echo_but_not_for_ever(monkeypatch) -> None:
    from tui.widgets.conversation import assistant_text as at
    from tui.widgets.prompt.prompt_input import PromptInput

    clock = FakeClock()
    text = AssistantText()
    monkeypatch.setattr(PromptInput, "last_key_at", 0.0)
    assert await text._let_keys_echo(clock, clock.sleep) == 0  # no key: no wait
    monkeypatch.setattr(PromptInput, "last_key_at", clock.now - 0.01)
    held = await text._let_keys_echo(clock, clock.sleep)
    assert held == pytest.approx(at.KEY_QUIET - 0.01)  # until the key is KEY_QUIET old

    class Typing(FakeClock):  # a key every 10 ms, without a pause
        async def sleep(self, seconds: float) -> None:
            self.now += seconds
            PromptInput.last_key_at = self.now - 0.01

    typing = Typing()
    PromptInput.last_key_at = typing.now
    held = await text._let_keys_echo(typing, typing.sleep)
    assert at.KEY_HOLD <= held < at.KEY_HOLD + at.KEY_QUIET  # the answer still moves on
    text.finish()
    PromptInput.last_key_at = clock.now
    assert await text._let_keys_echo(clock, clock.sleep) == 0  # the end is never held


def test_the_end_of_a_seal_is_cut_small_the_rest_in_big_pieces() -> None:
    from tui.widgets.conversation import assistant_text as at

    text = long_answer(200)
    pieces = at.split_for_view(text)
    assert "".join(pieces) == text
    start = 0
    for piece in pieces:
        if start >= len(text) - at.VIEW_CHARS:  # on screen at the end: small
            assert len(piece) < 2 * at.VIEW_PIECE_CHARS
        elif start + len(piece) < len(text) - at.VIEW_CHARS:  # above it: big
            assert len(piece) >= at.PIECE_CHARS
        start += len(piece)
    assert sum(len(p) < at.PIECE_CHARS for p in pieces) >= 2
    assert at.split_for_view("short") == ["short"]
    assert at.split_for_view("") == []


class Following(App[None]):
    """An answer at the bottom of a scrolling conversation that follows it."""

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield AssistantText()

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).anchor()


async def test_a_flood_renders_with_its_last_write_what_ends_on_screen() -> None:
    """So the frame that shows its end needs one layout: the paint would render those
    pieces, after a layout with their estimated heights, then lay the screen out again."""
    from tui.widgets.conversation import assistant_text as at

    app = Following()
    async with app.run_test(size=(80, 24)) as pilot:
        answer = app.query_one(AssistantText)
        await pilot.pause()
        written: list[tuple[bool, ...]] = []
        write = answer._write

        def writing(fragment: str) -> None:  # what the write rendered, before any paint
            write(fragment)
            written.append(answer.rendered)

        answer._write = writing  # type: ignore[method-assign]
        text = long_answer(300)
        answer.append(text)  # the whole answer before the first write: a flood
        answer.finish()
        while not answer.finished:
            await pilot.pause()
        # the pieces that end on screen were rendered with the write, the rest wait
        rendered = written[-1]
        count = sum(rendered)
        assert rendered[-count:] == (True,) * count and not rendered[0]
        shown = [estimate_height(p, answer.size.width) for p in at.split_for_view(text)[-count:]]
        assert sum(shown) >= app.size.height > sum(shown[1:])  # a screenful, no more


async def test_settling_waits_for_the_layout_the_last_change_asked_for() -> None:
    """Settling renders a piece every few ms and changes heights: begun before the final
    frame (the layout a stream's last write asks for reaches the screen as a message, and
    the turn's end repaints the status line first), it held that frame back."""
    app = Following()
    async with app.run_test(size=(80, 24)) as pilot:
        answer = app.query_one(AssistantText)
        answer.append("A first line.")
        answer.finish()
        while not answer.settled:
            await pilot.pause()
        answer.add(*[f"Paragraph {i}.\n" for i in range(60)])  # lazy: estimated heights
        assert not answer.laid_out  # its layout is asked for, not done
        started: list[bool] = []
        render_next = answer.materialize_next

        def settling() -> bool:
            if not started:
                started.append(answer.laid_out)
            return render_next()

        answer.materialize_next = settling  # type: ignore[method-assign]
        answer.settled = False
        answer._start_settling()  # as the end of a stream calls it after a refresh
        while not answer.settled:
            await pilot.pause()
        assert started == [True]
