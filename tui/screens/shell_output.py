"""A background shell's output, live (``/bashes ID``, ``/tasks ID``): read-only.

It shows ``frontend.bashes.shell_view`` of the shell (its id, status and command, then the last
lines of its output, read from its log without consuming what BashOutput has not read yet).
While the shell runs, the screen checks every ``POLL_SECONDS`` whether its log grew or its
status changed (a few attribute reads per tick: bounded work, however much it prints) and then
shows it again; it stops checking once the shell has ended. A reader at the bottom stays at the
bottom as lines arrive. Esc or q closes it; nothing here touches the shell.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Static

from frontend.bashes import shell_view
from tui.screens.dialog import Dialog

if TYPE_CHECKING:
    from textual.app import ComposeResult
    from textual.timer import Timer

POLL_SECONDS = 0.5
"""How often a running shell's log is checked for new output."""


class ShellOutputScreen(Dialog[None]):
    """One background shell's output, scrollable; followed while the shell runs.

    Args:
        shell: the session's ``BackgroundShell``.
    """

    DEFAULT_CSS = """
    ShellOutputScreen > #shell-output {
        width: 100%;
        height: 100%;
        & > #shell-output-scroll { height: 1fr; margin-top: 1; }
        & > #shell-output-keys { margin-top: 1; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "close", show=False),
        Binding("q", "close", "close", show=False),
    ]

    def __init__(self, shell: Any) -> None:
        super().__init__()
        self.shell = shell
        self.lines: list[str] = []
        """What the screen shows, as plain lines."""
        self._seen: tuple[int, str] | None = None
        self._timer: Timer | None = None
        self._title = Static(id="shell-output-title", classes="dialog-title")
        self._body = Static(id="shell-output-body")
        self._scroll = VerticalScroll(self._body, id="shell-output-scroll")

    def compose(self) -> ComposeResult:
        with Vertical(id="shell-output", classes="dialog"):
            yield self._title
            yield self._scroll
            yield Static(
                "↑/↓ PgUp/PgDn scroll · Esc or q close",
                id="shell-output-keys",
                classes="dialog-keys",
            )

    def on_mount(self) -> None:
        self.reread()
        self._scroll.focus()
        if self.shell.status == "running":
            self._timer = self.set_interval(POLL_SECONDS, self._poll)

    def _stamp(self) -> tuple[int, str]:
        return self.shell.log.fed, self.shell.status

    def _poll(self) -> None:
        if self._stamp() != self._seen:
            self.reread()

    def reread(self) -> None:
        """Show the shell again; stop following it once it has ended."""
        self._seen = self._stamp()
        at_bottom = not self.lines or self._scroll.scroll_y >= self._scroll.max_scroll_y
        self.lines = shell_view(self.shell)
        running = self.shell.status == "running"
        state = "running: updates as it prints" if running else "ended"
        self._title.update(f"Background shell {self.shell.id} · output (read-only, {state})")
        self._body.update(Content("\n".join(self.lines)))
        if at_bottom:
            self.call_after_refresh(self._scroll.scroll_end, animate=False)
        if not running and self._timer is not None:
            self._timer.stop()
            self._timer = None

    def action_close(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.dismiss(None)
