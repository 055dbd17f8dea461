"""A prompt the user sent, or a correction the model read mid-turn."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

MAX_SHOWN_LINES = 40
"""A huge pasted prompt is shown cut to this many lines (the model got all of it)."""


def _shown(text: str) -> str:
    lines = text.splitlines() or [""]
    if len(lines) <= MAX_SHOWN_LINES:
        return "\n".join(lines)
    more = len(lines) - MAX_SHOWN_LINES
    return "\n".join(lines[:MAX_SHOWN_LINES]) + f"\n… {more} more lines"


class UserPrompt(Static):
    """The user's words in the conversation.

    Args:
        text: what the user wrote.
        correction: it was queued while a turn ran and delivered after the tool results.
    """

    def __init__(self, text: str, *, correction: bool = False) -> None:
        self.text = text
        marker = "↳ correction  " if correction else "> "
        body = Content.assemble((marker, "bold"), _shown(text))
        super().__init__(body, classes="correction" if correction else "")
