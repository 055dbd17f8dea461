"""JSON with line numbers: every string value remembers the line it starts on.

``/permissions why`` names the file *and line* of the rule that decided a call; ``json.loads``
forgets positions, so settings files are decoded with the pure-Python scanner whose string
parser returns :class:`LocatedStr` (a ``str``: everything else sees ordinary strings).
"""

from __future__ import annotations

import bisect
import json
import json.decoder
import json.scanner
from typing import Any


class LocatedStr(str):
    """A string decoded from a JSON file, with the 1-based line its opening quote is on."""

    line: int = 0


def line_of(value: object) -> int | None:
    """The line a decoded string came from, or None for a value not read by :func:`loads`."""
    return value.line if isinstance(value, LocatedStr) and value.line else None


def loads(text: str) -> Any:
    """``json.loads`` whose string values are :class:`LocatedStr`.

    Raises:
        json.JSONDecodeError: as ``json.loads``.
    """
    starts = [i for i, ch in enumerate(text) if ch == "\n"]
    decoder = json.JSONDecoder()

    def parse_string(s: str, end: int, strict: bool) -> tuple[str, int]:
        value, after = getattr(json.decoder, "scanstring")(s, end, strict)  # noqa: B009
        located = LocatedStr(value)
        located.line = bisect.bisect_left(starts, end) + 1
        return located, after

    # the C scanner ignores parse_string; the pure-Python one calls it (slower, fine here)
    setattr(decoder, "parse_string", parse_string)  # noqa: B010 - untyped stdlib attributes
    setattr(decoder, "scan_once", getattr(json.scanner, "py_make_scanner")(decoder))  # noqa: B010, B009
    return decoder.decode(text)
