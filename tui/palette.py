"""eddy's slash commands in the command palette (Ctrl+P), before Textual's own entries.

A command that needs an argument (``/rename TITLE``) is put in the prompt to be completed;
the others run at once, as if typed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from textual.app import SystemCommand

from frontend.commands import BUILTINS

if TYPE_CHECKING:
    from tui.app import EddyApp

NEEDS_ARGUMENT = frozenset({"rename", "budget", "turns"})
"""Commands that do nothing useful without an argument: the palette types them instead."""


def slash_commands(app: EddyApp) -> Iterator[SystemCommand]:
    """One palette entry per built-in slash command (its /help description)."""
    for name, description in BUILTINS.items():
        yield SystemCommand(f"/{name}", description, _action(app, name))


def _action(app: EddyApp, name: str) -> Callable[[], None]:
    def run() -> None:
        prompt = app.main.prompt
        if name in NEEDS_ARGUMENT:
            prompt.load_quietly(f"/{name} ")
            prompt.move_cursor(prompt.document.end)
            prompt.focus()
        else:
            app.run_command(f"/{name}")

    return run
