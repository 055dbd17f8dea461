"""One line of information in the conversation: an error, a notice, a hint or a banner.

A line too long for the screen wraps under its text, not at the margin: after its mark
(``• ``), its indent, and, in a listing laid out in columns (``/agents``, ``/tasks``), its
first column (tui/widgets/conversation/hanging.py).
"""

from __future__ import annotations

from typing import Any, Literal

from textual.content import Content
from textual.geometry import Size
from textual.widgets import Static

from frontend.sanitize import sanitize
from tui.widgets.conversation.hanging import hanging_lines, message_hang

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
        self.body = body
        self._wrapped: tuple[int, Content] | None = None
        super().__init__(body, classes=kind)

    def update(self, text: str = "", *, layout: bool = True) -> None:  # type: ignore[override]
        """Show ``text`` instead (its kind and mark stay)."""
        self.text = text = sanitize(str(text))
        self.body = Content(_PREFIX[self.kind] + text)
        self._wrapped = None
        super().update(self.body, layout=layout)

    def wrapped(self, width: int) -> Content:
        """The body with each line too long for ``width`` wrapped under its own text."""
        if width <= 0:
            return self.body
        if self._wrapped is None or self._wrapped[0] != width:
            lines: list[Content] = []
            for line in self.body.split("\n", allow_blank=True):
                hang = message_hang(line.plain, width) if line.cell_length > width else 0
                if hang:
                    lines.extend(part for part, _ in hanging_lines(line, width, hang))
                else:
                    lines.append(line)
            self._wrapped = (width, Content("\n").join(lines))
        return self._wrapped[1]

    def render(self) -> Content:
        return self.wrapped(self.content_size.width)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        rules: Any = self.styles  # as Textual's own widgets pass it
        return self.wrapped(width).get_height(rules, width)
