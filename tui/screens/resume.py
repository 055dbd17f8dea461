"""The resume picker (``eddy --resume`` without an id, or /resume).

The project's sessions, most recently active first: title or first prompt, then when it was
last active, its turns, its cost and its rewinds; under a session, its subagents (one line
each, ``frontend.subagent_transcripts.child_summaries``). Typing filters the sessions; Enter
resumes the highlighted session (dismisses with its id), or on a subagent opens its transcript
read-only above the picker (a child is not a session: it cannot be resumed); Esc dismisses
with None.
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

from frontend.subagent_transcripts import ChildSummary, child_summaries, hidden_children
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


CHILD_ID = "subagent:"
"""How the options of subagents are told from sessions' (``subagent:<session>:<n>``)."""


def child_label(child: ChildSummary) -> Content:
    """A subagent's line under its session: ``↳ Explore a1b2c3: find the callers · 4 turns``."""
    return Content.assemble(("    ↳ ", "dim"), (first_line(child.line(), 200), "dim"))


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
        self._children: dict[str, list[ChildSummary]] = {}
        """Each session's subagents, read once (only for sessions that have some)."""
        self._options_children: dict[str, ChildSummary] = {}

    def compose(self) -> ComposeResult:
        with Vertical(id="resume-dialog", classes="dialog"):
            yield Static("Resume a session", id="resume-title", classes="dialog-title")
            yield self._filter
            yield self._options
            yield self._empty
            yield Static(
                "↑/↓ choose · Enter resume (on a subagent: its transcript) · Esc cancel"
                if any(s.subagents for s in self.sessions)
                else "↑/↓ choose · Enter resume · Esc cancel",
                id="resume-keys",
                classes="dialog-keys",
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

    def children_of(self, info: SessionInfo) -> list[ChildSummary]:
        """The subagents of ``info``'s session (read on first use)."""
        if not info.subagents:
            return []
        if info.session_id not in self._children:
            self._children[info.session_id] = child_summaries(info.path)
        return self._children[info.session_id]

    def _session_options(self, info: SessionInfo) -> list[Option]:
        options = [Option(session_label(info, self.now), id=info.session_id)]
        for n, child in enumerate(self.children_of(info)):
            key = f"{CHILD_ID}{info.session_id}:{n}"
            self._options_children[key] = child
            options.append(Option(child_label(child), id=key))
        hidden = hidden_children(info.path) if info.subagents else 0
        if hidden:
            more = Content.styled(f"    ↳ … {plural(hidden, 'older subagent')}", "dim")
            options.append(Option(more, disabled=True))
        return options

    def _refill(self, text: str) -> None:
        shown = self.matching(text)
        self._options_children = {}
        self._options.set_options(o for s in shown for o in self._session_options(s))
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
            self._choose(self._options.get_option_at_index(index).id)

    @on(OptionList.OptionSelected, "#resume-options")
    def _clicked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._choose(event.option.id)

    def _choose(self, option_id: str | None) -> None:
        """Resume a session; show a subagent's transcript (the picker stays under it)."""
        child = self._options_children.get(option_id or "")
        if child is None:
            self.dismiss(option_id)
            return
        from tui.screens.subagent_transcript import open_transcript

        open_transcript(self.app, child.path, child.title)

    def action_move(self, how: str) -> None:
        getattr(self._options, f"action_{'cursor_' if how in ('up', 'down') else ''}{how}")()

    def action_cancel(self) -> None:
        self.dismiss(None)
