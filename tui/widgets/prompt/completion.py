"""Completion under the prompt: ``/commands`` at the start, ``@paths`` anywhere.

``token_at`` finds what is being completed at the cursor (pure, tested on its own); the
``CompletionMenu`` shows the candidates the screen found for it. The prompt keeps the focus:
↑/↓ move in the menu, Tab or Enter take the highlighted candidate, Esc closes it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from rich.cells import cell_len
from textual.content import Content
from textual.widgets import OptionList
from textual.widgets.option_list import Option

Kind = Literal["command", "path"]

COMMAND = re.compile(r"/[\w-]*")
MENTION = re.compile(r"(?:^|(?<=\s))@((?:[^\s@\\]|\\ )*)$")
WORD_AFTER = {"command": re.compile(r"[\w-]*"), "path": re.compile(r"(?:[^\s\\]|\\ )*")}
MAX_SHOWN = 8
NAME_WIDTH = 16


@dataclass(frozen=True)
class Token:
    """What the cursor is in: ``/name`` at the start of the prompt, or ``@path``.

    Attributes:
        kind: command or path.
        row: the line (0 for a command).
        start: the column of the ``/`` or ``@``.
        end: the column where the token ends (the cursor, or the end of the word it is in).
        query: what follows the ``/`` or ``@`` up to the cursor (``\\ `` unescaped).
    """

    kind: Kind
    row: int
    start: int
    end: int
    query: str


@dataclass(frozen=True)
class Candidate:
    """One completion: ``value`` replaces the token; ``label`` and ``description`` show."""

    value: str
    label: str
    description: str = ""


def token_at(text: str, cursor: tuple[int, int]) -> Token | None:
    """The token completed at ``cursor`` in ``text``, or None.

    A command only counts as the prompt's first word (``/usr/bin/x`` is a path, not one); a
    mention starts with ``@`` at the start of a line or after a space.
    """
    row, col = cursor
    lines = text.split("\n")
    if row >= len(lines):
        return None
    line = lines[row]
    before, after = line[:col], line[col:]
    if row == 0 and COMMAND.fullmatch(before):
        rest = WORD_AFTER["command"].match(after)
        tail = after[rest.end() :] if rest else after
        if not tail or tail[0] == " ":
            end = col + (rest.end() if rest else 0)
            return Token("command", 0, 0, end, before[1:])
        return None
    m = MENTION.search(before)
    if m is None:
        return None
    rest = WORD_AFTER["path"].match(after)
    end = col + (rest.end() if rest else 0)
    return Token("path", row, m.start(), end, m.group(1).replace("\\ ", " "))


def path_candidate(path: str) -> Candidate:
    """The candidate inserting ``@path`` (spaces escaped, as the engine reads mentions)."""
    return Candidate("@" + path.replace(" ", "\\ "), path)


class CompletionMenu(OptionList):
    """The list of candidates under the prompt; hidden when there is nothing to offer."""

    DEFAULT_CSS = """
    CompletionMenu {
        display: none;
        height: auto;
        max-height: 10;
        margin: 0 1;
        padding: 0 1;
        border: none;
        background: $surface;
        text-wrap: nowrap;
        text-overflow: ellipsis;
        &.-shown { display: block; }
        & > .option-list--option-highlighted {  /* the prompt has the focus, not the menu */
            color: $block-cursor-foreground;
            background: $block-cursor-background;
            text-style: $block-cursor-text-style;
        }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.can_focus = False
        self.token: Token | None = None
        self.candidates: list[Candidate] = []

    @property
    def shown(self) -> bool:
        return self.has_class("-shown")

    def show(self, token: Token, candidates: list[Candidate]) -> None:
        """Offer ``candidates`` for ``token`` (hides the menu when there are none)."""
        if not candidates:
            self.hide()
            return
        same = self.shown and [c.value for c in candidates] == [c.value for c in self.candidates]
        self.token = token
        if same:
            return  # keep the highlight while the user types on
        self.candidates = list(candidates)
        width = max(NAME_WIDTH, *(cell_len(c.label) + 2 for c in candidates))
        self.set_options(
            Option(
                Content.assemble(
                    (c.label.ljust(width - cell_len(c.label) + len(c.label)), "bold"),
                    (c.description, "$text-muted"),
                )
            )
            for c in candidates
        )
        self.highlighted = 0
        self.add_class("-shown")

    def hide(self) -> None:
        self.token = None
        self.candidates = []
        if self.shown:
            self.remove_class("-shown")
            self.clear_options()

    def move(self, delta: int) -> None:
        if not self.candidates:
            return
        current = self.highlighted or 0
        self.highlighted = (current + delta) % len(self.candidates)

    def current(self) -> Candidate | None:
        """The highlighted candidate."""
        if not self.shown or not self.candidates:
            return None
        index = self.highlighted or 0
        return self.candidates[index] if index < len(self.candidates) else None

    @property
    def labels(self) -> list[str]:
        """The labels shown (tests)."""
        return [c.label for c in self.candidates]
