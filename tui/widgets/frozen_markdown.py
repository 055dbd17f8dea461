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


class FrozenMarkdown(Widget):
    """Markdown that will not change, as a single widget.

    ``lazy``: the markdown is rendered when the widget is first painted (Textual paints only
    what is on screen) or by ``materialize()``; until then layout uses ``estimate_height``. A
    long answer streamed at full speed mostly scrolls past unseen, so most of it is never
    rendered while the stream runs.
    """

    DEFAULT_CSS = "FrozenMarkdown { height: auto; }"

    def __init__(self, text: str, *, lazy: bool = False) -> None:
        super().__init__(classes="frozen-markdown")
        self.text = text
        self._content: Content | None = None
        self._estimate = (-1, 0)
        self._paragraphs: list[Content] = []
        self._starts: list[int] = []
        """The first line of each paragraph at ``_key``'s width, and the height after."""
        self._strips: dict[int, list[Strip]] = {}
        self._key: tuple[int, Any] | None = None
        if not lazy:
            self._render_markdown()

    @property
    def materialized(self) -> bool:
        """Whether the markdown has been rendered (the height is exact)."""
        return self._content is not None

    def materialize(self) -> bool:
        """Render the markdown now; True if it was not rendered before."""
        if self._content is not None:
            return False
        self._render_markdown()
        self.clear_cached_dimensions()
        self.refresh(layout=True)
        return True

    def _render_markdown(self) -> None:
        self._content = markdown_to_content(self.text)
        self._paragraphs = self._content.split("\n", allow_blank=True)
        self._key = None

    def render(self) -> Content:
        self.materialize()
        assert self._content is not None
        return self._content

    def _lines(self, width: int, style: Any = None) -> list[int]:
        """Where each paragraph starts at ``width`` (the last entry: the height); strips
        rendered for another width or style are dropped."""
        self.materialize()
        key = (width, style)
        if self._key != key:
            if self._key is None or self._key[0] != width:
                starts, line = [], 0
                for paragraph in self._paragraphs:
                    starts.append(line)  # most lines fit: no need to wrap them
                    fits = paragraph.cell_length <= width
                    line += 1 if fits else paragraph.get_height(self.styles, width)
                starts.append(line)
                self._starts = starts
            self._key = key
            self._strips = {}
        return self._starts

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if self._content is None:
            if self._estimate[0] != width:  # layout asks on every pass, for every piece
                self._estimate = (width, estimate_height(self.text, width))
            return self._estimate[1]
        if not width:
            return 0
        return self._lines(width, self._key[1] if self._key else None)[-1]

    def render_line(self, y: int) -> Strip:
        if self.text_selection is not None:  # selection offsets are the whole content's
            self._key = None
            return super().render_line(y)
        width = self.size.width
        style = self.visual_style
        if width <= 0:
            return Strip.blank(0)
        starts = self._lines(width, style)
        index = bisect_right(starts, y) - 1
        if not 0 <= index < len(self._paragraphs):
            return Strip.blank(width, style.rich_style)
        strips = self._strips.get(index)
        if strips is None:
            strips = Visual.to_strips(self, self._paragraphs[index], width, None, style)
            if index:
                strips = [_on_line(strip, index) for strip in strips]
            self._strips[index] = strips
        offset = y - starts[index]
        return strips[offset] if offset < len(strips) else Strip.blank(width, style.rich_style)
