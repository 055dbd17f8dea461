"""A background shell's output, live (``/bashes ID``, ``/tasks ID``): read-only.

It shows ``frontend.bashes.shell_view`` of the shell (its id, status and command, then the last
lines of its output, read from its log without consuming what BashOutput has not read yet),
and shows it again whenever the log file is written (a ``FollowScreen``: the kernel tells it,
no polling) and when the shell ends; then it stops following. Before the first output the
log has no file yet: the screen watches the folder it will be made in. Esc or q closes it;
nothing here touches the shell.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from textual.content import Content

from frontend.bashes import shell_view
from tools.shellproc import DRAIN_S
from tools.spool import output_folder
from tui.screens.follow import FollowScreen, Shown, name_start


class ShellOutputScreen(FollowScreen):
    """One background shell's output, scrollable; followed while the shell runs.

    Args:
        shell: the session's ``BackgroundShell``.
    """

    def __init__(self, shell: Any) -> None:
        super().__init__("shell-output")
        self.shell = shell
        self._had_file = shell.log.path is not None

    async def wait_for_end(self) -> bool:
        """The shell's exit is no write of its log: it is shown when it comes, with what its
        pipe still held (read until its end, at most ``DRAIN_S`` more)."""
        await self.shell.done.wait()
        reader = self.shell.reader
        if reader is not None:
            await asyncio.wait({reader.eof}, timeout=DRAIN_S)
        return True

    def followed(self) -> tuple[Path, str] | None:
        log = self.shell.log
        if log.path is not None:
            return name_start(log.path)
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

    def reread(self) -> None:
        """Show the shell again; once its log has a file, follow that file alone."""
        super().reread()
        if not self._had_file and self.shell.log.path is not None and not self.ended:
            self._had_file = True
            self.follow()
