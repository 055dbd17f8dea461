"""Colours as ANSI SGR codes, only when wanted (text eddy did not write is cleaned by
frontend/sanitize.py)."""

from __future__ import annotations

import os
from typing import TextIO

SGR = {
    "bold": "1",
    "dim": "2",
    "italic": "3",
    "underline": "4",
    "red": "31",
    "green": "32",
    "yellow": "33",
    "blue": "34",
    "magenta": "35",
    "cyan": "36",
    "grey": "90",
}


def color_wanted(stream: TextIO) -> bool:
    """Colours only on a terminal, and never with NO_COLOR set (https://no-color.org)."""
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class Painter:
    """Applies named styles to text, or leaves it alone when colours are off.

    Args:
        color: whether to emit escape codes at all.
    """

    def __init__(self, color: bool) -> None:
        self.color = color

    def __call__(self, text: str, *styles: str) -> str:
        if not self.color or not styles or not text:
            return text
        codes = ";".join(SGR[s] for s in styles)
        return f"\x1b[{codes}m{text}\x1b[0m"
