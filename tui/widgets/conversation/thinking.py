"""The model's thinking: dim, collapsed to one line; a click shows it all."""

from __future__ import annotations

from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

from frontend.sanitize import sanitize


class Thinking(Static):
    """Thinking text that grows with deltas; collapsed unless the user expands it."""

    expanded: reactive[bool] = reactive(False)

    def __init__(self) -> None:
        super().__init__("", classes="thinking")
        self._parts: list[str] = []
        self._refresh_scheduled = False
        self.done = False

    @property
    def text(self) -> str:
        return "".join(self._parts)

    def add(self, delta: str) -> None:
        """Append thinking text (rendered lazily: collapsed, only the word count shows)."""
        self._parts.append(sanitize(delta))
        if not self._refresh_scheduled:
            self._refresh_scheduled = True
            self.call_later(self._render_now)

    def finish(self) -> None:
        self.done = True
        self._render_now()

    def on_mount(self) -> None:
        self._render_now()

    def on_click(self) -> None:
        self.expanded = not self.expanded

    def watch_expanded(self) -> None:
        self._render_now()

    def _render_now(self) -> None:
        self._refresh_scheduled = False
        text = self.text
        words = len(text.split())
        verb = "thought" if self.done else "thinking…"
        head = f"∴ {verb} ({words} words)"
        if not self.expanded:
            self.update(Content.assemble((head, "italic"), "  click to show"))
            return
        self.update(Content.assemble((head, "italic"), "\n", text.strip()))
