"""FrozenMarkdown renders what Textual's Markdown would: tables drawn, not left as pipes."""

from __future__ import annotations

from typing import Any

import pytest
from textual._styles_cache import StylesCache
from textual.filter import Monochrome, NoColor
from textual.geometry import Region

from tui.widgets.conversation.markdown_content import estimate_height, markdown_to_content

TABLE = (
    "| name | size | kind |\n|:--|--:|:-:|\n| a.py | 12 | **code** |\n| long_name.md | 3 | doc |\n"
)


def test_a_table_is_drawn_with_aligned_columns() -> None:
    lines = markdown_to_content(TABLE).plain.split("\n")
    assert lines == [
        "┌──────────────┬──────┬──────┐",
        "│ name         │ size │ kind │",
        "├──────────────┼──────┼──────┤",
        "│ a.py         │   12 │ code │",
        "│ long_name.md │    3 │ doc  │",
        "└──────────────┴──────┴──────┘",
    ]


def test_table_header_is_bold_and_inline_styles_survive() -> None:
    content = markdown_to_content(TABLE)
    plain = content.plain
    bold = {plain[s.start : s.end] for s in content.spans if "bold" in str(s.style)}
    assert {"name", "size", "kind", "code"} <= bold


def test_a_short_row_gets_empty_cells_and_a_table_in_a_list_is_indented() -> None:
    text = "- item\n\n  | a | b |\n  |---|---|\n  | 1 |\n"
    lines = markdown_to_content(text).plain.split("\n")
    assert lines[2:] == ["  ┌───┬───┐", "  │ a │ b │", "  ├───┼───┤", "  │ 1 │   │", "  └───┴───┘"]


def _linked(text: str) -> set[str]:
    content = markdown_to_content(text)
    plain = content.plain
    return {plain[s.start : s.end] for s in content.spans if "underline" in str(s.style)}


def test_a_bare_link_is_a_link_only_with_its_scheme_or_as_an_address() -> None:
    """A coding answer names files: ``main.py`` is no link (linkify's fuzzy links made it
    one); ``https://…`` and an e-mail address are, in a text with other marks or none."""
    assert _linked("Edit main.py and utils.rs, see example.com and www.example.com.") == set()
    text = "Edit main.py; docs at https://example.com/a and mail dev@example.com."
    assert _linked(text) == {"https://example.com/a", "dev@example.com"}
    assert _linked("[the docs](docs/index.md) and **bold**") == {"the docs"}


def test_the_height_estimate_counts_the_table_borders_but_not_a_rule() -> None:
    for text in (f"Intro.\n\n{TABLE}\nAfter.\n", "a\n\n---\n\nb"):
        assert estimate_height(text, 80) == markdown_to_content(text).get_height({}, 80)


# -- painting only the lines on screen --------------------------------------------------------
from textual.app import App, ComposeResult  # noqa: E402
from textual.containers import VerticalScroll  # noqa: E402
from textual.widget import Widget  # noqa: E402

from tui.widgets.conversation.frozen_markdown import FrozenMarkdown  # noqa: E402

PIECES = [
    "## Section\n\nThe function `step` reads the input, checks the **bounds** and returns the "
    + "result; it never raises for valid data. " * 6
    + "\n\n- parse\n- validate\n  - nested *item*\n\n```python\ndef step(x):\n"
    "    return x * 2\n```\n\n> quoted\n> lines\n\n1. one\n2. two\n\n---\n\n[a link](http://x)\n",
    TABLE + "\nAfter the table.\n",
    "",
    "single line",
    "\n\n\n",
]


def lines(widget: FrozenMarkdown, count: int) -> list[list[object]]:
    return [list(widget.render_line(y)) for y in range(count)]


