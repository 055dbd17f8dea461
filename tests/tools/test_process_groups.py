"""Process groups (tools/procgroup.py): a command's group is killed whole however it is stopped,
even while it is being started, and even when its kill is itself cancelled."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from pathlib import Path

import pytest

from tests.helpers.starting import cancelled_as_it_starts, group_gone
from tools import procgroup
from tools.shellproc import PipeReader, spawn_in_group


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="needs Linux's /proc")
async def test_a_command_cancelled_while_it_starts_is_killed_with_its_whole_group(
    tmp_path: Path,
) -> None:
    fifo = tmp_path / "started"
    os.mkfifo(fifo)
    # what the leader starts at once stays in its group, as bubblewrap's pid 1 of a sandbox
    # does until it is set up
    argv = ["sh", "-c", f"sleep 300 & echo $$ > {fifo}; wait"]
    assert await cancelled_as_it_starts(spawn_in_group(argv, tmp_path), fifo), (
        "the cancelled command's background sleep is still running"
    )


async def test_a_kill_cancelled_in_its_grace_period_still_kills_the_group(
    tmp_path: Path,
) -> None:
    ready, got_term = asyncio.Event(), asyncio.Event()

    def on_text(text: str) -> None:
        if "ready\n" in text:
            ready.set()
        if "term\n" in text:
            got_term.set()

    script = "trap 'echo term' TERM; echo ready; while :; do sleep 300 & wait; done"
    proc, read_fd = await spawn_in_group(["sh", "-c", script], tmp_path)
    pgid = proc.pid
    reader = PipeReader(read_fd, on_text)
    try:
        await asyncio.wait_for(ready.wait(), 30)
        kill = asyncio.ensure_future(procgroup.kill_group(proc))
        await asyncio.wait_for(got_term.wait(), 30)  # SIGTERM sent: the grace period runs
        assert not kill.done()
        kill.cancel()  # as the end of the event loop cancels what is left of it
        with pytest.raises(asyncio.CancelledError):
            await kill
        assert await group_gone(pgid), "the group outlived its cancelled kill"
    finally:
        reader.close()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGKILL)
        procgroup.finished(proc)
