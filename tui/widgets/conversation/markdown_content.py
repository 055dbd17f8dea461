"""Markdown (GFM-like, as markdown-it parses it) rendered to one Textual Content: what a
FrozenMarkdown shows, with the theme's variables, and an estimate of its height before it is
rendered."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

from markdown_it import MarkdownIt
from textual.content import Content

from tui.widgets.conversation.code_highlight import highlight_code

_INLINE_STYLE = {
    "strong_open": "bold",
    "em_open": "italic",
    "s_open": "strike",
    "link_open": "underline $text-accent",
}
_HEADING_STYLE = {"h1": "bold underline $text-primary", "h2": "bold $text-primary"}


def _inline(token: Any, hang: int = 0) -> Content:
    """A paragraph's inline markup as Content. ``hang``: inside a list item, the item's text
    column; its source line breaks are kept and the lines after the first start at that
    column, as Textual's Markdown indents a list item's lines (joined into one long line,
    they wrapped to the left margin and the list lost its indent)."""
    parts: list[Content] = []
    soft = Content("\n" + " " * hang) if hang else Content(" ")
    hard = Content("\n" + " " * hang)
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
            parts.append(soft)
        elif kind == "hardbreak":
            parts.append(hard)
        elif kind == "image":
            parts.append(Content.styled(f"[image: {child.content}]", "$text-muted"))
        elif child.content:
            parts.append(Content.styled(child.content, " ".join(stack)))
    return Content("").join(parts)


FENCES = ("```", "~~~")
"""What a code fence's line starts with."""
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")
"""A table's separator row (``|---|:-:|``)."""
_ALIGN = {"text-align:right": "right", "text-align:center": "center"}


def _table(tokens: list[Any], i: int) -> tuple[Content, int]:
    """The GFM table whose ``table_open`` is ``tokens[i]``, drawn with box lines (header
    bold, columns aligned as the separator row says); returns it and its ``table_close``."""
    rows, header, i = _table_rows(tokens, i)
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
        cells = [
            _cell(*(row[c] if c < len(row) else (Content(""), "left")), width)
            for c, width in enumerate(widths)
        ]
        lines.append(bar + bar.join(cells) + bar)
    lines.append(rule("└", "┴", "┘"))
    return Content("\n").join(lines), i


def _table_rows(tokens: list[Any], i: int) -> tuple[list[list[tuple[Content, str]]], int, int]:
    """The rows of the table whose ``table_open`` is ``tokens[i]``: each cell's content and
    alignment; how many rows the header has; the index of its ``table_close``."""
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
    return rows, header, i


def _cell(cell: Content, align: str, width: int) -> Content:
    """A table cell padded to its column's ``width`` as ``align`` says, a space either side."""
    room = width - cell.cell_length
    left = room if align == "right" else room // 2 if align == "center" else 0
    return Content(" ") + cell.pad(left, room - left) + Content(" ")


_LINK_MARKS = ("://", "@")
"""What a bare link or address holds; a text without any needs no link finding."""


def _parse(text: str) -> list[Any]:
    """markdown-it's tokens for ``text``.

    Bare links are found where they name their scheme (``https://…``) and in e-mail
    addresses, not in every word with a dot (linkify's fuzzy links made ``main.py`` and
    ``www.example.com`` links: a coding answer is full of file names); the link finder, most
    of a parse's time, runs only on a text that holds one of :data:`_LINK_MARKS`.
    """
    return _parser(any(mark in text for mark in _LINK_MARKS)).parse(text)


@functools.cache
def _parser(links: bool) -> MarkdownIt:
    """One parser with the link finder and one without, each made on first use (making one
    costs about as much as parsing a screenful)."""
    parser = MarkdownIt("gfm-like")
    if links and parser.linkify is not None:  # None: linkify-it-py is not installed
        parser.linkify.set({"fuzzy_link": False})
    else:
        parser.disable("linkify")
    return parser


def markdown_to_content(text: str) -> Content:
    """Render markdown (GFM-like) to a single Content."""
    return _Render(text).run()


_Block = tuple[Content, bool]
"""A drawn block, and whether it is inside a list (tight spacing)."""


