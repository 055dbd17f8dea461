"""The rewind dialog (Esc Esc on an empty prompt, or /rewind).

Step 1 lists the session's prompts (newest at the bottom, highlighted) with their change
summaries, then the redo entries. Step 2 lists everything the rewind undoes (the chosen prompt
and every later one) and asks what to restore. Step 3, only when code is
restored and the user changed some of those files since eddy last wrote them, asks whether to
overwrite them. The screen only chooses: the app turns the ``RewindChoice`` into
``ops.Rewind``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Literal

from rich.cells import set_cell_size
from textual import on
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from frontend.sanitize import sanitize
from frontend.wording import first_line, rewind_undoes
from tui.screens.dialog import Dialog

if TYPE_CHECKING:
    from textual.app import ComposeResult

    from agent.checkpoints.rewind_list import CheckpointEntry

Mode = Literal["both", "code", "conversation"]

NOTE = "Only local files are restored: databases, API calls or deployments cannot be undone."
PROMPT_WIDTH = 54
MAX_CONFLICTS_SHOWN = 8
MODES: tuple[tuple[str, Mode | None], ...] = (
    ("Restore code and conversation", "both"),
    ("Restore conversation only", "conversation"),
    ("Restore code only", "code"),
    ("Never mind", None),
)
ANSWERS: tuple[tuple[str, str], ...] = (
    ("Yes, overwrite them", "yes"),
    ("No, rewind but leave them alone", "no"),
    ("Cancel", "cancel"),
)
NO_CODE = ("code not tracked", "checkpoint pruned")
"""Summaries (agent/checkpoints/rewind_list.py) of prompts whose code cannot be restored."""


@dataclass(frozen=True)
class RewindChoice:
    """What the user chose: the arguments of ``ops.Rewind``."""

    number: int
    mode: Mode
    overwrite_conflicts: bool = False


def entry_label(entry: CheckpointEntry) -> Content:
    """One line of the list: number, the prompt's first line, its change summary."""
    if entry.redo:
        return Content.assemble(("  ↻ ", "$accent"), (first_line(entry.prompt, 80), "$accent"))
    prompt = first_line(entry.prompt, PROMPT_WIDTH) or "(empty prompt)"
    return Content.assemble(
        (f"{entry.number:>3} ", "dim"),
        set_cell_size(prompt, PROMPT_WIDTH),
        "  ",
        (entry.summary, "dim"),
    )


