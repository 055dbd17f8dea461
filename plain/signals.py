"""Signals in plain mode: Ctrl+C in line mode (no prompt to catch it), SIGTERM and SIGHUP."""

from __future__ import annotations

import asyncio
import signal
from typing import Any


def catch_sigint(app: Any) -> None:
    """Line mode: Ctrl+C stops the running turn, or ends the session when idle."""

    def on_sigint() -> None:
        if app.busy:
            app.interrupt()
        else:
            app.request_exit()

    _handle(signal.SIGINT, on_sigint)


def catch_termination(app: Any) -> None:
    """SIGTERM and SIGHUP end the session like Ctrl+D: a running turn interrupted, the
    session saved, the terminal left in its normal modes; the exit status is 143 / 129."""

    def on_signal(code: int) -> None:
        app.exit_code = code
        if app.busy:
            app.interrupt()
        app.request_exit()

    _handle(signal.SIGTERM, on_signal, 143)
    _handle(signal.SIGHUP, on_signal, 129)


def _handle(signum: int, callback: Any, *args: Any) -> None:
    try:
        asyncio.get_running_loop().add_signal_handler(signum, callback, *args)
    except (NotImplementedError, RuntimeError, ValueError):
        pass  # not the main thread, or a platform without them
