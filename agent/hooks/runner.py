"""Running hook handlers: child processes in their own process group, in parallel.

Each handler runs as ``/bin/sh -c COMMAND`` (as Claude Code runs it on Linux and macOS: Node's
``shell: true``), so inline code, pipelines and assignments mean what the shell makes of them and
the exit status is the shell's. It runs in the project directory, as the leader of a new
session (so of a new process group, and with no controlling terminal), with the event's JSON
on stdin and ``CLAUDE_PROJECT_DIR`` / ``EDDY_PROJECT_DIR`` in its environment (eddy's own,
minus its secrets: ``tools.childenv``). A handler that outlives its timeout, or whose caller
is cancelled (Esc), has its whole group killed; nothing it started survives it.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.hooks.config import HookHandler, missing_script
from tools import procgroup
from tools.childenv import child_env

MAX_STREAM_CHARS = 200_000
"""What is kept of one stream of one handler (the model sees far less: see outcome.py)."""


@dataclass(frozen=True)
class HandlerRun:
    """How one handler ran.

    Attributes:
        exit_code: the exit status, or None when it did not exit by itself (timeout, could
            not start, killed by a signal: ``error`` says which).
        error: why it did not run or finish normally; empty for an ordinary exit.
        timed_out: it was killed at its timeout.
        missing: the script it names does not exist.
    """

    handler: HookHandler
    exit_code: int | None
    stdout: str
    stderr: str
    duration_ms: int
    error: str = ""
    timed_out: bool = False
    missing: bool = False

    @property
    def failed(self) -> bool:
        """Timed out, crashed, could not start, or exited with a status other than 0 and 2."""
        return bool(self.error) or self.exit_code not in (0, 2)


def _text(data: bytes) -> str:
    text = data.decode("utf-8", errors="replace")
    if len(text) > MAX_STREAM_CHARS:
        text = text[:MAX_STREAM_CHARS] + f"\n[... {len(text) - MAX_STREAM_CHARS} more characters]"
    return text


async def run_handler(
    handler: HookHandler, payload: dict[str, Any], project_dir: Path
) -> HandlerRun:
    """Run one handler on ``payload``; never raises except CancelledError (after the kill)."""
    start = time.monotonic()

    def elapsed() -> int:
        return int((time.monotonic() - start) * 1000)

    env = child_env(
        {
            "CLAUDE_PROJECT_DIR": str(project_dir),
            "EDDY_PROJECT_DIR": str(project_dir),
            **dict(handler.env),  # a plugin's CLAUDE_PLUGIN_ROOT, CLAUDE_PLUGIN_DATA
        }
    )
    data = json.dumps(payload, ensure_ascii=False).encode()
    missing = missing_script(handler.command, project_dir) is not None
    try:
        proc = await procgroup.start(  # Esc while it starts: its whole group goes too
            asyncio.create_subprocess_shell(
                handler.command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                cwd=project_dir,
                env=env,
                start_new_session=True,
            )
        )
    except OSError as exc:
        return HandlerRun(
            handler, None, "", "", elapsed(), f"could not start: {exc}", missing=missing
        )
    try:
        # asyncio.timeout, not wait_for: 3.11's wait_for can swallow a cancellation that
        # comes as its inner wait wakes, and Esc then waited for the hook to end by itself
        async with asyncio.timeout(handler.timeout):
            out, err = await proc.communicate(data)
    except TimeoutError:
        await procgroup.kill_group_shielded(proc)
        procgroup.finished(proc)
        why = f"timed out after {handler.timeout:g} s and was killed"
        return HandlerRun(handler, None, "", "", elapsed(), why, timed_out=True, missing=missing)
    except asyncio.CancelledError:
        await procgroup.kill_group_shielded(proc)  # Esc: the whole group goes
        procgroup.finished(proc)
        raise
    procgroup.finished(proc)
    procgroup.note_survivors(proc)
    code = proc.returncode
    stdout, stderr = _text(out), _text(err)
    if code is not None and code < 0:
        return HandlerRun(handler, None, stdout, stderr, elapsed(), f"killed by signal {-code}")
    if missing:  # a plain path to no file: whatever the status (python3 exits 2 for it)
        why = "its script does not exist"
        return HandlerRun(handler, code, stdout, stderr, elapsed(), why, missing=True)
    return HandlerRun(handler, code, stdout, stderr, elapsed())


async def run_handlers(
    handlers: Sequence[HookHandler], payload: dict[str, Any], project_dir: Path
) -> list[HandlerRun]:
    """Run ``handlers`` in parallel on the same payload; their runs in the handlers' order.

    Cancelling it kills every handler still running (each its own group).
    """
    if not handlers:
        return []
    if len(handlers) == 1:
        return [await run_handler(handlers[0], payload, project_dir)]
    tasks = [asyncio.ensure_future(run_handler(h, payload, project_dir)) for h in handlers]
    try:
        return list(await asyncio.gather(*tasks))
    except asyncio.CancelledError:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
