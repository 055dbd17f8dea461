"""Markdown as ONE widget: a Content rendered from markdown-it tokens, piece by piece.

Textual's Markdown widget makes a widget per block (a list item, a code fence, a line of a
table...), and every layout pass visits them all. Here the finished blocks of an answer are
pieces of a single widget, rendered once, and the block being written is its tail, rendered
again at each write (AssistantText streams into it); the DOM stays small in long sessions.
A change that keeps the widget's height repaints the lines from the changed piece down, with
no layout pass (text filling the line it is on, as a streaming answer's mostly does).

Only the lines on screen are turned into strips: the Content is kept as its source lines
(paragraphs), each wrapped for the layout's height and rendered to strips only when one of
its lines is painted, and kept when the widget's height changes (an estimated height
replaced by the real one would otherwise render the whole piece again).

Until every piece is rendered, mouse selection is not offered, and a line that fits is drawn
without the selection offsets Textual puts in the style of every segment (``quick_strip``:
the same text and styles; the offsets cost 40% of a line's drawing, and the last screenful
of an answer streamed at full speed is drawn in its final frame, after the stream).
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Any

from rich.segment import Segment
from rich.style import Style
from textual.content import Content
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.visual import Visual

from tui.widgets.conversation.hanging import hang_of, hanging_lines
from tui.widgets.conversation.markdown_content import estimate_height, markdown_to_content
from tui.widgets.plain_lines import PlainLines


def _on_line(strip: Strip, y: int) -> Strip:
    """``strip`` (a paragraph rendered alone, so as line 0) with line ``y`` in the offsets
    its styles carry, as when the whole content is rendered: mouse selection reads them."""
    segments = []
    for segment in strip:
        style = segment.style
        offset = style.meta.get("offset") if style is not None else None
        if style is not None and offset is not None:
            style = style + Style.from_meta({"offset": (offset[0], y)})
            segment = Segment(segment.text, style, segment.control)
        segments.append(segment)
    return Strip(segments, strip.cell_length)


def _height(paragraph: Content, width: int, rules: Any) -> int:
    """The screen lines of a paragraph too long for ``width``: with its hanging indent."""
    if hang_of(paragraph.plain, width):
        return len(hanging_lines(paragraph, width))
    return paragraph.get_height(rules, width)


def _shifted(strip: Strip, dx: int) -> Strip:
    """``strip`` with ``dx`` added to the x of its selection offsets: a wrapped line drawn
    under a hanging indent starts ``dx`` characters into its paragraph."""
    if not dx:
        return strip
    segments = []
    for segment in strip:
        style = segment.style
        offset = style.meta.get("offset") if style is not None else None
        if style is not None and offset is not None:
            style = style + Style.from_meta({"offset": (offset[0] + dx, offset[1])})
            segment = Segment(segment.text, style, segment.control)
        segments.append(segment)
    return Strip(segments, strip.cell_length)


class _Piece:
    """Part of a FrozenMarkdown: its markdown, rendered when first painted, kept as its
    lines (paragraphs) and the strips of those painted so far."""

    __slots__ = (
        "content",
        "estimate",
        "paragraphs",
        "placed",
        "quick",
        "starts",
        "strips",
        "text",
    )

    def __init__(self, text: str) -> None:
        self.text = text
        self.content: Content | None = None
        self.paragraphs: list[Content] = []
        self.estimate = (-1, 0)
        self.starts: tuple[int, list[int]] = (-1, [])
        """At a width: the first line of each paragraph, then the height."""
        self.strips: dict[int, list[Strip]] = {}
        self.placed: dict[int, list[Strip]] = {}
        """Strips whose selection offsets name the line in the whole widget."""
        self.quick: dict[int, list[Strip]] = {}
        """Strips drawn while the widget is not selectable (no selection offsets)."""

    def render(self) -> bool:
        """Render the markdown; True if it was not rendered before."""
        if self.content is not None:
            return False
        self.content = markdown_to_content(self.text)
        self.paragraphs = self.content.split("\n", allow_blank=True)
        return True

    def height(self, width: int, rules: Any) -> int:
        if self.content is None:
            if self.estimate[0] != width:  # layout asks on every pass
                self.estimate = (width, estimate_height(self.text, width))
            return self.estimate[1]
        return self.lines(width, rules)[-1]

    def lines(self, width: int, rules: Any) -> list[int]:
        if self.starts[0] != width:
            starts, line = [], 0
            for paragraph in self.paragraphs:
                starts.append(line)  # most lines fit: no need to wrap them
                fits = paragraph.cell_length <= width
                line += 1 if fits else _height(paragraph, width, rules)
            starts.append(line)
            self.starts = (width, starts)
        return self.starts[1]


class FrozenMarkdown(PlainLines):
    """Markdown that will not change, as a single widget: one or more pieces, shown one
    below the other with a blank line between them (as separate blocks would be), and a
    last piece that may (``set_tail``: a streaming answer's block being written).

    ``lazy``: a piece's markdown is rendered when one of its lines is first painted
    (Textual paints only what is on screen) or by ``materialize()`` / ``materialize_next()``;
    until then layout uses ``estimate_height``. A long answer streamed at full speed mostly
    scrolls past unseen, so most of it is never rendered while the stream runs, and it grows
    by ``add()`` without mounting a widget per piece. Mouse selection is offered once every
    piece is rendered (the offsets it reads count the lines of all the pieces above).
    """

    DEFAULT_CSS = "FrozenMarkdown { height: auto; }"
    auto_links = False
    """No action links: a markdown link is drawn as styled text (markdown_content.py), so
    Textual's link styling of every strip drawn (it works the style out from the CSS each
    time: a fifth of a line's drawing) has nothing to do."""

    def __init__(self, *texts: str, lazy: bool = False, classes: str = "") -> None:
        # classes given here, not added after: adding one applies the stylesheet at once
        super().__init__(classes=f"frozen-markdown {classes}".strip())
        self._pieces = [_Piece(text) for text in texts]
        self._offsets: tuple[int, list[int]] = (-1, [])
        """At a width: the first line of each piece, then the height (as last laid out)."""
        self._key: tuple[int, Any] | None = None
        self._bases: list[int] | None = None
        self._tail: _Piece | None = None
        """The last piece while it may still change (``set_tail``), else None."""
        if not lazy:
            for piece in self._pieces:
                piece.render()

    @property
    def source(self) -> str:
        """The markdown shown: every piece's, in order."""
        return "".join(piece.text for piece in self._pieces)

    @property
    def pieces(self) -> int:
        """How many pieces it holds."""
        return len(self._pieces)

    @property
    def rendered(self) -> tuple[bool, ...]:
        """Whether each piece's markdown has been rendered, top to bottom."""
        return tuple(piece.content is not None for piece in self._pieces)

    @property
    def materialized(self) -> bool:
        """Whether every piece's markdown has been rendered (the height is exact)."""
        return all(piece.content is not None for piece in self._pieces)

    @property
    def allow_select(self) -> bool:
        return self.materialized and super().allow_select

    def add(self, *texts: str, render_last: int = 0) -> None:
        """More pieces below (above the tail, if there is one), lazy but for the last
        ``render_last`` of them, rendered now (text that was on screen a moment ago: a
        layout pass with their estimated heights would be followed by another)."""
        added = [_Piece(text) for text in texts]
        for piece in added[len(added) - render_last :] if render_last else ():
            piece.render()
        at = len(self._pieces) - (self._tail is not None)
        self._pieces[at:at] = added
        self._changed(at)

    def set_tail(self, text: str) -> None:
        """Show ``text`` as the last piece, in place of the tail set before: the block of a
        streaming answer being written, rendered now (it is small, and on screen: one
        layout pass then sees its real height). An empty ``text`` removes the tail."""
        if self._tail is not None:
            if self._tail.text == text:
                return
            self._pieces.pop()
        at = len(self._pieces)
        self._tail = _Piece(text) if text else None
        if self._tail is not None:
            self._tail.render()
            self._pieces.append(self._tail)
        self._changed(at)

    def materialize(self) -> bool:
        """Render every piece now; True if one was not rendered before."""
        rendered = [piece.render() for piece in self._pieces]
        if any(rendered):
            self._changed()
        return any(rendered)

    def materialize_next(self) -> bool:
        """Render the lowest piece not rendered yet; False when there is none."""
        for index in range(len(self._pieces) - 1, -1, -1):
            if self._pieces[index].render():
                self._changed(index)
                return True
        return False

    def _changed(self, first: int = 0) -> None:
        """Repaint from piece ``first`` down, after a change there. Only a new height needs
        a layout pass (of the whole screen, and the conversation scrolls): text that fills
        the lines it had, as a streaming answer's tail mostly does, repaints only them."""
        self._offsets = (-1, [])
        self._bases = None
        width, height = self.size
        if width and self.is_attached:
            offsets = self._layout(width)
            if offsets[-1] == height:  # the blank line above piece ``first`` stays
                top = offsets[first] + (first > 0) if first < len(self._pieces) else height
                if top < height:
                    self.refresh(Region(0, top, width, height - top))
                return
        self.clear_cached_dimensions()
        self.refresh(layout=True)

    @property
    def laid_out(self) -> bool:
        """Whether the screen's layout gives this widget the height of what it holds now."""
        width = self.size.width
        return width > 0 and self.size.height == self._layout(width)[-1]

    def render(self) -> Content:
        """All of it as one Content (for selection and copying): renders every piece."""
        self.materialize()
        return Content("\n\n").join(p.content for p in self._pieces if p.content is not None)

    def _layout(self, width: int) -> list[int]:
        offsets, line = [], 0
        for n, piece in enumerate(self._pieces):
            offsets.append(line)  # where the piece starts: with the blank line above it
            line += piece.height(width, self.styles) + (1 if n else 0)
        offsets.append(line)
        self._offsets = (width, offsets)
        return offsets

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self._layout(width)[-1] if width else 0

    def render_lines(self, crop: Region) -> list[Strip]:
        """The lines in ``crop``: drawn here when nothing but the background surrounds them
        (an answer's: ``draw_plain``; the pieces keep their strips, so the styles cache's line
        cache has nothing to keep), else Textual's way."""
        if self.drawn_plain():
            return self.draw_plain(crop, self.render_line)
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        if self.text_selection is not None:  # drawn with the selection: Textual's way
            return super().render_line(y)
        width, style = self.size.width, self.visual_style
        if width <= 0:
            return Strip.blank(0)
        if self._key != (width, style):
            self._key = (width, style)
            for piece in self._pieces:
                piece.strips.clear()
                piece.placed.clear()
                piece.quick.clear()
        offsets = self._offsets[1] if self._offsets[0] == width else self._layout(width)
        index = bisect_right(offsets, y) - 1  # as laid out: a piece rendered now moves
        if not 0 <= index < len(self._pieces):  # the ones below at the next layout
            return Strip.blank(width, style.rich_style)
        piece = self._pieces[index]
        if piece.render():
            self.clear_cached_dimensions()
            self.refresh(layout=True)
            self._bases = None
        local = y - offsets[index] - (1 if index else 0)
        if local < 0:  # the blank line above a piece: an empty line of the whole Content
            return self._strips(index, -1, width, style)[0]
        starts = piece.lines(width, self.styles)
        line = bisect_right(starts, local) - 1
        if line >= len(piece.paragraphs):
            return Strip.blank(width, style.rich_style)
        strips = self._strips(index, line, width, style)
        offset = local - starts[line]
        return strips[offset] if offset < len(strips) else Strip.blank(width, style.rich_style)

    def _strips(self, index: int, line: int, width: int, style: Any) -> list[Strip]:
        """The strips of a piece's line (-1: the blank line above it); with the selection
        offsets of the whole once every piece is rendered (before that, selection is not
        offered, and a line that fits is drawn without any: ``quick_strip``)."""
        piece = self._pieces[index]
        strips = piece.placed.get(line)
        if strips is not None:
            return strips
        if not self.materialized:
            strips = piece.quick.get(line)
            if strips is None:
                strips = piece.quick[line] = self._draw(piece, line, width, style, quick=True)
            return strips
        piece.quick.clear()  # selectable now: those are drawn no more
        strips = piece.strips.get(line)
        if strips is None:
            strips = piece.strips[line] = self._draw(piece, line, width, style, quick=False)
        if self._bases is None:  # the first line of each piece in render()'s Content
            self._bases, base = [], 0
            for other in self._pieces:
                self._bases.append(base)
                base += len(other.paragraphs) + 1
        y = self._bases[index] + line
        placed = [_on_line(strip, y) for strip in strips] if y else strips
        piece.placed[line] = placed
        return placed

    def _draw(
        self, piece: _Piece, line: int, width: int, style: Any, *, quick: bool
    ) -> list[Strip]:
        """A piece's line (-1: the blank line above it) drawn at ``width``: wrapped, under
        its hanging indent if it has one; ``quick``: without selection offsets where it can."""
        paragraph = piece.paragraphs[line] if line >= 0 else Content("")
        if paragraph.cell_length > width and hang_of(paragraph.plain, width):
            return [
                _shifted(strip, dx)
                for part, dx in hanging_lines(paragraph, width)
                for strip in self._to_strips(part, width, style, quick=quick)
            ]
        return self._to_strips(paragraph, width, style, quick=quick)

    def _to_strips(self, paragraph: Content, width: int, style: Any, *, quick: bool) -> list[Strip]:
        strip = self.quick_strip(paragraph, width, style) if quick else None
        if strip is not None:
            return [strip]
        return Visual.to_strips(self, paragraph, width, None, style)
