"""The frame the modal dialogs share (rewind, resume, /permissions): a bordered box in the
middle of a dimmed screen, a bold title, lists without borders that end in an ellipsis, muted
key hints. Each dialog styles only what is its own."""

from __future__ import annotations

from typing import TypeVar

from textual.screen import ModalScreen

from tui.screens.paced import PacedScreen

ResultType = TypeVar("ResultType")


class Dialog(ModalScreen[ResultType], PacedScreen):
    """A modal screen whose ``Vertical(classes="dialog")`` is the box; children with the
    classes ``dialog-title`` and ``dialog-keys`` are the title and the key hints."""

    DEFAULT_CSS = """
    Dialog {
        align: center middle;
        background: $background 60%;
    }
    Dialog > .dialog {
        width: 96;
        max-width: 100%;
        height: auto;
        max-height: 100%;
        padding: 0 1;
        border: round $primary;
        background: $surface;
        & > .dialog-title { text-style: bold; color: $text; }
        & > .dialog-keys { color: $text-muted; }
        & > OptionList {
            height: auto;
            max-height: 20;
            border: none;
            padding: 0;
            background: $surface;
            text-wrap: nowrap;
            text-overflow: ellipsis;
        }
    }
    """
