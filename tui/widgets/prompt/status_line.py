"""The status line: model, mode, context use, cost (and budget), turns (and cap), queue; above
it, while a turn runs, a second line with a spinner, what the turn is doing, elapsed time and
tokens.

The permission mode is coloured when it is not the default: accept edits green, plan mode in
the accent colour, bypassPermissions red (it runs everything without asking)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.content import Content
from textual.geometry import Region
from textual.strip import Strip
from textual.widgets import Static

from frontend.status import StatusModel
from tools.textfile import plural
from tui.widgets.laid_out import LaidOut
from tui.widgets.plain_lines import PlainLines

if TYPE_CHECKING:
    from textual.timer import Timer

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
MODE_STYLES = {
    "acceptEdits": "bold $text-success",
    "plan": "bold $text-accent",
    "bypassPermissions": "bold $text-error",
    "dontAsk": "bold $text-warning",
}
"""How each permission mode shows (default: muted, like the rest of the line)."""


def human_tokens(n: int) -> str:
    """12345 -> 12.3k; 1200000 -> 1.2M."""
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f}M".replace(".0M", "M")
    if n >= 1000:
        return f"{n / 1000:.1f}k".replace(".0k", "k")
    return str(n)


def _one_line(text: str) -> str:
    """``text`` on one line: the status line's height is worked out from its attributes
    before it is built (``refresh_line``), one line for the figures and one for the work; an
    activity such as a multi-line ``!`` command must not add one."""
    return " ".join(text.splitlines()) if "\n" in text or "\r" in text else text


class StatusLine(Static, LaidOut, PlainLines, StatusModel):
    """One line at the very bottom. The app sets its attributes and calls :meth:`refresh_line`.
    Not selectable (its lines are drawn without the offsets selection reads).

    Args:
        clock: the app's clock; a frozen clock (snapshot tests) shows no spinner or time.
        frozen: whether the clock is frozen.
    """

    ALLOW_SELECT = False

    def __init__(self, clock: Callable[[], float], *, frozen: bool = False, id: str | None = None):
        Static.__init__(self, "", id=id, classes="status")
        StatusModel.__init__(self)
        self._clock = clock
        self._frozen = frozen
        self.working_since: float | None = None
        self.turn_tokens = 0
        self._frame = 0
        self._timer: Timer | None = None
        self._height = 0
        self._line: Content | None = None
        """The lines drawn, built from the attributes when next painted (None: not yet)."""
        self.script_lines: list[Content] = []
        """The ``statusLine`` script's lines (frontend/statusline.py), shown below."""

    def show_script(self, lines: list[str]) -> None:
        """Show the status line script's output (its colours as styles)."""
        from tui.widgets.conversation.ansi_content import ansi_content

        self.script_lines = [ansi_content(line) for line in lines]
        self.refresh_line()

    def on_mount(self) -> None:
        self.refresh_line()

    def start_work(self) -> None:
        """A turn started: show the spinner and elapsed time."""
        self.working_since = self._clock()
        self.turn_tokens = 0
        self.activity = "thinking"
        if not self._frozen and self._timer is None:
            self._timer = self.set_interval(0.1, self._tick)
        self.refresh_line()

    def stop_work(self) -> None:
        self.working_since = None
        self.activity = ""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.refresh_line()

    def _tick(self) -> None:
        self._frame += 1
        self.refresh_line()

    def refresh_line(self) -> None:
        """Draw again from the attributes: the lines are built when next painted, once for
        all the changes made meanwhile (a turn's start or end changes them several times in
        one step of the loop). One or two lines, never wrapped: a layout of the whole screen
        (every block of the conversation) only when their number changes, not on every tick
        of the spinner."""
        scripts = sum(1 + line.plain.count("\n") for line in self.script_lines)
        height = 1 + (self.working_since is not None) + scripts
        self._line = None
        self.refresh(layout=height != self._height)
        self._height = height

    def render(self) -> Content:
        if self._line is None:
            self._line = self._build_line()
        return self._line

    def render_lines(self, crop: Region) -> list[Strip]:
        """Its lines, drawn here when each fits in the width and nothing but its padding
        surrounds them (tui/widgets/plain_lines.py: a frame of a turn drew them through
        Textual in 0.4-0.5 ms); else Textual's way (a line too long for the width ends in
        an ellipsis there)."""
        if self.drawn_plain():
            width, style = self.size.width, self.visual_style
            lines = [
                self.quick_strip(line, width, style)
                for line in self.render().split("\n", allow_blank=True)
            ]
            drawn = [line for line in lines if line is not None]
            if len(drawn) == len(lines) >= crop.bottom:
                return self.draw_plain(crop, drawn.__getitem__)
        return super().render_lines(crop)

    def _build_line(self) -> Content:
        """The lines, from the attributes."""
        muted = "$text-muted"
        parts: list[Content] = []
        if self.label:
            parts.append(Content.styled(_one_line(self.label), "bold reverse $text-warning"))
        parts.append(Content.styled(_one_line(self.model), "bold"))
        parts.append(Content.styled(self.mode, MODE_STYLES.get(self.mode, muted)))
        if self.context_window:
            pct = 100 * self.context_tokens / self.context_window
            ctx = f"ctx {human_tokens(self.context_tokens)}/{human_tokens(self.context_window)}"
            parts.append(Content.styled(f"{ctx} ({pct:.0f}%)", muted))
        cost = f"${self.cost:.4f}"
        if self.max_budget is not None:
            cost += f" of ${self.max_budget:.2f} budget"
        parts.append(Content.styled(cost, muted))
        turns = plural(self.turns, "turn")
        if self.max_turns is not None:
            turns += f" (max {self.max_turns} per prompt)"
        parts.append(Content.styled(turns, muted))
        if self.mcp:
            parts.append(Content.styled(_one_line(self.mcp), muted))
        if self.background:
            parts.append(Content.styled(_one_line(self.background), "$accent"))
        if self.queued:
            parts.append(Content.styled(f"{self.queued} queued", "bold $text-warning"))
        line = Content(" · ").join(parts)
        if self.working_since is not None:
            line = self._work_part() + Content("\n") + line
        if self.script_lines:
            line = Content("\n").join([line, *self.script_lines])
        return line

    def _work_part(self) -> Content:
        tokens = f"{human_tokens(self.turn_tokens)} tok" if self.turn_tokens else ""
        if self._frozen:
            text = " ".join(p for p in ("…", self.activity, tokens) if p)
        else:
            assert self.working_since is not None
            spin = SPINNER[self._frame % len(SPINNER)]
            secs = int(self._clock() - self.working_since)
            text = " ".join(p for p in (spin, self.activity, f"{secs}s", tokens) if p)
        return Content.assemble(
            (_one_line(text), "bold $text-accent"), ("  esc to stop", "$text-muted")
        )