class RewindScreen(Dialog[RewindChoice | None]):
    """Pick a checkpoint, then what to restore; dismisses with a ``RewindChoice`` or None.

    Args:
        entries: ``Session.checkpoints()``: prompts 1..n, then redo entries.
        conflicts: ``Session.rewind_conflicts``: files the user changed since eddy wrote them.
    """

    DEFAULT_CSS = """
    RewindScreen > #rewind-dialog {
        & > #rewind-detail { color: $text-muted; margin-top: 1; }
        & > #rewind-detail.warning { color: $text-warning; }
        & > #rewind-options { margin: 1 0; }
        & > #rewind-note { color: $text-muted; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "cancel", show=False),
        *(Binding(str(n), f"number({n})", show=False) for n in range(1, 5)),
        Binding("y", "answer('yes')", show=False),
        Binding("n", "answer('no')", show=False),
    ]

    def __init__(
        self, entries: Sequence[CheckpointEntry], conflicts: Callable[[int], list[str]]
    ) -> None:
        super().__init__()
        self.entries = list(entries)
        self.conflicts = conflicts
        self.step: Literal["pick", "mode", "conflicts"] = "pick"
        self.entry: CheckpointEntry | None = None
        self.mode: Mode = "both"
        self._title = Static(id="rewind-title", classes="dialog-title")
        self._detail = Static(id="rewind-detail")
        self._options = OptionList(id="rewind-options")
        self._keys = Static(id="rewind-keys", classes="dialog-keys")

    def compose(self) -> ComposeResult:
        with Vertical(id="rewind-dialog", classes="dialog"):
            yield self._title
            yield self._detail
            yield self._options
            yield Static(NOTE, id="rewind-note")
            yield self._keys

    def on_mount(self) -> None:
        self._show_list()

    # -- steps ----------------------------------------------------------------------------
    def _show(self, title: str, detail: str, options: list[Option | None], keys: str) -> None:
        # prompts and paths are not markup, nor escape sequences
        self._title.update(Content(sanitize(title)))
        self._detail.update(Content(sanitize(detail)))
        self._detail.display = bool(detail)
        self._detail.set_class(self.step == "conflicts", "warning")
        self._options.set_options(options)
        self._keys.update(keys)
        self._options.focus()

    def _show_list(self) -> None:
        self.step = "pick"
        indexed = list(enumerate(self.entries))
        prompts = [Option(entry_label(e), id=f"e{i}") for i, e in indexed if not e.redo]
        redos = [Option(entry_label(e), id=f"e{i}") for i, e in indexed if e.redo]
        options: list[Option | None] = [*prompts, *([None] if prompts and redos else []), *redos]
        detail = "" if self.entries else "No prompts yet: nothing to rewind."
        keys = "↑/↓ choose · Enter select · Esc cancel"
        self._show("Rewind: go back to before which prompt?", detail, options, keys)
        if options:
            self._options.highlighted = len(prompts) - 1 if prompts else len(options) - 1

    def _show_modes(self, entry: CheckpointEntry) -> None:
        self.step = "mode"
        no_code = entry.summary.startswith(NO_CODE)
        options: list[Option | None] = [
            Option(f"{n}. {label}", id=f"m{n}", disabled=no_code and mode in ("both", "code"))
            for n, (label, mode) in enumerate(MODES, 1)
        ]
        title = f"Rewind to before “{first_line(entry.prompt, 70)}”"
        # everything from this prompt on goes back, not only this prompt's own changes
        undone = rewind_undoes(self.entries, entry.number)
        detail = "\n".join(undone) + ("\nOnly the conversation can be restored." * no_code)
        self._show(title, detail, options, "1-4 or ↑/↓ + Enter · Esc cancel")
        self._options.highlighted = 1 if no_code else 0

    def _show_conflicts(self, files: list[str]) -> None:
        self.step = "conflicts"
        shown = [f"  {f}" for f in files[:MAX_CONFLICTS_SHOWN]]
        if len(files) > MAX_CONFLICTS_SHOWN:
            shown.append(f"  … and {len(files) - MAX_CONFLICTS_SHOWN} more")
        many = len(files) != 1
        head = (
            f"{len(files)} file{'s' * many} changed since eddy last wrote {('it', 'them')[many]}:"
        )
        detail = "\n".join([head, *shown])
        options: list[Option | None] = [
            Option(f"{n}. {label}", id=f"a-{answer}")
            for n, (label, answer) in enumerate(ANSWERS, 1)
        ]
        self._show("Overwrite them?", detail, options, "y / n / 1-3 or ↑/↓ + Enter · Esc cancel")
        self._options.highlighted = 1  # the safe answer

    # -- choosing -------------------------------------------------------------------------
    @on(OptionList.OptionSelected, "#rewind-options")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        option_id = event.option.id or ""
        if self.step == "pick":
            self._pick(self.entries[int(option_id[1:])])
        elif self.step == "mode":
            self._choose_mode(MODES[int(option_id[1:]) - 1][1])
        else:
            self.action_answer(option_id[2:])

    def _pick(self, entry: CheckpointEntry) -> None:
        self.entry = entry
        if entry.redo:
            self._choose_mode("both")
        else:
            self._show_modes(entry)

    def _choose_mode(self, mode: Mode | None) -> None:
        if mode is None or self.entry is None:
            self.dismiss(None)
            return
        self.mode = mode
        try:
            files = list(self.conflicts(self.entry.number)) if mode != "conversation" else []
        except Exception:  # safe: the engine still leaves conflicting files alone
            files = []
        if files:
            self._show_conflicts(files)
        else:
            self.dismiss(RewindChoice(self.entry.number, mode))

    def action_number(self, n: int) -> None:
        limit = {"mode": len(MODES), "conflicts": len(ANSWERS)}.get(self.step, 0)
        if 1 <= n <= limit:
            option = self._options.get_option_at_index(n - 1)
            if not option.disabled:
                self._options.highlighted = n - 1
                self._options.action_select()

    def action_answer(self, answer: str) -> None:
        if self.step != "conflicts" or self.entry is None:
            return
        if answer == "cancel":
            self.dismiss(None)
        else:
            self.dismiss(RewindChoice(self.entry.number, self.mode, answer == "yes"))

    def action_cancel(self) -> None:
        self.dismiss(None)
