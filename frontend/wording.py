"""Words every front end uses the same way: a first line cut to a width, the compaction line.

Widths are terminal cells (East Asian wide characters take two, combining marks none), so the
TUI and the line mode cut a line at the same place.
"""

from __future__ import annotations

import unicodedata

from agent import events as ev


def cell_width(text: str) -> int:
    """The cells ``text`` takes in a terminal."""
    return sum(_cells(ch) for ch in text)


def _cells(ch: str) -> int:
    if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def first_line(text: str, width: int = 160) -> str:
    """The first non-blank line of ``text``, cut to ``width`` cells with an ellipsis."""
    line = next((x.strip() for x in text.splitlines() if x.strip()), "")
    if cell_width(line) <= width:
        return line
    out, used = [], 0
    for ch in line:
        cells = _cells(ch)
        if used + cells > width - 1:
            break
        out.append(ch)
        used += cells
    return "".join(out) + "…"


def compaction_line(event: ev.Compacted) -> str:
    """What the conversation shows where it was compacted."""
    how = "automatically" if event.automatic else "as asked"
    return (
        f"Conversation compacted {how}: {event.dropped_messages} messages summarised, "
        f"{event.kept_messages} kept."
    )
