"""Markdown (GFM-like, as markdown-it parses it) rendered to one Textual Content: what a
FrozenMarkdown shows, with the theme's variables, and an estimate of its height before it is
rendered."""

from __future__ import annotations

import re
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


_parser: MarkdownIt | None = None


def _parse(text: str) -> list[Any]:
    """markdown-it's tokens for ``text``: one parser, made on first use (making one costs
    about as much as parsing a screenful)."""
    global _parser
    if _parser is None:
        _parser = MarkdownIt("gfm-like")
    return _parser.parse(text)


def markdown_to_content(text: str) -> Content:
    """Render markdown (GFM-like) to a single Content."""
    tokens = _parse(text)
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
            hang = len(prefix.plain) if prefix.plain else len(indent) + 2 if lists else 0
            body = _inline(tokens[i + 1], hang)
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
            code = highlight_code(token.content.rstrip("\n"), language)
            pad = "  " if not lists else indent + "    "
            fence = Content("\n").join(Content(pad) + line for line in code.split("\n"))
            blocks.append((fence, bool(lists)))
        elif kind == "hr":
            blocks.append((Content.styled("─" * 40, "$text-muted"), False))
        elif kind == "table_open":
            table, i = _table(tokens, i)
            if lists:
                margin = Content(indent + "  ")
                table = Content("\n").join(margin + line for line in table.split("\n"))
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
