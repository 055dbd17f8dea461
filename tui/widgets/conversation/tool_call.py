"""One tool call, keyed by its call id: name, one-line summary, live state, result.

States: pending -> (asking) -> running -> done | failed | refused | interrupted. The result is
collapsed to a few lines and expands on click (or ctrl+o for all). Edit/Write/MultiEdit show
their diff, TodoWrite its task list, Bash its output live as it streams.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

from frontend.images import image_result_line
from frontend.sanitize import sanitize
from frontend.tool_summary import (
    clip_lines,
    diff_counts,
    is_problem,
    result_text,
    state_mark,
    state_word,
)
from tui.widgets.conversation.ansi_content import ansi_content
from tui.widgets.conversation.diff_view import render_diff
from tui.widgets.conversation.todo_list import render_todos

COLLAPSED_LINES = 4
"""Result lines shown before the user expands a block."""
EXPANDED_MAX_LINES = 400
"""Even expanded, a block shows at most this many lines (the DOM stays bounded)."""
STREAM_TAIL_LINES = 6
"""Lines of live output shown while a command runs."""
KEEP_CHARS = 200_000
"""Streamed output kept per call (the model's result is capped by the tool anyway)."""
DIFF_COLLAPSED_LINES = 24

STATE_STYLES = {
    "pending": "$text-muted",
    "asking": "bold $text-warning",
    "running": "$text-accent",
    "done": "$text-success",
    "failed": "$text-error",
    "refused": "$text-warning",
    "interrupted": "$text-warning",
}
"""The mark's style in each state (the marks and words are frontend/tool_summary.py's)."""
_QUIET = ("pending", "done")
"""States whose word the header leaves out: the mark says enough."""


def call_header(state: str, name: str, summary: str, tail: str = "") -> Content:
    """A tool call's header line: its state's mark, its name in bold, its summary, and
    ``tail`` muted (the state's word, the time it took). Subagents' calls in their
    transcript screen are drawn with it too: one style for a call wherever it shows."""
    return Content.assemble(
        (state_mark(state) + " ", STATE_STYLES.get(state, "")),
        (name, "bold"),
        ("  " + summary if summary else "", ""),
        ("  " + tail if tail else "", "$text-muted"),
    )


def fit_rows(lines: list[str], rows: int, width: int) -> tuple[list[str], int, int]:
    """The start of ``lines`` that fills at most ``rows`` screen rows at ``width`` cells (a
    20,000-character line is one logical line but hundreds of rows), its last line cut if
    need be; returns it, the lines left out and the characters cut from the last one."""
    width = max(1, width)
    shown: list[str] = []
    for n, line in enumerate(lines):
        if rows <= 0:
            return shown, len(lines) - n, 0
        need = max(1, -(-len(line) // width))
        if need > rows:
            shown.append(line[: rows * width])
            return shown, len(lines) - n - 1, len(line) - rows * width
        shown.append(line)
        rows -= need
    return shown, 0, 0


def _clip(lines: list[str], limit: int, note: str, width: int | None = None) -> Content:
    shown, hidden = clip_lines(lines, limit)
    cut = 0
    if width:  # collapsed: by screen rows, not by logical lines
        shown, more, cut = fit_rows(shown, limit, width)
        hidden += more
    body = ansi_content("\n".join(shown))
    if cut:
        body = body + Content.styled(f"… +{cut:,} characters", "$text-muted")
    if hidden:
        body = body + Content.styled(f"\n… +{hidden} lines {note}", "$text-muted")
    elif cut and note:
        body = body + Content.styled(f" {note}", "$text-muted")
    return body


class ToolCallBlock(Vertical):
    """A tool call in the conversation.

    Args:
        call_id: the tool_use id (the block's key).
        name: the tool name.
        summary: the one-line summary of the input (path, command, pattern).
        clock: the app's clock (frozen in snapshot tests).
    """

    state: reactive[str] = reactive("pending", init=False)
    expanded: reactive[bool] = reactive(False, init=False)

    def __init__(self, call_id: str, name: str, summary: str, clock: Callable[[], float]) -> None:
        super().__init__(classes="tool-call")
        self.call_id = call_id
        self.tool_name = name
        self.summary = sanitize(summary)  # a file name or command may carry escapes
        self._clock = clock
        self._started_at: float | None = None
        self._ended_at: float | None = None
        self._output: list[str] = []
        self._output_len = 0
        self._result: str | None = None
        self.is_error = False
        self.display_data: dict[str, Any] | None = None
        self._body_scheduled = False
        self._timer: Any = None
        self._header = Static(classes="tool-header")
        self._body = Static(classes="tool-body")

    def compose(self) -> ComposeResult:
        yield self._header
        yield self._body

    def on_mount(self) -> None:
        self._render_header()
        self._render_body()

    @property
    def output(self) -> str:
        """Streamed output received so far."""
        return "".join(self._output)

    @property
    def result_text(self) -> str | None:
        return self._result

    # -- engine events --------------------------------------------------------------------
    def set_asking(self) -> None:
        self.state = "asking"

    def set_running(self) -> None:
        self._started_at = self._clock()
        self.state = "running"
        if self.is_mounted:
            self._timer = self.set_interval(1.0, self._render_header)

    def add_output(self, text: str) -> None:
        if self._output_len < KEEP_CHARS:
            self._output.append(text)
            self._output_len += len(text)
        self._schedule_body()

    def finish(
        self, status: str, content: Any, is_error: bool, display: dict[str, Any] | None
    ) -> None:
        """The call ended: show its final state and result."""
        self._ended_at = self._clock()
        self._result = result_text(content)
        self.is_error = is_error
        self.display_data = display
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.state = status
        self._schedule_body()

    # -- rendering ------------------------------------------------------------------------
    def watch_state(self, state: str) -> None:
        self.set_class(is_problem(state), "problem")
        self._render_header()

    def watch_expanded(self, expanded: bool) -> None:
        self.set_class(expanded, "-expanded")  # the header shows the whole command
        self._render_body()

    def on_click(self) -> None:
        self.expanded = not self.expanded

    def _elapsed(self) -> str:
        if self._started_at is None:
            return ""
        end = self._ended_at if self._ended_at is not None else self._clock()
        secs = int(end - self._started_at)
        return f"{secs}s" if secs >= 1 else ""

    def _render_header(self) -> None:
        label = "" if self.state in _QUIET else state_word(self.state)
        tail = " · ".join(p for p in (label, self._elapsed()) if p)
        self._header.update(call_header(self.state, self.tool_name, self.summary, tail))

    def _schedule_body(self) -> None:
        if not self._body_scheduled and self.is_mounted:
            self._body_scheduled = True
            self.call_later(self._render_body)

    def _render_body(self) -> None:
        self._body_scheduled = False
        body = self._body_content()
        self._body.display = body is not None
        if body is not None:
            self._body.update(body)

    def _body_content(self) -> Content | None:
        display = self.display_data or {}
        if self._result is None:
            if not self._output:
                return None
            # cleaned before it is cut into lines: a progress bar's \r or a cursor movement
            # must neither start a line nor reach the terminal
            raw = self.output.split("\n")[-2 * STREAM_TAIL_LINES :]
            tail = sanitize("\n".join(raw), keep_sgr=True).splitlines()[-STREAM_TAIL_LINES:]
            width = self._width()
            tail = [line[-STREAM_TAIL_LINES * width :] for line in tail]  # a huge line's end
            return ansi_content("\n".join(tail)).stylize_before("$text-muted")
        if display.get("kind") == "diff" and not self.is_error:
            return self._diff_body(display)
        if display.get("kind") == "todos" and not self.is_error:
            return render_todos(display.get("todos") or [])
        if display.get("kind") == "image" and not self.is_error:
            return Content.styled(image_result_line(display), "$text-muted")
        if self.tool_name == "Read" and not self.is_error and not self.expanded:
            n = len(self._result.splitlines())
            read = f"Read {n} line{'' if n == 1 else 's'}" if n else "Read an empty file"
            return Content.styled(f"{read}  (click to show)", "$text-muted")
        lines = sanitize(self._result, keep_sgr=True).splitlines() or [""]
        if self.expanded:
            shown = _clip(lines, EXPANDED_MAX_LINES, "")
        else:
            shown = _clip(lines, COLLAPSED_LINES, "(click to expand)", self._width())
        return shown.stylize_before("$text-error") if self.is_error else shown

    def _width(self) -> int:
        """The cells a body line has (the screen's, less the gutter, before layout)."""
        width = self._body.content_size.width if self._body.is_mounted else 0
        if width <= 0:
            width = (self.app.size.width if self.is_attached else 100) - 6
        return max(20, width)

    def _diff_body(self, display: dict[str, Any]) -> Content:
        path = sanitize(str(display.get("path") or ""))
        verb = "Created" if display.get("created") else "Updated"
        name = path.rsplit("/", 1)[-1] if path else self.summary
        head = Content.styled(f"{verb} {name} ({diff_counts(display)})\n", "$text-muted")
        limit = EXPANDED_MAX_LINES if self.expanded else DIFF_COLLAPSED_LINES
        return head + render_diff(sanitize(str(display.get("diff", ""))), path or None, limit)
