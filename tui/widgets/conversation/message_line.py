"""One line of information in the conversation: an error, a notice, a hint or a banner."""

from __future__ import annotations

from typing import Literal

from textual.content import Content
from textual.widgets import Static

from frontend.sanitize import sanitize

LineKind = Literal["error", "notice", "hint", "interrupted", "banner"]

_PREFIX: dict[str, str] = {
    "error": "✗ ",
    "notice": "• ",
    "hint": "",
    "interrupted": "⎿ ",
    "banner": "",
}


class MessageLine(Static):
    """A short styled message; never markup-interpreted (it may quote user or tool text).

    Args:
        text: the message (may span lines).
        kind: error, notice, hint, interrupted or banner: picks the style and a prefix.
    """

    def __init__(self, text: str, kind: LineKind = "notice") -> None:
        self.kind = kind
        self.text = text = sanitize(text)  # errors and notices quote commands and paths
        body = Content(_PREFIX[kind] + text)
        if kind == "banner":  # its first line is a title
            first, _, rest = text.partition("\n")
            tail = Content("\n" + rest) if rest else Content("")
            body = Content.styled(first, "bold $text-primary") + tail
        super().__init__(body, classes=kind)
