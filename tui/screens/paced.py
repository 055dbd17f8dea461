"""A screen paints what changed as soon as it can, at most 60 frames a second on average.

Textual (8.x) paints a screen's changes from a timer on a fixed grid of 1/60 s, resumed when
the screen goes idle with something to paint and paused by each frame. After a quiet spell
the first frame goes out at once; the timer then finds its grid behind and skips ahead to a
tick one to two periods away, so the next change waits 17-33 ms for its frame even with the
loop idle. That is the frame after a prompt is sent (its block shows a period late), the key
echoed right after another frame, and the last frame of a streamed answer (measured: the
loop idle for 5-28 ms between a 20,000-token answer's last write and its frame, on a stream
of 70 ms).

``PacedScreen`` replaces that timer with a ``FramePacer``: a frame is painted on the loop's
next turn after it is asked for, unless ``BURST`` frames were painted in the last ``BURST``
periods; then it waits for the credit to grow back (a token bucket filled at 60 frames a
second). A burst of changes still becomes one frame (Textual asks once per idle screen),
and a steady stream of changes is painted at 60 frames a second, as before.

A frame also lets the work that is ready to run go first, for at most ``YIELD_S``: after
Enter, the request to the model is built and sent in a dozen steps of the event loop, and
the prompt's frames (6 ms: the prompt cleared, its block mounted and laid out) went out
between them, so the request left 10 ms later than with no screen (measured against the
fake Messages API: the socket write at 12.7 ms after Enter instead of 3.0). Painted once
the loop waits for the network, those frames cost the request nothing. A loop that always
has work ready (an answer streaming at full speed) still gets a frame within ``YIELD_S``
of its asking, and keys typed meanwhile are echoed as fast as before the change allowed
(a frame a period at most).

Work can wait for that moment too (``before_frame``): what the screen does with the events
the engine emits just before a request leaves (a prompt's block, an answer's, mounted) ran
between the steps that build and send it, and held the request back 2.5 ms (Textual's
messages about the new widgets ran there too); done once the loop waits for the network, it
costs the request nothing, and the frame that shows it still follows it.

It is the LAST base of a screen class (``class MainScreen(CompletingScreen, PacedScreen)``),
as Textual's CSS follows the first base only.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from textual.screen import UPDATE_PERIOD, Screen

if TYPE_CHECKING:
    from collections.abc import Callable

BURST = 3
"""Frames that may follow one another at once after a quiet spell."""
YIELD_S = UPDATE_PERIOD
"""How long at most a frame waits for the loop's other ready work to run before it."""


def others_ready(loop: asyncio.AbstractEventLoop) -> bool:
    """Whether the loop has callbacks ready to run now besides the one running (asyncio's
    own loop keeps them in ``_ready``; another loop is taken as idle)."""
    return bool(getattr(loop, "_ready", None))


class FramePacer:
    """When a screen's next frame is painted: the ``pause`` / ``resume`` of the Textual
    timer it replaces (a frame pauses it; an idle screen with changes resumes it)."""

    def __init__(
        self,
        paint: Callable[[], None],
        period: float = UPDATE_PERIOD,
        burst: int = BURST,
        yield_s: float | None = None,
    ) -> None:
        self._paint = paint
        self._period = period
        self._burst = burst
        self._yield_s = YIELD_S if yield_s is None else yield_s
        self._asked = 0.0
        """When the frame to paint was asked for (loop time)."""
        self._credit = float(burst)
        """Frames that may be painted at once, as of ``_at`` (loop time)."""
        self._at = 0.0
        self._handle: asyncio.TimerHandle | None = None
        self._frame = False
        """Whether a frame was asked for (``resume``) and not painted or called off yet."""
        self._work: list[Callable[[], None]] = []
        """Work to do before the next frame, once the loop has nothing else ready."""

    def credit(self, now: float) -> float:
        """How many frames may be painted at once at ``now`` (loop time)."""
        return min(self._burst, self._credit + (now - self._at) / self._period)

    def wait(self, now: float) -> float:
        """Seconds from ``now`` until a frame may be painted."""
        credit = self.credit(now)
        return 0.0 if credit >= 1 else (1 - credit) * self._period

    @property
    def due(self) -> float | None:
        """The loop time of the frame asked for, or None when none is."""
        return None if self._handle is None else self._handle.when()

    def resume(self) -> None:
        """Paint a frame as soon as the credit allows (once, however often it is asked)."""
        self._frame = True
        if self._handle is None:
            loop = asyncio.get_running_loop()
            now = self._asked = loop.time()
            self._handle = loop.call_at(now + self.wait(now), self._fire)

    def before_frame(self, work: Callable[[], None]) -> None:
        """Do ``work`` once the loop has nothing else ready to run (``yield_s`` from now at
        most), before the next frame; the frame then waits for what the work started."""
        self._work.append(work)
        loop = asyncio.get_running_loop()
        now = loop.time()
        if self._handle is not None and self._handle.when() <= now:
            return  # the frame's wait for the loop: the work goes first
        if self._handle is not None:  # a frame waiting for its credit: the work does not
            self._handle.cancel()
        self._asked = now
        self._handle = loop.call_at(now, self._fire)

    def pause(self) -> None:
        """No frame after all (one was just painted, by a frame or a layout); work still
        waiting is done as planned."""
        self._frame = False
        if self._handle is not None and not self._work:
            self._handle.cancel()
            self._handle = None

    def painted(self, now: float) -> None:
        """Count a frame painted at ``now`` (loop time) against the credit."""
        self._credit = self.credit(now) - 1
        self._at = now

    def _fire(self) -> None:
        loop = asyncio.get_running_loop()
        now = loop.time()
        if others_ready(loop) and now - self._asked < self._yield_s:
            # after the work ready now (and what the network brought meanwhile)
            self._handle = loop.call_at(now, self._fire)
            return
        self._handle = None
        if self._work:
            work, self._work = self._work, []
            for item in work:
                item()
            if self._frame:  # the frame asked for, after what the work started
                self.resume()
            return
        if not self._frame:  # called off meanwhile (a layout painted it)
            return
        self._frame = False
        self.painted(now)
        self._paint()


class PacedScreen(Screen[Any]):
    """The last base of a screen whose frames a ``FramePacer`` paces (see the module note)."""

    _pacer: FramePacer | None = None

    @property
    def frames(self) -> FramePacer:
        """What paces this screen's frames."""
        if self._pacer is None:
            self._pacer = FramePacer(self._paint_frame)
        return self._pacer

    @property
    def _update_timer(self) -> FramePacer:  # type: ignore[override]
        # Textual's screen asks its update timer for frames through this property alone
        return self.frames

    def _paint_frame(self) -> None:
        """The frame, as Textual's timer would paint it: not once the app exits or the
        screen is closed; an error in it ends the app with the error shown, as there."""
        app = self.app
        if app._exit or not self.is_running:
            return
        try:
            self._on_timer_update()
        except Exception as error:  # the same handling as Textual's timer tick
            app._handle_exception(error)
