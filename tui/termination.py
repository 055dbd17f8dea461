"""SIGTERM and SIGHUP in the TUI: end the app as /exit does, and put the terminal back.

The signal handling itself is shared (frontend/termination.py); what is the TUI's own is how
the app exits on a signal and how the terminal is restored from a thread when the app is stuck.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.app import App


def handle_signals(app: App[Any]) -> None:
    """SIGTERM (kill, a shutdown) and SIGHUP (the terminal closed) end the app the way
    /exit does: the session closed and saved, the terminal restored (no alternate screen
    or mouse reporting left behind, which the default action of either signal would do),
    the exit status 143 / 129. If that hangs (closing the session waits on something
    stuck), a second signal or a few seconds end the process anyway (frontend/termination.py),
    the terminal first put back by ``restore`` below unless Textual has done it already."""
    from frontend.termination import handle_termination

    def on_signal(code: int) -> None:
        app.exit(code, return_code=code)

    def restore() -> None:
        # What the Linux driver's stop_application_mode undoes, done directly: that method
        # writes through the driver's writer thread (the bytes would be lost to os._exit,
        # or wait behind a stuck queue) and joins its input thread. This runs in a thread
        # while the main one may be stuck anywhere, so only os.write and termios.
        driver = app._driver
        if driver is None or driver.is_headless:
            return
        keys = getattr(driver, "_key_thread", None)
        if (keys is None and not app._running) or (keys is not None and not keys.is_alive()):
            return  # Textual left application mode already (it does before on_unmount)
        attrs = getattr(driver, "attrs_before", None)
        if attrs is not None:
            import termios

            termios.tcsetattr(getattr(driver, "fileno"), termios.TCSANOW, attrs)  # noqa: B009
        out: Any = getattr(driver, "_file", None) or sys.__stderr__  # Textual draws on stderr
        os.write(
            out.fileno(),
            b"\x1b[?2026l"  # end a synchronized update a frame may have begun
            b"\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1015l\x1b[?1006l\x1b[?1016l"  # mouse
            b"\x1b[?2004l\x1b[?1004l\x1b[?2048l"  # bracketed paste, focus, resize reports
            b"\x1b[?7h"  # line wrap back on
            b"\x1b[<u"  # kitty keyboard protocol popped, before leaving the alt screen
            b"\x1b[?1049l\x1b[?25h",  # main screen, cursor shown
        )

    handle_termination(on_signal, restore=restore)
