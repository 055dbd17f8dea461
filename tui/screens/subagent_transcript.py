"""One subagent's whole transcript, read-only (from its Agent block, or the resume picker).

It shows ``frontend.subagent_transcripts.transcript_view`` of the child's file, its tool
calls drawn as the main view draws calls (``call_header``: the state's mark, the name in
bold, the summary; the result behind a bar), not in another style. While the
file does not record the child's end, the screen re-reads it whenever the file changed,
checked every ``POLL_SECONDS`` (one ``stat`` per tick: bounded work, whatever the child does);
it stops checking once the end is recorded. A reader at the bottom stays at the bottom as
lines arrive. Esc or q closes it; nothing here changes the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Static

from frontend.subagent_transcripts import CallView, Summary, child_path, transcript_view
from frontend.tool_summary import is_problem
from tui.screens.dialog import Dialog
from tui.widgets.conversation.tool_call import call_header

if TYPE_CHECKING:
    from textual.app import App, ComposeResult
    from textual.timer import Timer

POLL_SECONDS = 0.5
"""How often a running child's file is checked for changes."""
_NOTES = {
    "running": "no result yet: still running, or eddy stopped before it finished",
    "unknown": "no result recorded",
}
"""What a call without a result says after its summary."""


def call_content(call: CallView) -> Content:
    """A child's tool call as the main view draws one: its header, then its result's lines
    behind the bar of a tool block's body (red for a problem, as there)."""
    header = call_header(call.state, call.name, call.summary, _NOTES.get(call.state, ""))
    problem = is_problem(call.state)
    bar = Content.styled("▏ ", "$error" if problem else "$panel")
    text = "$text-error" if call.state == "failed" else ""
    lines = [bar + Content.styled(" " + line, text) for line in call.result]
    return Content("\n").join([header, *lines])


def entry_content(entry: str | CallView) -> Content:
    """One entry of a transcript view (Content: no markup in the child's text is parsed)."""
    return call_content(entry) if isinstance(entry, CallView) else Content(entry)


def running_child_path(app: App[Any], agent_id: str) -> Path | None:
    """The transcript of child ``agent_id`` of the app's session (None: it is not saved)."""
    transcript = getattr(getattr(app, "session", None), "transcript", None)
    path = getattr(transcript, "path", None)
    return child_path(path, agent_id) if isinstance(path, Path) else None


def session_summary(app: App[Any]) -> Summary | None:
    """Tool call summaries by the app's session's own tools (MCP tools included)."""
    runner = getattr(getattr(app, "session", None), "runner", None)
    tools = getattr(runner, "tools", None)
    if not isinstance(tools, dict):
        return None

    def summary(name: str, call_input: dict[str, Any]) -> str:
        tool = tools.get(name)
        return str(tool.summary(call_input)) if tool is not None else ""

    return summary


def open_transcript(app: App[Any], path: Path, title: str) -> None:
    """Show the transcript at ``path`` (a subagent called ``title``) over the current screen."""
    app.push_screen(SubagentTranscriptScreen(path, title, session_summary(app)))


class SubagentTranscriptScreen(Dialog[None]):
    """A child's transcript, scrollable and read-only; re-read while the child runs.

    Args:
        path: the child's transcript file.
        title: who the child is (``Explore a1b2c3``).
        summary: tool call summaries (default: the built-in tools').
    """

    DEFAULT_CSS = """
    SubagentTranscriptScreen > #subagent-transcript {
        width: 100%;
        height: 100%;
        & > #subagent-transcript-scroll { height: 1fr; margin-top: 1; }
        & > #subagent-transcript-keys { margin-top: 1; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "close", show=False),
        Binding("q", "close", "close", show=False),
    ]

    def __init__(self, path: Path, title: str, summary: Summary | None = None) -> None:
        super().__init__()
        self.path = path
        self.title_text = title
        self.summary = summary
        self.lines: list[str] = []
        """What the screen shows, as plain lines."""
        self.ended = False
        """The file records the child's end: it is not re-read any more."""
        self._seen: tuple[int, int] | None = None
        self._timer: Timer | None = None
        self._title = Static(id="subagent-transcript-title", classes="dialog-title")
        self._body = Static(id="subagent-transcript-body")
        self._scroll = VerticalScroll(self._body, id="subagent-transcript-scroll")

    def compose(self) -> ComposeResult:
        with Vertical(id="subagent-transcript", classes="dialog"):
            yield self._title
            yield self._scroll
            yield Static(
                "↑/↓ PgUp/PgDn scroll · Esc or q close",
                id="subagent-transcript-keys",
                classes="dialog-keys",
            )

    def on_mount(self) -> None:
        self.reread()
        self._scroll.focus()
        if not self.ended:
            self._timer = self.set_interval(POLL_SECONDS, self._poll)

    def _stamp(self) -> tuple[int, int] | None:
        try:
            st = self.path.stat()
        except OSError:
            return None
        return st.st_size, st.st_mtime_ns

    def _poll(self) -> None:
        if self._stamp() != self._seen:
            self.reread()

    def reread(self) -> None:
        """Read the file again and show it; stop re-reading once the child's end is in it."""
        first = not self.lines
        self._seen = self._stamp()
        view = transcript_view(self.path, self.summary)
        # a running child opens at its newest lines, a finished one at its start; then a
        # reader at the bottom follows what arrives
        at_bottom = self._scroll.scroll_y >= self._scroll.max_scroll_y
        if first:
            at_bottom = not view.ended
        shown = Content("\n").join(entry_content(entry) for entry in view.entries)
        self.lines, self.ended = shown.plain.split("\n"), view.ended
        state = "finished" if self.ended else "running: updates as it goes"
        self._title.update(f"{self.title_text} · transcript (read-only, {state})")
        self._body.update(shown)
        if at_bottom and self.lines:
            self.call_after_refresh(self._scroll.scroll_end, animate=False)
        if self.ended and self._timer is not None:
            self._timer.stop()
            self._timer = None

    def action_close(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.dismiss(None)
