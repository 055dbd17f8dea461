"""Red-team helpers: bubblewrap checks, sandboxed tool contexts, process probes, a canary server
(fixtures: tests/security/conftest.py)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent.sandbox.config import SandboxSettings
from agent.sandbox.detect import availability
from agent.sandbox.runner import Sandbox
from tools.base import Grant, ToolContext, ToolResult
from tools.bash import BashTool

needs_bwrap = pytest.mark.skipif(
    availability().backend != "bwrap", reason="bubblewrap is not available here"
)
"""Tests that run commands under bubblewrap (CI installs it: .ci/run)."""


def sandboxed_ctx(workspace: Path, **settings: Any) -> ToolContext:
    """A tool context with the session's sandbox (``settings``: SandboxSettings fields)."""
    return ToolContext(workspace, sandbox=Sandbox(SandboxSettings(**settings)))


async def run_bash(
    ctx: ToolContext, command: str, grant: Grant | None, *, timeout_ms: int | None = None
) -> ToolResult:
    """Run ``command`` through the Bash tool as the gate would with ``grant``."""
    args: dict[str, Any] = {"command": command}
    if timeout_ms is not None:
        args["timeout"] = timeout_ms
    return await BashTool().run(args, ctx.for_call(lambda _t: None, grant))


def processes_with(marker: str, bwrap: bool = False) -> list[int]:
    """Pids whose command line contains ``marker`` (this process aside). ``bwrap``: the
    sandbox's own bubblewrap processes too, whose ``--chdir`` (the test's directory under
    /tmp/pytest-of-...) names pytest; else a command line naming pytest is passed over."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in cmdline and (bwrap or "pytest" not in cmdline):
            found.append(int(entry))
    return found


async def _poll(
    marker: str, done: Callable[[list[int]], bool], seconds: float, bwrap: bool
) -> list[int]:
    """The processes carrying ``marker`` once ``done`` holds for them (or ``seconds`` pass):
    other processes' command lines are read from /proc, with no event to wait on."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not done(found := processes_with(marker, bwrap=bwrap)) and loop.time() < deadline:
        await asyncio.sleep(0.02)
    return found


async def wait_shown(
    marker: str, count: int, seconds: float = 10.0, *, bwrap: bool = False
) -> list[int]:
    """Wait until ``count`` processes carry ``marker`` (or ``seconds`` pass): one just forked
    may be mid-exec, when its command line reads empty."""
    return await _poll(marker, lambda found: len(found) >= count, seconds, bwrap)


async def wait_gone(marker: str, seconds: float = 10.0, *, bwrap: bool = False) -> list[int]:
    """Wait until no process carries ``marker`` (or ``seconds`` pass); the survivors, which
    are killed so that a failing test leaves none behind."""
    left = await _poll(marker, lambda found: not found, seconds, bwrap)
    for pid in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return left


class CanaryServer:
    """A TCP server on 127.0.0.1 that counts connections (a command reaching it = network)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            conn.sendall(b"CANARY-NET\n")
            conn.close()

    def close(self) -> None:
        self.sock.close()
