"""The resume picker (``eddy --resume`` without an id, or /resume).

The project's sessions, most recently active first: title or first prompt, then when it was
last active, its turns, its cost and its rewinds. Typing filters; Enter resumes the highlighted
session (dismisses with its id), Esc dismisses with None.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from frontend.wording import first_line
from tools.textfile import plural
from tui.screens.dialog import Dialog

if TYPE_CHECKING:
    from textual.app import ComposeResult

    from agent.store.listing import SessionInfo

UNITS = (("year", 365 * 86400), ("month", 30 * 86400), ("day", 86400), ("hour", 3600))


def ago(then: float | None, now: float) -> str:
    """How long ago ``then`` was, in words: "just now", "3 min ago", "2 days ago"."""
    if then is None:
        return "unknown time"
    seconds = max(0.0, now - then)
    if seconds < 60:
        return "just now"
    for unit, size in UNITS:
        if seconds >= size:
            n = int(seconds // size)
            return f"{n} {unit}{'s' if n != 1 else ''} ago"
    return f"{int(seconds // 60)} min ago"


def name_of(info: SessionInfo) -> str:
    """What the picker calls a session: its title, else its first prompt."""
    return info.title or info.first_prompt or "(no prompt yet)"


def session_label(info: SessionInfo, now: float) -> Content:
    """Two lines: the session's name, then its activity, turns, cost, rewinds and id."""
    facts = [
        ago(info.last_activity, now),
        plural(info.turns, "turn"),
        f"${info.total_cost_usd:.2f}",
    ]
    if info.rewinds:
        facts.append(f"↻ {plural(info.rewinds, 'rewind')}")
    if info.subagents:
        facts.append(plural(info.subagents, "subagent"))
    facts.append(info.session_id[:8])
    return Content.assemble(
        (first_line(name_of(info), 200), "bold"),
        "\n",
        ("  " + " · ".join(facts), "dim"),
    )


class ResumeScreen(Dialog[str | None]):
    """Pick a session to resume; dismisses with its id, or None.

    Args:
        sessions: ``agent.store.listing.list_sessions(cwd)``.
        now: the current time (epoch seconds) for "3 min ago"; tests fix it.
    """

    DEFAULT_CSS = """
    ResumeScreen > #resume-dialog {
        & > #resume-filter {
            margin-top: 1;
            border: none;
            height: 1;
            padding: 0 1;
            background: $background;
        }
        & > #resume-options {
            max-height: 24;
            margin: 1 0 0 0;
            & > .option-list--option-highlighted {  /* the filter has the focus, not the list */
                color: $block-cursor-foreground;
                background: $block-cursor-background;
                text-style: $block-cursor-text-style;
            }
        }
        & > #resume-empty { color: $text-muted; margin-top: 1; }
        & > #resume-keys { margin-top: 1; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "cancel", show=False),
        Binding("up", "move('up')", show=False),
        Binding("down", "move('down')", show=False),
        Binding("pageup", "move('page_up')", show=False),
        Binding("pagedown", "move('page_down')", show=False),
    ]

    def __init__(self, sessions: Sequence[SessionInfo], *, now: float | None = None) -> None:
        super().__init__()
        self.sessions = sorted(sessions, key=lambda s: s.last_activity or 0.0, reverse=True)
        self.now = time.time() if now is None else now
        self._filter = Input(placeholder="Type to filter by title or prompt", id="resume-filter")
        self._options = OptionList(id="resume-options")
        self._empty = Static(id="resume-empty")

    def compose(self) -> ComposeResult:
        with Vertical(id="resume-dialog", classes="dialog"):
            yield Static("Resume a session", id="resume-title", classes="dialog-title")
            yield self._filter
            yield self._options
            yield self._empty
            yield Static(
                "↑/↓ choose · Enter resume · Esc cancel", id="resume-keys", classes="dialog-keys"
            )

    def on_mount(self) -> None:
        self._options.can_focus = False  # the filter keeps the focus; arrows move the list
        self._refill("")
        self._filter.focus()

    def matching(self, text: str) -> list[SessionInfo]:
        """The sessions whose title or first prompt contains ``text`` (any case)."""
        needle = text.strip().casefold()
        return [
            s
            for s in self.sessions
            if needle in (s.title or "").casefold() or needle in (s.first_prompt or "").casefold()
        ]

    def _refill(self, text: str) -> None:
        shown = self.matching(text)
        self._options.set_options(
            Option(session_label(s, self.now), id=s.session_id) for s in shown
        )
        self._options.display = bool(shown)
        if shown:
            self._options.highlighted = 0
        self._empty.update(
            "No session matches." if self.sessions else "No earlier sessions in this project."
        )
        self._empty.display = not shown

    @on(Input.Changed, "#resume-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._refill(event.value)

    @on(Input.Submitted, "#resume-filter")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        index = self._options.highlighted
        if index is not None and self._options.option_count:
            self.dismiss(self._options.get_option_at_index(index).id)

    @on(OptionList.OptionSelected, "#resume-options")
    def _clicked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_move(self, how: str) -> None:
        getattr(self._options, f"action_{'cursor_' if how in ('up', 'down') else ''}{how}")()

    def action_cancel(self) -> None:
        self.dismiss(None)
