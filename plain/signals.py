"""Signals in plain mode: Ctrl+C in line mode (no prompt to catch it), SIGTERM and SIGHUP."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Callable
from typing import Any

from frontend.termination import Termination, handle_termination


def catch_sigint(app: Any) -> None:
    """Line mode: Ctrl+C stops the running turn, or ends the session when idle."""

    def on_sigint() -> None:
        if app.busy:
            app.interrupt()
        else:
            app.request_exit()

    _handle(signal.SIGINT, on_sigint)


def catch_termination(app: Any) -> Termination:
    """SIGTERM and SIGHUP end the session like Ctrl+D: a running turn interrupted, the
    session saved, the terminal left in its normal modes; the exit status is 143 / 129. If
    that hangs, a second signal or a few seconds end the process anyway (frontend/termination.py),
    with the terminal's settings as they were here, before any prompt switched them."""

    def on_signal(code: int) -> None:
        app.exit_code = code
        if app.busy:
            app.interrupt()
        app.request_exit()

    restore = _terminal_restorer() if getattr(app, "interactive", False) else None
    return handle_termination(on_signal, restore=restore)


def _terminal_restorer() -> Callable[[], None] | None:
    """Put the terminal back as it is now (prompt-toolkit's raw mode undone, bracketed paste
    off, the cursor shown), for a hard exit that skips prompt-toolkit's own clean-up. Written
    with os.write and termios only: it runs in a thread while the main one may hold locks."""
    try:
        import termios
    except ImportError:  # Windows: no termios, and no SIGTERM handler to need it either
        return None
    try:
        fd = sys.__stdin__.fileno() if sys.__stdin__ is not None else -1
        attrs = termios.tcgetattr(fd) if fd >= 0 and os.isatty(fd) else None
        out = sys.__stdout__.fileno() if sys.__stdout__ is not None else -1
    except (OSError, ValueError, termios.error):
        return None

    def restore() -> None:
        if attrs is not None:
            termios.tcsetattr(fd, termios.TCSANOW, attrs)
        if out >= 0 and os.isatty(out):
            os.write(out, b"\x1b[?2004l\x1b[?25h\r\n")

    return restore


def _handle(signum: int, callback: Any, *args: Any) -> None:
    try:
        asyncio.get_running_loop().add_signal_handler(signum, callback, *args)
    except (NotImplementedError, RuntimeError, ValueError):
        pass  # not the main thread, or a platform without them
