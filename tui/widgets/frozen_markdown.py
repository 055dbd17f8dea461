"""Finished markdown as ONE widget: a Content rendered from markdown-it tokens.

Textual's Markdown widget makes a widget per block (a list item, a code fence, a line of a
table...), and every layout pass visits them all. The parts of an answer that can no longer
change (sealed while a long answer streams, or answers a few turns old) are rendered here into
a single Content with the same theme variables, so the DOM stays small in long sessions.

Only the lines on screen are turned into strips: the Content is kept as its source lines
(paragraphs), each wrapped for the layout's height and rendered to strips only when one of
its lines is painted, and kept when the widget's height changes (an estimated height
replaced by the real one would otherwise render the whole piece again).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import Any

from markdown_it import MarkdownIt
from rich.segment import Segment
from rich.style import Style
from textual.content import Content
from textual.geometry import Size
from textual.highlight import highlight
from textual.strip import Strip
from textual.visual import Visual
from textual.widget import Widget

_INLINE_STYLE = {
    "strong_open": "bold",
    "em_open": "italic",
    "s_open": "strike",
    "link_open": "underline $text-accent",
}
_HEADING_STYLE = {"h1": "bold underline $text-primary", "h2": "bold $text-primary"}


def _inline(token: Any) -> Content:
    parts: list[Content] = []
    stack: list[str] = []
    for child in token.children or []:
        kind = child.type
        if kind in _INLINE_STYLE:
            stack.append(_INLINE_STYLE[kind])
        elif kind.endswith("_close") and kind.replace("_close", "_open") in _INLINE_STYLE:
            if stack:
                stack.pop()
        elif kind == "code_inline":
            parts.append(Content.styled(child.content, "$text-warning on $warning 10%"))
        elif kind in ("softbreak",):
            parts.append(Content(" "))
        elif kind == "hardbreak":
            parts.append(Content("\n"))
        elif kind == "image":
            parts.append(Content.styled(f"[image: {child.content}]", "$text-muted"))
        elif child.content:
            parts.append(Content.styled(child.content, " ".join(stack)))
    return Content("").join(parts)


_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")
"""A table's separator row (``|---|:-:|``)."""
_ALIGN = {"text-align:right": "right", "text-align:center": "center"}


def _table(tokens: list[Any], i: int) -> tuple[Content, int]:
    """The GFM table whose ``table_open`` is ``tokens[i]``, drawn with box lines (header
    bold, columns aligned as the separator row says); returns it and its ``table_close``."""
    rows: list[list[tuple[Content, str]]] = []
    header = 0
    while i < len(tokens) and tokens[i].type != "table_close":
        token = tokens[i]
        if token.type == "tr_open":
            rows.append([])
        elif token.type == "thead_close":
            header = len(rows)
        elif token.type in ("th_open", "td_open") and rows:
            cell = _inline(tokens[i + 1])
            if token.type == "th_open":
                cell = cell.stylize_before("bold")
            rows[-1].append((cell, _ALIGN.get(str(token.attrs.get("style", "")), "left")))
        i += 1
    columns = max((len(row) for row in rows), default=0)
    widths = [1] * columns
    for row in rows:
        for c, (cell, _) in enumerate(row):
            widths[c] = max(widths[c], cell.cell_length)

    def rule(left: str, middle: str, right: str) -> Content:
        return Content.styled(
            left + middle.join("─" * (w + 2) for w in widths) + right, "$text-muted"
        )

    bar = Content.styled("│", "$text-muted")
    lines = [rule("┌", "┬", "┐")]
    for n, row in enumerate(rows):
        if n and n == header:
            lines.append(rule("├", "┼", "┤"))
        cells = []
        for c, width in enumerate(widths):
            cell, align = row[c] if c < len(row) else (Content(""), "left")
            room = width - cell.cell_length
            left = room if align == "right" else room // 2 if align == "center" else 0
            cell = cell.pad(left, room - left)
            cells.append(Content(" ") + cell + Content(" "))
        lines.append(bar + bar.join(cells) + bar)
    lines.append(rule("└", "┴", "┘"))
    return Content("\n").join(lines), i


def markdown_to_content(text: str) -> Content:
    """Render markdown (GFM-like) to a single Content."""
    tokens = MarkdownIt("gfm-like").parse(text)
    blocks: list[tuple[Content, bool]] = []  # (block, inside a list: tight spacing)
    lists: list[list[Any]] = []  # per open list: [ordered, next number]
    prefix = Content("")
    quote = 0
    lines = text.splitlines()
    i = 0
    while i < len(tokens):
        token = tokens[i]
        kind = token.type
        indent = "  " * max(0, len(lists) - 1)
        bar = Content.styled("▌ " * quote, "$text-muted")
        if kind in ("bullet_list_open", "ordered_list_open"):
            lists.append([kind == "ordered_list_open", int(token.attrs.get("start", 1) or 1)])
        elif kind in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
        elif kind == "list_item_open" and lists:
            ordered, number = lists[-1]
            mark = f"{number}. " if ordered else "• "
            lists[-1][1] += 1
            prefix = Content(indent) + Content.styled(mark, "bold $text-primary")
        elif kind == "blockquote_open":
            quote += 1
        elif kind == "blockquote_close":
            quote -= 1
        elif kind == "heading_open":
            body = _inline(tokens[i + 1]).stylize_before(_HEADING_STYLE.get(token.tag, "bold"))
            blocks.append((body, False))
            i += 2
        elif kind == "paragraph_open":
            body = _inline(tokens[i + 1])
            if quote:
                body = body.stylize_before("italic")
            if prefix.plain:
                body, prefix = prefix + body, Content("")
            elif lists:
                body = Content(indent + "  ") + body
            blocks.append((bar + body, bool(lists)))
            i += 2
        elif kind in ("fence", "code_block"):
            language = (token.info or "").split(" ")[0] or "text"
            code = highlight(token.content.rstrip("\n"), language=language)
            pad = "  " if not lists else indent + "    "
            fence = Content("\n").join(Content(pad) + line for line in code.split("\n"))
            blocks.append((fence, bool(lists)))
        elif kind == "hr":
            blocks.append((Content.styled("─" * 40, "$text-muted"), False))
        elif kind == "table_open":
            table, i = _table(tokens, i)
            if lists:
                pad = Content(indent + "  ")
                table = Content("\n").join(pad + line for line in table.split("\n"))
            blocks.append((table, False))
        elif kind == "html_block" and token.map:
            start, end = token.map
            blocks.append((Content("\n".join(lines[start:end])), False))
        i += 1
    out: list[Content] = []
    for n, (block, tight) in enumerate(blocks):
        if n:
            out.append(Content("\n" if tight and blocks[n - 1][1] else "\n\n"))
        out.append(block)
    return Content("").join(out)


