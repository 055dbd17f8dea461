"""A streaming answer is one widget that repaints only what changed (issue 32).

Textual's Markdown mounted a widget per block, and each write of the answer cost a mount,
CSS and a layout pass of the whole screen: the key typed meanwhile waited behind them. Now a
write re-renders only the block being written, and when the answer keeps its height (text
filling the line it was on) only that line is repainted, with no layout pass.
"""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll

from tui.widgets.conversation.assistant_text import AssistantText


class WatchedAnswer(AssistantText):
    """An answer that notes each refresh it asks for: (layout, regions)."""

    def __init__(self) -> None:
        super().__init__()
        self.refreshes: list[tuple[bool, tuple[Any, ...]]] = []

    def refresh(self, *regions: Any, repaint: bool = True, layout: bool = False, **kw: Any) -> Any:
        self.refreshes.append((layout, regions))
        return super().refresh(*regions, repaint=repaint, layout=layout, **kw)


class AnswerApp(App[None]):
    def compose(self) -> ComposeResult:
        yield VerticalScroll()


async def shown(answer: AssistantText, pilot: Any, text: str) -> None:
    """Wait until the answer shows ``text`` (the pump writes on its own schedule)."""
    while text not in answer.source:
        await pilot.pause()
    await pilot.pause()


async def test_text_that_fills_its_line_repaints_that_line_without_a_layout_pass() -> None:
    app = AnswerApp()
    async with app.run_test(size=(80, 20)) as pilot:
        answer = WatchedAnswer()
        await app.query_one(VerticalScroll).mount(answer)
        answer.append("The first paragraph is done.\n\nThe second one starts")
        await shown(answer, pilot, "starts")
        height = answer.size.height
        answer.refreshes.clear()

        answer.append(" and goes on")  # still one line
        await shown(answer, pilot, "goes on")
        assert answer.size.height == height
        assert answer.refreshes and not any(layout for layout, _ in answer.refreshes)
        (regions,) = {regions for _, regions in answer.refreshes}
        assert [(r.y, r.height) for r in regions] == [(height - 1, 1)]  # its last line only

        answer.refreshes.clear()
        answer.append("\n\nA third paragraph.")  # two more lines: a layout pass
        await shown(answer, pilot, "third")
        assert any(layout for layout, _ in answer.refreshes)
        assert answer.size.height == height + 2


async def test_an_answer_mounts_nothing_however_it_streams() -> None:
    app = AnswerApp()
    async with app.run_test(size=(80, 20)) as pilot:
        answer = AssistantText()
        await app.query_one(VerticalScroll).mount(answer)
        before = len(list(app.query("*")))
        for i in range(30):
            answer.append(f"## Part {i}\n\n- item\n- item\n\n```python\nx = {i}\n```\n\n")
            await pilot.pause()
        answer.finish()
        while not answer.finished:
            await pilot.pause()
        assert len(list(app.query("*"))) == before and not answer.children
        assert answer.source == answer.text and answer.pieces > 1


async def test_a_flood_of_text_waits_for_the_next_write_or_the_end_instead_of_a_frame_each(
    monkeypatch: Any,
) -> None:
    """Text arriving faster than anyone reads (more than FAST_CHARS waiting) is gathered
    until FAST_INTERVAL after the last write: each write of a flood renders a screenful of
    new markdown that the stream would otherwise wait behind. The stream's end shows it all
    at once."""
    from tui.widgets.conversation import assistant_text

    monkeypatch.setattr(assistant_text, "WRITE_INTERVAL", 0)
    monkeypatch.setattr(assistant_text, "FAST_INTERVAL", 3600.0)  # only the end comes first
    flood = "".join(f"Paragraph {n} of the flood.\n\n" for n in range(200))
    assert len(flood) > assistant_text.FAST_CHARS
    app = AnswerApp()
    async with app.run_test(size=(80, 20)) as pilot:
        answer = AssistantText()
        await app.query_one(VerticalScroll).mount(answer)
        answer.append("The answer starts.\n\n")
        await shown(answer, pilot, "starts")  # the first words show at once
        answer.append(flood)
        for _ in range(5):
            await pilot.pause()
        assert "Paragraph 0 " not in answer.source  # gathered, not written
        answer.append("A little more.\n\n")
        answer.finish()
        await shown(answer, pilot, "A little more.")  # the end: everything, in one write
        assert answer.finished and flood in answer.source


async def test_an_answer_that_floods_from_its_first_words_is_written_once(
    monkeypatch: Any,
) -> None:
    """The first words wait a write interval too, so a full-speed answer is a flood from its
    start: one write at its end, not one for its first words (whose layout the stream
    would wait behind) and one for the rest."""
    from tui.widgets.conversation import assistant_text

    monkeypatch.setattr(assistant_text, "WRITE_INTERVAL", 3600.0)  # only the end cuts it short
    monkeypatch.setattr(assistant_text, "FAST_INTERVAL", 3600.0)
    writes: list[str] = []
    write = AssistantText._write

    def counted(self: AssistantText, fragment: str) -> None:
        writes.append(fragment)
        write(self, fragment)

    monkeypatch.setattr(AssistantText, "_write", counted)
    app = AnswerApp()
    async with app.run_test(size=(80, 20)) as pilot:
        answer = AssistantText()
        await app.query_one(VerticalScroll).mount(answer)
        answer.append("The answer starts.\n\n")
        for _ in range(5):
            await pilot.pause()
        assert writes == []  # the first words wait their interval
        answer.append("".join(f"Paragraph {n} of the flood.\n\n" for n in range(200)))
        answer.finish()
        await shown(answer, pilot, "Paragraph 199 of the flood.")
        assert len(writes) == 1 and writes[0].startswith("The answer starts.")
