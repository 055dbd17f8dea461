"""Running a command as its own process group with its output on one pipe, read from the event
loop: what the Bash tool's foreground calls and the session's background shells
(agent/session/shells.py) share."""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
from collections.abc import Callable
from pathlib import Path

from tools import procgroup
from tools.base import ToolError
from tools.childenv import child_env

DRAIN_S = 0.25
"""After the shell exits, how long to wait for the end of its output (background jobs)."""
_READ = 1 << 16
_READS_PER_WAKEUP = 16
_F_SETPIPE_SZ = 1031
ENV_EXTRA = {
    "EDDY": "1",
    "GIT_EDITOR": "true",
    "PAGER": "cat",
    "GIT_PAGER": "cat",
    "GIT_TERMINAL_PROMPT": "0",
}
"""Added to the inherited environment (secrets removed, see :mod:`tools.childenv`): no
editor or pager may wait for a terminal."""


async def spawn_in_group(argv: list[str], cwd: Path) -> tuple[asyncio.subprocess.Process, int]:
    """Start ``argv`` as the leader of a new process group, stdout and stderr on one pipe, no
    stdin; the process and the pipe's read end (for a :class:`PipeReader`). Foreground calls
    and background shells (agent/session/shells.py) start their commands the same way.
    Cancelled meanwhile, the group is killed whole (:func:`tools.procgroup.start`).

    Raises:
        ToolError: the command could not be started.
    """
    read_fd, write_fd = os.pipe()
    try:
        proc = await procgroup.start(_create(argv, cwd, write_fd))
    except OSError as exc:
        os.close(read_fd)
        raise ToolError(f"Could not start the shell: {exc}") from None
    except BaseException:
        os.close(read_fd)
        raise
    return proc, read_fd


async def _create(argv: list[str], cwd: Path, write_fd: int) -> asyncio.subprocess.Process:
    """The process, in a new session; the pipe's write end is closed here once it is
    started (not by the caller: a cancelled caller returns before the process starts)."""
    try:
        return await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=write_fd,
            stderr=write_fd,
            cwd=cwd,
            env=child_env(ENV_EXTRA),
            start_new_session=True,
        )
    finally:
        os.close(write_fd)


class PipeReader:
    """Reads a non-blocking pipe from the event loop, handing decoded text to ``on_text``."""

    def __init__(self, fd: int, on_text: Callable[[str], None]) -> None:
        self.fd = fd
        self.on_text = on_text
        self.eof: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._loop = asyncio.get_running_loop()
        os.set_blocking(fd, False)
        with contextlib.suppress(OSError):
            import fcntl

            fcntl.fcntl(fd, _F_SETPIPE_SZ, 1 << 20)  # fewer wake-ups for chatty commands
        self._loop.add_reader(fd, self._readable)

    def _readable(self) -> None:
        for _ in range(_READS_PER_WAKEUP):
            try:
                data = os.read(self.fd, _READ)
            except BlockingIOError:
                return
            except OSError:
                data = b""
            if not data:
                self._emit(self._decoder.decode(b"", final=True))
                self._loop.remove_reader(self.fd)
                if not self.eof.done():
                    self.eof.set_result(None)
                return
            self._emit(self._decoder.decode(data))

    def _emit(self, text: str) -> None:
        if text:
            self.on_text(text)

    def close(self) -> None:
        """Stop reading and close the pipe (a writer left behind gets EPIPE)."""
        self._loop.remove_reader(self.fd)
        with contextlib.suppress(OSError):
            os.close(self.fd)
        if not self.eof.done():
            self.eof.cancel()
