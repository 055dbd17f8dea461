"""One subagent's whole transcript, read-only (from its Agent block, or the resume picker).

It shows ``frontend.subagent_transcripts.transcript_view`` of the child's file, its tool
calls drawn as the main view draws calls (``call_header``: the state's mark, the name in
bold, the summary; the result behind a bar), not in another style. While the
file does not record the child's end, the screen re-reads it whenever it is written (a
``FollowScreen``: the kernel tells it, no polling); it stops once the end is recorded. A
reader at the bottom stays at the bottom as lines arrive. Esc or q closes it; nothing here
changes the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.content import Content

from frontend.subagent_transcripts import CallView, Summary, child_path, transcript_view
from frontend.tool_summary import is_problem
from tui.screens.follow import FollowScreen, Shown
from tui.widgets.conversation.tool_call import call_header

if TYPE_CHECKING:
    from textual.app import App
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


class SubagentTranscriptScreen(FollowScreen):
    """A child's transcript, scrollable and read-only; re-read while the child runs.

    Args:
        path: the child's transcript file.
        title: who the child is (``Explore a1b2c3``).
        summary: tool call summaries (default: the built-in tools').
    """

    def __init__(self, path: Path, title: str, summary: Summary | None = None) -> None:
        super().__init__("subagent-transcript")
        self.path = path
        self.title_text = title
        self.summary = summary

    def followed(self) -> tuple[Path, str] | None:
        return self.path.parent, self.path.name

    def opens_at_bottom(self, shown: Shown) -> bool:
        """A running child opens at its newest lines, a finished one at its start."""
        return not shown.ended

    def shown(self) -> Shown:
        view = transcript_view(self.path, self.summary)
        body = Content("\n").join(entry_content(entry) for entry in view.entries)
        state = "finished" if view.ended else "running: updates as it goes"
        return Shown(f"{self.title_text} · transcript (read-only, {state})", body, view.ended)
