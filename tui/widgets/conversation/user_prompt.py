"""A prompt the user sent, or a correction the model read mid-turn."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from frontend.sanitize import sanitize
from frontend.tool_summary import clip_lines, more_lines
from tui.widgets.laid_out import LaidOut

MAX_SHOWN_LINES = 40
"""A huge pasted prompt is shown cut to this many lines (the model got all of it)."""


def _shown(text: str) -> str:
    shown, more = clip_lines(sanitize(text).splitlines() or [""], MAX_SHOWN_LINES)
    return "\n".join(shown) + (f"\n{more_lines(more)}" if more else "")


class UserPrompt(Static, LaidOut):
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
