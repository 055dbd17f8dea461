"""Wrapping a line with a hanging indent: a long list item's wrapped lines start under the
item's text, not at the left margin (as Textual's live Markdown showed them); a message line
laid out in columns (``/agents``: name, then description) wraps under its last column.

``markdown_to_content`` writes a list item as one line per source line, starting with its
indent and mark (``"  • "``, ``"12. "``) and a code block's lines with their pad; Textual
would wrap such a line to column 0. ``hanging_lines`` wraps the text after that prefix to the
width left, and indents the lines after the first by the prefix's width.
"""

from __future__ import annotations

import re

from textual.content import Content

_PREFIX = re.compile(r"(?:▌ )*( *)(?:• |\d+[.)] )?")
"""A block quote's bars, the list or code indent, a list item's mark."""


def hang_of(plain: str, width: int) -> int:
    """The hanging indent of a line at ``width``: the width of its prefix (0 when it has
    none, or when so wide that little would be left for the text)."""
    match = _PREFIX.match(plain)
    hang = match.end() if match is not None else 0
    if hang >= len(plain) or hang > width // 2:
        return 0
    return hang


_MESSAGE_PREFIX = re.compile(r"(?:[•✗⎿] )?( *)(?:\S+(?: \S+)*? {2,}(?=\S))?")
"""A message's mark, its indent, and when indented a first column (words, then 2+ spaces)."""


def message_hang(plain: str, width: int) -> int:
    """The hanging indent of a message line (a notice, a listing) at ``width``: after its
    mark (``• ``), its indent, and, in an indented line laid out in columns, its first
    column; 0 when that would leave too little room."""
    match = _MESSAGE_PREFIX.match(plain)
    if match is None:
        return 0
    hang = match.end() if match.group(1) else match.start(1) + len(match.group(1))
    return 0 if hang >= len(plain) or hang > width // 2 else hang


def hanging_lines(line: Content, width: int, hang: int | None = None) -> list[tuple[Content, int]]:
    """``line`` wrapped at ``width`` with its hanging indent (by default a list item's,
    ``hang_of``), as screen lines, each with the position in ``line`` where its text starts
    less where it is drawn (so a mouse selection on it can name the characters of the whole
    line)."""
    hang = hang_of(line.plain, width) if hang is None else hang
    if not hang or line.cell_length <= width:
        return [(line, 0)]
    head, body = line[:hang], line[hang:]
    out: list[tuple[Content, int]] = []
    position = 0
    for n, piece in enumerate(body.wrap(width - hang)):
        start = body.plain.find(piece.plain, position) if piece.plain else position
        start = position if start < 0 else start
        position = start + len(piece.plain)
        lead = head if n == 0 else Content(" " * hang)
        out.append((lead + piece, start))
    return out
