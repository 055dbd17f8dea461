"""A tool call in words, for every front end: plain strings, no styles, no UI library.

The TUI's tool block and the line mode's printed lines say the same things about a call: a mark
and a word for its state, the text of its result, how many lines of a long result are hidden,
the counts of a diff. Each styles them its own way; what they say comes from here. The one-line
summary of a call's input (path, command, pattern) is the tool's own (``Tool.summary``), carried
by ``ToolCallStarted`` and ``PermissionRequested``.

States: pending -> (asking) -> running -> done | failed | refused | interrupted; the last four
are the statuses of ``ToolCallFinished``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

STATE_MARKS: dict[str, str] = {
    "pending": "○",
    "asking": "?",
    "running": "●",
    "done": "✓",
    "failed": "✗",
    "refused": "⊘",
    "interrupted": "■",
}
"""The mark in front of a call in each state."""
STATE_WORDS: dict[str, str] = {
    "pending": "pending",
    "asking": "waiting for permission",
    "running": "running",
    "done": "done",
    "failed": "failed",
    "refused": "refused",
    "interrupted": "interrupted",
}
"""The word for each state."""
PROBLEM_STATES = frozenset({"failed", "refused", "interrupted"})
"""End states the user should notice: the call did not do what the model asked."""


def state_mark(state: str) -> str:
    """The mark for ``state`` (``●`` for a state this module does not know)."""
    return STATE_MARKS.get(state, "●")


def state_word(state: str) -> str:
    """The word for ``state`` (the state's own name when this module does not know it)."""
    return STATE_WORDS.get(state, state)


def is_problem(state: str) -> bool:
    """Whether ``state`` is an end the user should notice (failed, refused, interrupted)."""
    return state in PROBLEM_STATES


def result_text(content: str | Sequence[Mapping[str, Any]]) -> str:
    """The text of a tool result; a block that is not text (an image) is named in brackets.

    Args:
        content: a ``ToolCallFinished.content``: a string, or content blocks.

    Returns:
        The text blocks joined by newlines, ``[image]`` (say) for the others.
    """
    if isinstance(content, str):
        return content
    parts = []
    for block in content:
        if block.get("type") == "text":
            parts.append(str(block.get("text", "")))
        else:
            parts.append(f"[{block.get('type', 'block')}]")
    return "\n".join(parts)


def clip_lines(lines: Sequence[str], limit: int) -> tuple[list[str], int]:
    """The first ``limit`` of ``lines`` and how many are left out.

    Args:
        lines: the lines of a result, a diff, an input.
        limit: how many to keep (a negative limit keeps none).

    Returns:
        ``(shown, hidden)``: the lines kept, and the count of the rest.
    """
    limit = max(0, limit)
    return list(lines[:limit]), max(0, len(lines) - limit)


def more_lines(hidden: int) -> str:
    """The note that stands for ``hidden`` lines left out: ``… 12 more lines``."""
    return f"… {hidden} more lines"


def diff_counts(display: Mapping[str, Any]) -> str:
    """A file change's counts, ``+12 -3``, from a tool's ``display`` of kind ``diff``."""
    return f"+{display.get('added', 0)} -{display.get('removed', 0)}"
