"""Colours as ANSI SGR codes (only when wanted), and cleaning of text we did not write."""

from __future__ import annotations

import os
import re
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

_ESCAPES = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor movement
    r"|\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC: titles, hyperlinks
    r"|[PX^_][^\x1b]*(?:\x1b\\)?"  # DCS and friends
    r"|[@-Z\\-_]?)"  # two-character sequences (and a lone ESC)
)
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x9b]")


def color_wanted(stream: TextIO) -> bool:
    """Colours only on a terminal, and never with NO_COLOR set (https://no-color.org)."""
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def clean(text: str) -> str:
    """``text`` without escape sequences or control characters (tabs and newlines stay).

    Shell output and model text may carry colours or cursor movement; printed as they are they
    would break the prompt below them (and violate "no escape codes when not a terminal"). A
    carriage return inside a line (a progress bar) keeps only what was written last.
    """
    text = _ESCAPES.sub("", text.replace("\r\n", "\n"))
    if "\r" in text:
        text = "\n".join(line.rsplit("\r", 1)[-1] for line in text.split("\n"))
    return _CONTROLS.sub("", text)


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
