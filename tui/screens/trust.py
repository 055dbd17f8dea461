"""The question at the first start in a folder: do you trust its files? (agent/settings/trust.py)

Yes (Enter on the first choice, or 1) trusts the folder and the session starts; No (2, or
Esc) ends eddy before anything of the project is read. Dismisses with True or False.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from tui.screens.dialog import Dialog

if TYPE_CHECKING:
    from textual.app import ComposeResult


class TrustScreen(Dialog[bool]):
    """Ask whether the files of ``folder`` are trusted."""

    DEFAULT_CSS = """
    TrustScreen > #trust-dialog {
        & > #trust-folder { color: $text-accent; }
        & > #trust-risk { margin-top: 1; }
        & > #trust-grants { margin-top: 1; color: $text-warning; }
        & > #trust-options { margin-top: 1; }
        & > #trust-keys { margin-top: 1; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "answer(False)", "exit", show=False),
        Binding("1", "answer(True)", show=False),
        Binding("2", "answer(False)", show=False),
    ]

    def __init__(self, folder: Path) -> None:
        super().__init__()
        from agent.settings.trust import question

        self.lines = question(folder)

    def compose(self) -> ComposeResult:
        title, folder, risk, *grants = self.lines
        with Vertical(id="trust-dialog", classes="dialog"):
            yield Static(title, id="trust-title", classes="dialog-title")
            yield Static(folder, id="trust-folder")
            yield Static(risk, id="trust-risk")
            if grants:
                yield Static("\n".join(grants), id="trust-grants")
            yield OptionList(
                Option("1. Yes, I trust this folder", id="yes"),
                Option("2. No, exit", id="no"),
                id="trust-options",
            )
            yield Static(
                "↑/↓ or 1/2 choose · Enter confirm · Esc exit",
                id="trust-keys",
                classes="dialog-keys",
            )

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = 0
        options.focus()

    @on(OptionList.OptionSelected, "#trust-options")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
