"""Catching a command while it is being started: the event loop turns until a child process
runs, and no further, so that a cancellation lands while asyncio still waits for the start;
then the process group it leaves is awaited (used by the process-group and hook tests)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import select
import time
from pathlib import Path

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
