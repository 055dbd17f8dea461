"""A background shell's output, live (``/bashes ID``, ``/tasks ID``): read-only.

It shows ``frontend.bashes.shell_view`` of the shell (its id, status and command, then the last
lines of its output, read from its log without consuming what BashOutput has not read yet),
and shows it again whenever the log file is written (a ``FollowScreen``: the kernel tells it,
no polling) and when the shell ends; then it stops following. It watches the log's folder
for the log's name, so a log made after the screen opened (at the first output) is followed
too. Esc or q closes it; nothing here touches the shell.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from textual.content import Content

from frontend.bashes import shell_view
from tools.shellproc import DRAIN_S
from tools.spool import output_folder
from tui.screens.follow import FollowScreen, Shown


class ShellOutputScreen(FollowScreen):
    """One background shell's output, scrollable; followed while the shell runs.

    Args:
        shell: the session's ``BackgroundShell``.
    """

    def __init__(self, shell: Any) -> None:
        super().__init__("shell-output")
        self.shell = shell

    async def wait_for_end(self) -> bool:
        """The shell's exit is no write of its log: it is shown when it comes, with what its
        pipe still held (read until its end, at most ``DRAIN_S`` more)."""
        await self.shell.done.wait()
        reader = self.shell.reader
        if reader is not None:
            await asyncio.wait({reader.eof}, timeout=DRAIN_S)
        return True

    def followed(self) -> tuple[Path, str] | None:
        """The log's folder, and the start of its file's name: known before the file is
        made (at the first output), and it names that file alone (``bash_1-<id>.txt``)."""
        log = self.shell.log
        if log.path is not None:
            return log.path.parent, f"{log.prefix}-"
        try:
            return output_folder(log.directory), f"{log.prefix}-"
        except OSError:
            return None

    def shown(self) -> Shown:
        lines = shell_view(self.shell)
        running = self.shell.status == "running"
        state = "running: updates as it prints" if running else "ended"
        title = f"Background shell {self.shell.id} · output (read-only, {state})"
        return Shown(title, Content("\n".join(lines)), not running)
