"""The prompt editor: multi-line, Enter sends, ctrl+j / shift+enter newline, Up/Down history.

Up on an empty prompt while corrections are queued asks for the newest one back instead (the
app takes it out of the engine's queue and loads it here to edit).

Completion: while the cursor is in ``/command`` (the prompt's first word) or ``@path``, the
screen's ``completer`` offers candidates in the ``menu`` under the prompt. While it shows, ↑/↓
move in it and Tab takes the highlighted candidate. Enter acts on what is typed: a command
goes as typed (a half-typed one is answered "did you mean") unless the user picked a candidate
with ↑/↓ after the last edit (then that one runs); in an ``@path`` Enter takes the highlighted
path of the menu made for exactly that text (it only inserts it), else the text goes as typed.
Keys typed in one burst reach the editor before the menu has caught up with them, so the menu
is brought up to date with the text before Tab or Enter reads it. Text loaded from the history
never opens the menu.

A long paste (more than ``PASTE_CHIP_LINES`` lines or ``PASTE_CHIP_CHARS`` characters) is
shown as a chip, ``[Pasted text #1 +3000 lines]``, instead of filling the screen: the prompt
sends the text it stands for, Backspace at its end removes it whole, and Ctrl+T puts the
pasted text itself in the prompt, to edit. A paste (or drop) of image file paths becomes one
chip per image, ``[image 1: shot.png 640x480]``, standing for the path (the engine attaches
the image it names).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from textual import events
from textual.message import Message
from textual.widgets import TextArea

from frontend.prompt_history import PromptHistory
from tui.widgets.prompt.completion import Candidate, CompletionMenu, Token, token_at

NEWLINE_KEYS = ("ctrl+j", "shift+enter", "alt+enter")
PASTE_CHIP_LINES = 12
PASTE_CHIP_CHARS = 2000
"""A paste longer than either becomes a chip (see the module's docstring)."""

Completer = Callable[[Token], "list[Candidate] | None"]
"""Candidates for a token; None when they come later (the screen then calls ``menu.show``)."""


class PromptInput(TextArea):
    """The text area at the bottom of the screen.

    Args:
        history: the project's prompt history.
    """

    last_key_at = 0.0
    """When a key last reached the prompt (time.monotonic): a streaming answer holds its next
    write back for a moment after a key, so the key's frame is cheap (see AssistantText)."""

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
        self.menu: CompletionMenu | None = None
        """The completion menu (set by the screen)."""
        self.completer: Completer | None = None
        """Candidates for a token (set by the screen)."""
        self._quiet = False
        """The next change came from the history, not typing: no menu for it."""
        self._pastes: dict[str, str] = {}
        """Chip label -> the pasted text it stands for."""
        self.workspace = Path.cwd()
        """Where a pasted relative image path is found (the screen may set it)."""
        self._picked: tuple[str, tuple[int, int]] | None = None
        """(text, cursor) when the user last moved in the menu: Enter takes the highlighted
        candidate only while the text is still that."""

    # -- completion -----------------------------------------------------------------------
    def load_quietly(self, text: str) -> None:
        """Replace the text without opening the completion menu (history, recalled text)."""
        self._quiet = True
        self.load_text(text)
        self.close_menu()

    def close_menu(self) -> bool:
        """Hide the completion menu; False if it was not shown."""
        if self.menu is None or not self.menu.shown:
            return False
        self.menu.hide()
        return True

    def update_completion(self) -> bool:
        """Show what completes the token at the cursor (or hide the menu); True if shown."""
        menu = self.menu
        if menu is None or self.completer is None:
            return False
        token = token_at(self.text, self.cursor_location)
        if token is None:
            menu.hide()
            return False
        candidates = self.completer(token)
        if candidates is not None:  # None: searched in the background, shown when found
            menu.show(token, candidates)
        return menu.shown

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        if event.text_area is not self:
            return
        if self._quiet:
            self._quiet = False
            self.close_menu()
            return
        self.update_completion()

    def on_text_area_selection_changed(self, event: TextArea.SelectionChanged) -> None:
        menu = self.menu
        if event.text_area is not self or menu is None or menu.token is None:
            return
        token = token_at(self.text, self.cursor_location)
        if token is None or (token.kind, token.row, token.start) != (
            menu.token.kind,
            menu.token.row,
            menu.token.start,
        ):
            menu.hide()

    def accept_completion(self) -> Candidate | None:
        """Put the highlighted candidate in place of its token; returns it (None: no menu)."""
        menu = self.menu
        candidate = menu.current() if menu is not None else None
        token = token_at(self.text, self.cursor_location)
        if menu is None or candidate is None or token is None:
            return None
        line = self.document.get_line(token.row)
        space = "" if line[token.end : token.end + 1] == " " else " "
        self.replace(candidate.value + space, (token.row, token.start), (token.row, token.end))
        self.move_cursor((token.row, token.start + len(candidate.value) + 1))
        menu.hide()
        return candidate

    # -- keys -----------------------------------------------------------------------------
    async def _on_key(self, event: events.Key) -> None:
        PromptInput.last_key_at = time.monotonic()
        if self.menu is not None and self.menu.shown and self._menu_key(event.key):
            event.stop()
            event.prevent_default()
            return
        if event.key == "tab" and self._complete_on_tab():
            event.stop()
            event.prevent_default()
            return
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            self.close_menu()
            self._submit()
            return
        if event.key == "ctrl+t" and self._pastes:
            event.stop()
            event.prevent_default()
            self.expand_pastes()
            return
        if event.key == "backspace" and self._remove_chip_before_cursor():
            event.stop()
            event.prevent_default()
            return
        if event.key in NEWLINE_KEYS:
            event.stop()
            event.prevent_default()
            self.insert("\n")
            return
        if not event.is_printable and await self._run_own_binding(event.key):
            event.stop()
            event.prevent_default()
            return
        # other keys: Textual goes on to TextArea._on_key (handlers run down the MRO)

    async def _run_own_binding(self, key: str) -> bool:
        """Run the prompt's own binding of ``key`` (Backspace, the arrows, Ctrl+W...) now;
        False when it has none. Left to Textual, the key bubbles up to the app, which runs
        the binding after the keys already queued behind it: in a burst (keys typed before
        the first frame, or while the app was busy), ``abc`` Backspace ``d`` gave ``abc``."""
        bindings = getattr(self, "_bindings", None)  # Textual's map, with the keymap applied
        if bindings is None:
            return False
        for binding in bindings.key_to_bindings.get(key, ()):
            if not binding.priority and await self.app.run_action(binding.action, self):
                return True
        return False

    def _menu_key(self, key: str) -> bool:
        """Handle ``key`` while the menu shows; False when it is not a menu key."""
        assert self.menu is not None
        if key in ("up", "down"):
            self.menu.move(-1 if key == "up" else 1)
            self._picked = (self.text, self.cursor_location)
        elif key == "tab":
            if self._menu_is_current():
                self.accept_completion()
        elif key == "enter":
            picked = self._picked == (self.text, self.cursor_location)
            kind = self.menu.token.kind if self.menu.token is not None else None
            if not picked and not (self._menu_is_current() and kind == "path"):
                return False  # nothing picked since the last edit: Enter sends what is typed
            if self.accept_completion() is not None and kind == "command":
                self._submit(self.text.rstrip())  # the completion's space is not part of it
        else:
            return False
        return True

    def _menu_is_current(self) -> bool:
        """Bring the menu up to date with the text (a burst of keys can be ahead of the
        change events that update it); True if it still shows candidates."""
        menu = self.menu
        if menu is None:
            return False
        token = token_at(self.text, self.cursor_location)
        if token is None or menu.token is None or token != menu.token:
            self.update_completion()
        # a large file list is searched in a thread: until it answers, the menu is old
        return menu.shown and menu.token is not None and menu.token == token

    def _complete_on_tab(self) -> bool:
        """Tab with the menu closed, in a /command or @path: open the menu (a single
        candidate is taken at once). False outside them (Tab then moves the focus)."""
        if self.menu is None or token_at(self.text, self.cursor_location) is None:
            return False
        if self.update_completion() and len(self.menu.candidates) == 1:
            self.accept_completion()
        return True

    async def _on_paste(self, event: events.Paste) -> None:
        # Inserted whole; stopped (and the base handler prevented) so it is inserted once.
        event.stop()
        event.prevent_default()
        text = event.text
        if self._paste_images(text):
            return
        lines = len(text.splitlines())
        if lines > PASTE_CHIP_LINES or len(text) > PASTE_CHIP_CHARS:
            count = f"+{lines} lines" if lines > 1 else f"{len(text):,} characters"
            label = f"[Pasted text #{len(self._pastes) + 1} {count}]"
            self._pastes[label] = text
            self.insert(label)
            return
        await super()._on_paste(event)  # the base handler, explicitly, exactly once

    def _paste_images(self, text: str) -> bool:
        """A paste (a drop) of image file paths becomes one chip per image,
        ``[image 1: shot.png 640x480]``, standing for the path: the engine attaches it."""
        from frontend.images import pasted_images  # the engine's image code: not at start-up

        images = pasted_images(text, self.workspace)
        if not images:
            return False
        shown = sum(label.startswith("[image ") for label in self._pastes)
        labels = []
        for n, image in enumerate(images, shown + 1):
            label = image.chip(n)
            self._pastes[label] = image.as_prompt_text()
            labels.append(label)
        self.insert(" ".join(labels) + " ")
        return True

    def expanded(self, text: str) -> str:
        """``text`` with each paste chip replaced by the text it stands for."""
        for label, pasted in self._pastes.items():
            text = text.replace(label, pasted)
        return text

    def expand_pastes(self) -> None:
        """Ctrl+T: the pasted text itself in the prompt, in place of its chips, to edit."""
        row, col = self.cursor_location
        before = self.expanded(self.document.get_text_range((0, 0), (row, col)))
        self.load_quietly(self.expanded(self.text))
        self._pastes.clear()
        lines = before.split("\n")
        self.move_cursor((len(lines) - 1, len(lines[-1])))

    def _remove_chip_before_cursor(self) -> bool:
        """Backspace right after a chip removes the whole chip; False when not after one."""
        row, col = self.cursor_location
        line = self.document.get_line(row)[:col]
        for label in self._pastes:
            if line.endswith(label):
                self.delete((row, col - len(label)), (row, col))
                return True
        return False

    def _submit(self, text: str | None = None) -> None:
        text = self.expanded(self.text if text is None else text)
        if not text.strip():
            return
        self._pastes.clear()
        self.prompt_history.append(text)
        self.load_quietly("")
        self.post_message(self.Submitted(text))

    def action_cursor_up(self, select: bool = False) -> None:
        if not select and self.cursor_location[0] == 0:
            if not self.text and self.queued:
                self.post_message(self.RecallQueued())
                return
            older = self.prompt_history.older(self.text)
            if older is not None:
                self.load_quietly(older)
                self.move_cursor((0, len(older.split("\n", 1)[0])))
                return
        super().action_cursor_up(select)

    def action_cursor_down(self, select: bool = False) -> None:
        if not select and self.cursor_location[0] == self.document.line_count - 1:
            newer = self.prompt_history.newer()
            if newer is not None:
                self.load_quietly(newer)
                self.move_cursor(self.document.end)
                return
        super().action_cursor_down(select)