class _Render:
    """One walk over markdown-it's tokens: the blocks drawn so far, the open lists (each
    [ordered, next number]), a list item's mark waiting for its first paragraph, the depth of
    block quotes."""

    def __init__(self, text: str) -> None:
        self.tokens = _parse(text)
        self.lines = text.splitlines()
        self.blocks: list[_Block] = []
        self.lists: list[list[Any]] = []
        self.prefix = Content("")
        self.quote = 0

    def run(self) -> Content:
        """The blocks of the whole text, a blank line apart (a line between list items)."""
        tokens, i = self.tokens, 0
        while i < len(tokens):
            token = tokens[i]
            draw = _DRAW.get(token.type)
            if draw is not None:
                i = draw(self, token, i)
            i += 1
        out: list[Content] = []
        blocks = self.blocks
        for n, (block, tight) in enumerate(blocks):
            if n:
                out.append(Content("\n" if tight and blocks[n - 1][1] else "\n\n"))
            out.append(block)
        return Content("").join(out)

    def _indent(self) -> str:
        return "  " * max(0, len(self.lists) - 1)

    # each takes the token at ``i`` and returns the index of the last token it used

    def list_open(self, token: Any, i: int) -> int:
        self.lists.append(
            [token.type == "ordered_list_open", int(token.attrs.get("start", 1) or 1)]
        )
        return i

    def list_close(self, token: Any, i: int) -> int:
        self.lists.pop()
        return i

    def item_open(self, token: Any, i: int) -> int:
        if self.lists:
            ordered, number = self.lists[-1]
            mark = f"{number}. " if ordered else "• "
            self.lists[-1][1] += 1
            self.prefix = Content(self._indent()) + Content.styled(mark, "bold $text-primary")
        return i

    def quote_open(self, token: Any, i: int) -> int:
        self.quote += 1
        return i

    def quote_close(self, token: Any, i: int) -> int:
        self.quote -= 1
        return i

    def heading(self, token: Any, i: int) -> int:
        body = _inline(self.tokens[i + 1]).stylize_before(_HEADING_STYLE.get(token.tag, "bold"))
        self.blocks.append((body, False))
        return i + 2

    def paragraph(self, token: Any, i: int) -> int:
        """A paragraph: after a list item's mark, or indented under the item, or in a quote."""
        lists, indent, prefix = self.lists, self._indent(), self.prefix
        hang = len(prefix.plain) if prefix.plain else len(indent) + 2 if lists else 0
        body = _inline(self.tokens[i + 1], hang)
        if self.quote:
            body = body.stylize_before("italic")
        if prefix.plain:
            body, self.prefix = prefix + body, Content("")
        elif lists:
            body = Content(indent + "  ") + body
        bar = Content.styled("▌ " * self.quote, "$text-muted")
        self.blocks.append((bar + body, bool(lists)))
        return i + 2

    def code(self, token: Any, i: int) -> int:
        language = (token.info or "").split(" ")[0] or "text"
        code = highlight_code(token.content.rstrip("\n"), language)
        pad = "  " if not self.lists else self._indent() + "    "
        fence = Content("\n").join(Content(pad) + line for line in code.split("\n"))
        self.blocks.append((fence, bool(self.lists)))
        return i

    def rule(self, token: Any, i: int) -> int:
        self.blocks.append((Content.styled("─" * 40, "$text-muted"), False))
        return i

    def table(self, token: Any, i: int) -> int:
        table, i = _table(self.tokens, i)
        if self.lists:
            margin = Content(self._indent() + "  ")
            table = Content("\n").join(margin + line for line in table.split("\n"))
        self.blocks.append((table, False))
        return i

    def html(self, token: Any, i: int) -> int:
        if token.map:
            start, end = token.map
            self.blocks.append((Content("\n".join(self.lines[start:end])), False))
        return i


_DRAW: dict[str, Callable[[_Render, Any, int], int]] = {
    "bullet_list_open": _Render.list_open,
    "ordered_list_open": _Render.list_open,
    "bullet_list_close": _Render.list_close,
    "ordered_list_close": _Render.list_close,
    "list_item_open": _Render.item_open,
    "blockquote_open": _Render.quote_open,
    "blockquote_close": _Render.quote_close,
    "heading_open": _Render.heading,
    "paragraph_open": _Render.paragraph,
    "fence": _Render.code,
    "code_block": _Render.code,
    "hr": _Render.rule,
    "table_open": _Render.table,
    "html_block": _Render.html,
}
"""What each token that draws or opens something does; the others (inline content read with
its block, closing tags) are passed over."""


def estimate_height(text: str, width: int) -> int:
    """About how many lines ``markdown_to_content(text)`` takes at ``width`` (for a piece not
    rendered yet: each source line wrapped, fences dropped, blank runs as one line). It runs
    over every line of an answer streamed at full speed before its final frame: one strip of
    each line, and no division for a line that fits."""
    width = max(1, width)
    lines, blank, fenced = 0, False, False
    for line in text.split("\n"):
        stripped = line.lstrip()
        if stripped.startswith(FENCES):
            fenced = not fenced
            continue
        if not (stripped or fenced):
            blank = True
            continue
        if blank:
            if lines:
                lines += 1
            blank = False
        size = len(line) + 2 if fenced else len(line)
        lines += 1 if size <= width else -(-size // width)
        if not fenced and "|" in line and _TABLE_RULE.match(line):
            lines += 2  # drawn as a rule; the table gains a top and a bottom line
    return lines