def assert_drawn_as_textual_would(widget: FrozenMarkdown, count: int | None = None) -> None:
    """The widget's first ``count`` lines (all by default, and one below) as Textual draws
    ``render()`` whole: text, styles and the offsets mouse selection reads."""
    height = widget.size.height
    assert height == widget.render().get_height(widget.styles, widget.size.width)
    count = height + 1 if count is None else count
    ours = lines(widget, count)
    Widget._render_content(widget)  # Textual's own: every line of the content at once
    assert ours == [list(Widget.render_line(widget, y)) for y in range(count)], widget.source[:30]


class Pieces(App[None]):
    def __init__(self, pieces: list[str], *, lazy: bool = False) -> None:
        super().__init__()
        self.pieces = pieces
        self.lazy = lazy

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            for text in self.pieces:
                yield FrozenMarkdown(text, lazy=self.lazy)


async def test_lines_painted_one_paragraph_at_a_time_equal_the_whole_render() -> None:
    """Text, styles and the offsets mouse selection reads: as Textual renders the whole."""
    app = Pieces(PIECES)
    async with app.run_test(size=(57, 30)) as pilot:  # narrow: the prose wraps
        await pilot.pause()
        for piece in app.query(FrozenMarkdown):
            assert_drawn_as_textual_would(piece)
        assert sum(p.size.height for p in app.query(FrozenMarkdown)) > 30  # some did wrap


async def test_only_paragraphs_on_screen_become_strips_and_survive_a_new_height() -> None:
    text = "\n\n".join(f"Paragraph {i} of a long piece." for i in range(300))
    app = Pieces([text], lazy=True)
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        piece = app.query_one(FrozenMarkdown)
        assert piece.materialized  # on screen: rendered when painted
        assert piece.size.height == 599  # the estimate (lazy) was replaced by the real height
        rendered = dict(piece._pieces[0].strips)
        assert 0 < len(rendered) <= 20  # the top of 599 lines: what the screen shows
        app.query_one(VerticalScroll).scroll_end(animate=False)
        await pilot.pause()
        await pilot.pause()
        assert max(piece._pieces[0].strips) == 598  # the last line (a paragraph per source line)
        for index, strips in rendered.items():  # kept: not rendered again
            assert piece._pieces[0].strips[index] is strips
        assert len(piece._pieces[0].strips) <= 40


class Grown(App[None]):
    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield FrozenMarkdown(*PIECES[:2], lazy=True)


async def test_pieces_of_one_widget_show_as_blocks_and_are_selectable_once_all_rendered() -> None:
    app = Grown()
    async with app.run_test(size=(57, 10)) as pilot:  # the last pieces off screen
        await pilot.pause()
        widget = app.query_one(FrozenMarkdown)
        added = "## Added\n\nlater text"
        widget.add(added)
        await pilot.pause()
        await pilot.pause()
        assert widget.pieces == 3 and widget.source == PIECES[0] + PIECES[1] + added
        assert not widget.allow_select  # a lazy piece: line offsets are not known yet
        assert widget.materialize() and widget.allow_select
        await pilot.pause()
        assert_drawn_as_textual_would(widget)  # render(): the pieces, a blank line between
        assert not widget.materialize_next()  # nothing left to render


def _text_and_styles(line: list[Any]) -> list[tuple[str, str]]:
    return [(segment.text, str(segment.style)) for segment in line]  # str(): no meta


async def test_lines_drawn_before_selection_is_offered_carry_no_offsets_then_do() -> None:
    """Until every piece is rendered (selection not offered yet), a line is drawn with the
    text and styles Textual draws, without the selection offsets in its styles (40% of a
    line's drawing, in the final frame of an answer streamed at full speed); once every piece
    is rendered, exactly as Textual draws them, offsets and all."""
    app = Grown()
    async with app.run_test(size=(57, 10)) as pilot:  # the last piece off screen: lazy
        await pilot.pause()
        widget = app.query_one(FrozenMarkdown)
        assert not widget.materialized
        ours = lines(widget, 10)
        assert all(not segment.style.meta for segment in ours[0])  # type: ignore[union-attr]
        widget.materialize()
        await pilot.pause()
        Widget._render_content(widget)  # Textual's own: every line of the content at once
        textual = [list(Widget.render_line(widget, y)) for y in range(10)]
        assert [_text_and_styles(line) for line in ours] == [
            _text_and_styles(line) for line in textual
        ]
        assert any(s.style.meta.get("offset") for line in textual for s in line)  # type: ignore[attr-defined]
        assert_drawn_as_textual_would(widget)


