"""The prompt editor: multi-line, Enter sends, ctrl+j / shift+enter newline, Up/Down history.

Up on an empty prompt while corrections are queued asks for the newest one back instead (the
app takes it out of the engine's queue and loads it here to edit).
"""

from __future__ import annotations

from textual import events
from textual.message import Message
from textual.widgets import TextArea

from tui.widgets.prompt_history import PromptHistory

NEWLINE_KEYS = ("ctrl+j", "shift+enter", "alt+enter")


class PromptInput(TextArea):
    """The text area at the bottom of the screen.

    Args:
        history: the project's prompt history.
    """

    class Submitted(Message):
        """Enter was pressed with this text (the editor has been cleared)."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class RecallQueued(Message):
        """Up on an empty prompt with corrections queued: take the newest back."""

    def __init__(self, history: PromptHistory, *, id: str | None = None) -> None:
        super().__init__(
            "",
            id=id,
            soft_wrap=True,
            show_line_numbers=False,
            tab_behavior="focus",
            highlight_cursor_line=False,
            compact=True,
        )
        self.prompt_history = history
        self.queued = 0
        """How many corrections are queued (set by the app)."""

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            self._submit()
            return
        if event.key in NEWLINE_KEYS:
            event.stop()
            event.prevent_default()
            self.insert("\n")
        # other keys: Textual goes on to TextArea._on_key (handlers run down the MRO)

    async def _on_paste(self, event: events.Paste) -> None:
        # Inserted whole; stopped (and the base handler prevented) so it is inserted once.
        event.stop()
        event.prevent_default()
        await super()._on_paste(event)  # the base handler, explicitly, exactly once

    def _submit(self) -> None:
        text = self.text
        if not text.strip():
            return
        self.prompt_history.append(text)
        self.load_text("")
        self.post_message(self.Submitted(text))

    def action_cursor_up(self, select: bool = False) -> None:
        if not select and self.cursor_location[0] == 0:
            if not self.text and self.queued:
                self.post_message(self.RecallQueued())
                return
            older = self.prompt_history.older(self.text)
            if older is not None:
                self.load_text(older)
                self.move_cursor((0, len(older.split("\n", 1)[0])))
                return
        super().action_cursor_up(select)

    def action_cursor_down(self, select: bool = False) -> None:
        if not select and self.cursor_location[0] == self.document.line_count - 1:
            newer = self.prompt_history.newer()
            if newer is not None:
                self.load_text(newer)
                self.move_cursor(self.document.end)
                return
        super().action_cursor_down(select)