def _on_line(strip: Strip, y: int) -> Strip:
    """``strip`` (a paragraph rendered alone, so as line 0) with line ``y`` in the offsets
    its styles carry, as when the whole content is rendered: mouse selection reads them."""
    segments = []
    for segment in strip:
        offset = segment.style.meta.get("offset") if segment.style is not None else None
        if offset is not None:
            style = segment.style + Style.from_meta({"offset": (offset[0], y)})
            segment = Segment(segment.text, style, segment.control)
        segments.append(segment)
    return Strip(segments, strip.cell_length)


def estimate_height(text: str, width: int) -> int:
    """About how many lines ``markdown_to_content(text)`` takes at ``width`` (for a piece not
    rendered yet: each source line wrapped, fences dropped, blank runs as one line)."""
    width = max(1, width)
    lines, blank, fenced = 0, False, False
    for line in text.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if not fenced and not line.strip():
            blank = True
            continue
        if blank and lines:
            lines += 1
        blank = False
        lines += max(1, -(-(len(line) + (2 if fenced else 0)) // width))
        if not fenced and "|" in line and _TABLE_RULE.match(line):
            lines += 2  # drawn as a rule; the table gains a top and a bottom line
    return lines


class _Piece:
    """Part of a FrozenMarkdown: its markdown, rendered when first painted, kept as its
    lines (paragraphs) and the strips of those painted so far."""

    __slots__ = ("content", "estimate", "paragraphs", "placed", "starts", "strips", "text")

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
                line += 1 if fits else paragraph.get_height(rules, width)
            starts.append(line)
            self.starts = (width, starts)
        return self.starts[1]


class FrozenMarkdown(Widget):
    """Markdown that will not change, as a single widget: one or more pieces, shown one
    below the other with a blank line between them (as separate blocks would be).

    ``lazy``: a piece's markdown is rendered when one of its lines is first painted
    (Textual paints only what is on screen) or by ``materialize()`` / ``materialize_next()``;
    until then layout uses ``estimate_height``. A long answer streamed at full speed mostly
    scrolls past unseen, so most of it is never rendered while the stream runs, and it grows
    by ``add()`` without mounting a widget per piece. Mouse selection is offered once every
    piece is rendered (the offsets it reads count the lines of all the pieces above).
    """

    DEFAULT_CSS = "FrozenMarkdown { height: auto; }"

    def __init__(self, *texts: str, lazy: bool = False) -> None:
        super().__init__(classes="frozen-markdown")
        self._pieces = [_Piece(text) for text in texts]
        self._offsets: tuple[int, list[int]] = (-1, [])
        """At a width: the first line of each piece, then the height (as last laid out)."""
        self._key: tuple[int, Any] | None = None
        self._bases: list[int] | None = None
        if not lazy:
            for piece in self._pieces:
                piece.render()

    @property
    def text(self) -> str:
        return "".join(piece.text for piece in self._pieces)

    @property
    def pieces(self) -> int:
        """How many pieces it holds."""
        return len(self._pieces)

    @property
    def materialized(self) -> bool:
        """Whether every piece's markdown has been rendered (the height is exact)."""
        return all(piece.content is not None for piece in self._pieces)

    @property
    def allow_select(self) -> bool:
        return self.materialized and super().allow_select

    def add(self, *texts: str) -> None:
        """More pieces below (lazy)."""
        self._pieces.extend(_Piece(text) for text in texts)
        self._changed()

    def materialize(self) -> bool:
        """Render every piece now; True if one was not rendered before."""
        rendered = [piece.render() for piece in self._pieces]
        if any(rendered):
            self._changed()
        return any(rendered)

    def materialize_next(self) -> bool:
        """Render the lowest piece not rendered yet; False when there is none."""
        for piece in reversed(self._pieces):
            if piece.render():
                self._changed()
                return True
        return False

    def _changed(self) -> None:
        self._offsets = (-1, [])
        self._bases = None
        self.clear_cached_dimensions()
        self.refresh(layout=True)

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
        offered)."""
        piece = self._pieces[index]
        strips = piece.placed.get(line)
        if strips is not None:
            return strips
        strips = piece.strips.get(line)
        if strips is None:
            paragraph = piece.paragraphs[line] if line >= 0 else Content("")
            strips = Visual.to_strips(self, paragraph, width, None, style)
            piece.strips[line] = strips
        if not self.materialized:
            return strips
        if self._bases is None:  # the first line of each piece in render()'s Content
            self._bases, base = [], 0
            for other in self._pieces:
                self._bases.append(base)
                base += len(other.paragraphs) + 1
        y = self._bases[index] + line
        placed = [_on_line(strip, y) for strip in strips] if y else strips
        piece.placed[line] = placed
        return placed