async def all_rendered(app: Grown, pilot: Any) -> FrozenMarkdown:
    """The app's FrozenMarkdown, every piece rendered and painted."""
    await pilot.pause()
    widget = app.query_one(FrozenMarkdown)
    widget.materialize()
    await pilot.pause()
    return widget


async def test_a_narrower_terminal_wraps_the_pieces_again() -> None:
    app = Grown()
    async with app.run_test(size=(90, 30)) as pilot:
        widget = await all_rendered(app, pilot)
        wide = widget.size.height
        await pilot.resize_terminal(40, 30)
        await pilot.pause()
        await pilot.pause()
        assert widget.size.width < 40 and widget.size.height > wide  # the prose wraps more
        assert_drawn_as_textual_would(widget)


async def test_a_new_theme_repaints_the_lines_in_its_colours() -> None:
    app = Grown()
    async with app.run_test(size=(60, 30)) as pilot:
        widget = await all_rendered(app, pilot)
        before = lines(widget, 5)
        app.theme = "textual-light"
        await pilot.pause()
        await pilot.pause()
        assert lines(widget, 5) != before
        assert_drawn_as_textual_would(widget, 5)


def _cells(strips: list[Any]) -> list[list[tuple[str, str]]]:
    return [[(ch, str(seg.style)) for seg in strip for ch in seg.text] for strip in strips]


class Styled(App[None]):
    CSS = ".padded { padding: 0 2; } .boxed { padding: 1 2; } .faded { opacity: 70%; }"

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield FrozenMarkdown(*PIECES[:2], lazy=True)
            for name in ("padded", "boxed", "faded"):
                styled = FrozenMarkdown(PIECES[0])  # wrapped to the width inside the padding
                styled.add_class(name)
                yield styled


@pytest.mark.parametrize("no_color", [False, True])
async def test_its_lines_are_drawn_as_textual_draws_them(
    monkeypatch: pytest.MonkeyPatch, no_color: bool
) -> None:
    """Without a border, padding above or below, or opacity, the widget draws its lines itself
    (each padded to the width and at its sides with the background, the app's line filters
    applied): cell by cell what Textual's styles cache draws, a column crop too, NO_COLOR's
    filter too. Styled otherwise, Textual's."""
    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")
    app = Styled()
    async with app.run_test(size=(57, 40)) as pilot:
        await pilot.pause()
        bare, padded, boxed, faded = app.query(FrozenMarkdown)
        assert [w.drawn_plain() for w in (bare, padded, boxed, faded)] == [True, True, False, False]
        for widget in (bare, padded, boxed, faded):
            width, height = widget.outer_size
            crops = [Region(0, 0, width, height), Region(3, 0, width - 10, height)]
            if height > 2:
                crops.append(Region(3, 1, width - 10, height - 2))
            for crop in crops:
                ours = widget.render_lines(crop)
                assert len(ours) == crop.height > 0
                textual = StylesCache().render_widget(widget, crop)
                assert _cells(ours) == _cells(textual), widget.classes
        drawn = bare.render_lines(Region(0, 0, *bare.size))
        assert drawn[0].cell_length == bare.size.width  # padded to the width
        drawn = padded.render_lines(Region(0, 0, *padded.outer_size))
        assert drawn[0].cell_length == padded.outer_size.width
        assert drawn[0].text.startswith("  ") and drawn[0].text.endswith("  ")
        filters = bare.get_line_filters()
        assert any(isinstance(f, (NoColor, Monochrome)) for f in filters) == no_color
