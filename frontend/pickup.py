"""The one start-up line saying what eddy picked up from Claude Code's files.

The engine's front door (agent/open.py) collects the items (settings files, memory, rules,
skills, output styles; frontend/session_open.py adds commands and the status line) and every
front end shows ``pickup_line(items)`` once: the TUI and line mode as a notice, headless on
stderr for the text and json formats, and not at all in stream-json (its stdout is the event
stream and stderr is left to real problems).
"""

from __future__ import annotations


def pickup_line(items: list[str]) -> str | None:
    """``Claude Code: a, b, c``, or None when nothing was picked up."""
    items = [i for i in items if i.strip()]
    return f"Claude Code: {', '.join(items)}" if items else None
