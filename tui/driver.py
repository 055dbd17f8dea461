"""The terminal driver: Textual's own, except that quitting does not wait for its input thread.

Textual's ``LinuxDriver.disable_input`` joins the thread that reads keys, and that thread only
looks at its stop flag between ``select(0.1)`` calls, then selects once more for 0.1 s after
unregistering the terminal: 0.1-0.2 s of every exit (bench/bench_quit.py). When the app is
quitting (no longer running), the flag is set and the thread left to notice it by itself: the
process ends with ``os._exit`` right after (cli/main.py), and the thread is not needed to restore
the terminal. While the app runs (suspending it for an editor), Textual's join is kept: the
thread must be gone before input is enabled again.
"""

from __future__ import annotations

import signal
import termios

from textual.drivers.linux_driver import LinuxDriver


class QuickExitDriver(LinuxDriver):
    """LinuxDriver whose input thread is told to stop, not waited for, when the app quits."""

    def disable_input(self) -> None:
        if getattr(self._app, "_running", True) or self.exit_event.is_set():
            super().disable_input()
            return
        try:
            signal.signal(signal.SIGWINCH, signal.SIG_DFL)
            self._disable_mouse_support()
            self.exit_event.set()  # left set: the thread stops at its next select
            termios.tcflush(self.fileno, termios.TCIFLUSH)  # keys typed meanwhile: dropped
        except Exception:  # as Textual's: a terminal that is gone has nothing to restore
            pass
