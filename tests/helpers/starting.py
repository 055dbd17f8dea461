"""Catching a command while it is being started: the event loop turns until a child process
runs, and no further, so that a cancellation lands while asyncio still waits for the start;
then the process group it leaves is awaited (used by the process-group and hook tests)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import select
import signal
import time
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

from tools import procgroup


def child_running(marker: str) -> bool:
    """Whether a child of this process runs a command line with ``marker`` in it."""
    for tid in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{tid}/children") as f:
            pids = f.read().split()
        for pid in pids:
            with contextlib.suppress(OSError), open(f"/proc/{pid}/cmdline", "rb") as f:
                if marker.encode() in f.read():
                    return True
    return False


async def until_started(marker: str, seconds: float = 30.0) -> None:
    """Turn the event loop one step at a time until a child with ``marker`` runs."""
    deadline = time.monotonic() + seconds
    while not child_running(marker):
        assert time.monotonic() < deadline, f"no child with {marker} started"
        await asyncio.sleep(0)


def read_line(fifo: Path, seconds: float = 30.0) -> str:
    """The first line written into ``fifo``, read while the event loop stands still ("" if
    nothing comes within ``seconds``)."""
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        data = b""
        while b"\n" not in data:
            if not select.select([fd], [], [], seconds)[0]:
                break
            chunk = os.read(fd, 100)
            if not chunk:
                break
            data += chunk
        return data.decode().split("\n")[0]
    finally:
        os.close(fd)


async def group_gone(pgid: int, seconds: float = 10.0) -> bool:
    """Wait until group ``pgid`` is empty (its members reparented to us reaped)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while loop.time() < deadline:
        procgroup.reap_group(pgid)
        if not procgroup.group_alive(pgid):
            return True
        await asyncio.sleep(0.02)
    return False


async def cancelled_as_it_starts(start: Awaitable[Any], fifo: Path) -> bool:
    """Cancel ``start`` (a command that writes its shell's pid, its group's, into ``fifo``)
    while asyncio still waits for its start; whether its whole group was then gone. The group
    is killed on the way out whatever the answer, so a failing test leaves nothing behind."""
    task = asyncio.ensure_future(start)
    await until_started(str(fifo))
    pgid = int(read_line(fifo) or 0)  # the loop stands still: the start is pending
    assert pgid, "the command did not say its pid"
    try:
        task.cancel()  # asyncio's own clean-up of the start kills the leader's pid alone
        try:
            await task
        except asyncio.CancelledError:
            pass
        else:
            raise AssertionError("the start ended before it could be cancelled")
        return await group_gone(pgid)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGKILL)
