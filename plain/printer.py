"""Printing above the prompt: lines are collected, then written in one go per loop turn.

While prompt-toolkit's prompt is on screen, a write goes through ``run_in_terminal``: the
prompt is erased, the lines are printed, the prompt is drawn again below them. Without a
running prompt (between two prompts, or in line mode) they are written directly. Either way
every line ends with a newline and the stream is flushed after each write.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import TextIO


class Printer:
    """Ordered, batched output to ``stream``.

    Args:
        stream: where the text goes (stdout, or a StringIO in tests).
    """

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self._pending: list[str] = []
        self._scheduled = False

    def lines(self, lines: Iterable[str]) -> None:
        """Print ``lines`` (each gets its newline) as soon as the prompt allows."""
        added = False
        for line in lines:
            self._pending.append(line + "\n")
            added = True
        if added:
            self._schedule()

    def _schedule(self) -> None:
        if self._scheduled:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.flush()
            return
        self._scheduled = True
        loop.call_soon(self._flush_soon)

    def _flush_soon(self) -> None:
        from prompt_toolkit.application import get_app_or_none, run_in_terminal

        app = get_app_or_none()
        if app is not None and app.is_running:
            run_in_terminal(self.flush)
        else:
            self.flush()

    def flush(self) -> None:
        """Write everything pending now."""
        self._scheduled = False
        if not self._pending:
            return
        text = "".join(self._pending)
        self._pending.clear()
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):
            pass  # the terminal went away; nothing to tell it
