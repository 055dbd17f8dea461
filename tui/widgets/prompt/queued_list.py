"""Corrections typed while a turn runs, shown under the prompt until the model reads them."""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content
from textual.widgets import Static

from frontend.sanitize import sanitize

MAX_SHOWN = 5


def _one_line(text: str, width: int = 90) -> str:
    line = " ".join(sanitize(text).split())
    return line if len(line) <= width else line[: width - 1] + "…"


class QueuedList(Static):
    """The queue, newest last; hidden when empty."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, classes="queued")
        self.items: tuple[str, ...] = ()
        self.display = False

    def set_items(self, items: Sequence[str]) -> None:
        """Show ``items`` (the engine's queue, oldest first)."""
        self.items = tuple(items)
        self.display = bool(self.items)
        if not self.items:
            self.update("")
            return
        lines = [
            Content.assemble(("queued ", "bold $text-warning"), _one_line(text))
            for text in self.items[-MAX_SHOWN:]
        ]
        if len(self.items) > MAX_SHOWN:
            lines.insert(0, Content.styled(f"… {len(self.items) - MAX_SHOWN} more", "$text-muted"))
        hint = Content.styled(
            "the model reads these after the current tool results · ↑ on an empty prompt edits "
            "the newest · Esc stops the turn and sends them now",
            "$text-muted",
        )
        self.update(Content("\n").join([*lines, hint]))
