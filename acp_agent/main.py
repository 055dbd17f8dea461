"""``eddy --acp``: serve the Agent Client Protocol on stdin/stdout until the client hangs up.

stdout carries protocol lines only (frontend/stdio.py ``protect_stdout``); logs go to stderr.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
from collections.abc import Callable
from typing import Any

from frontend.launch import LaunchOptions
from frontend.stdio import protect_stdout, stdin_reader


class _Drain(asyncio.Protocol):
    """Flow control for the protocol's write pipe (``StreamWriter.drain`` waits on it), and
    the news that the client closed its end of it (the loop watches a pipe's write end for
    that on Linux and macOS), so a client that stops reading is noticed before eddy writes."""

    def __init__(self) -> None:
        self._paused = False
        self._resumed: asyncio.Future[None] | None = None
        self.on_lost: Callable[[], None] = lambda: None

    def connection_lost(self, exc: Exception | None) -> None:
        self.resume_writing()  # a drain waiting on a dead pipe returns (the write fails)
        self.on_lost()

    def pause_writing(self) -> None:
        self._paused = True

    def resume_writing(self) -> None:
        self._paused = False
        if self._resumed is not None and not self._resumed.done():
            self._resumed.set_result(None)

    async def _drain_helper(self) -> None:
        if self._paused:
            self._resumed = asyncio.get_running_loop().create_future()
            await self._resumed


class _FileTransport(asyncio.WriteTransport):
    """Writes straight to a file descriptor that is not a pipe (stdout redirected to a file),
    where the event loop's pipe transport refuses to work."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd
        self._closing = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        view = memoryview(bytes(data))
        while view and not self._closing:
            view = view[os.write(self._fd, view) :]

    def is_closing(self) -> bool:
        return self._closing

    def close(self) -> None:
        self._closing = True

    def get_write_buffer_size(self) -> int:
        return 0


async def streams(
    protocol_fd: int, on_lost: Callable[[], None] = lambda: None
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """The client's messages (stdin) and the way back to it (the saved stdout); ``on_lost``
    is called when the client closes its end of the way back."""
    loop = asyncio.get_running_loop()
    reader = await stdin_reader()
    drain = _Drain()
    drain.on_lost = on_lost
    transport: asyncio.WriteTransport
    try:
        pipe = os.fdopen(protocol_fd, "wb", buffering=0, closefd=False)
        transport, _ = await loop.connect_write_pipe(lambda: drain, pipe)
    except ValueError:  # not a pipe
        transport = _FileTransport(protocol_fd)
    return reader, asyncio.StreamWriter(transport, drain, None, loop)


async def serve(options: LaunchOptions, protocol_fd: int, model_factory: Any = None) -> None:
    """Run the agent until the client hangs up (stdin ends, or its end of stdout closes);
    then close every session: running tools are killed, transcripts saved."""
    import acp

    from acp_agent.server import EddyAgent
    from acp_agent.wire import LineTransport

    agent = EddyAgent(options, model_factory)
    lost = asyncio.Event()  # the client closed stdout's read end (set before the wire exists)
    reader, writer = await streams(protocol_fd, on_lost=lost.set)
    # the package's own stdio reader ends on one line that is JSON but not an object: eddy's
    # transport answers odd lines itself and hands on only JSON-RPC messages
    wire = LineTransport(reader, writer, lost)
    try:
        await acp.run_agent(agent, wire)  # type: ignore[arg-type]
    finally:
        await agent.close()


def run_acp(options: LaunchOptions) -> int:
    """``eddy --acp``; returns the exit status (0 when the client closed the connection)."""
    protocol_fd = protect_stdout()
    logging.basicConfig(stream=sys.stderr, format="eddy-acp %(levelname)s %(name)s: %(message)s")
    logging.getLogger("eddy.acp").setLevel(os.environ.get("EDDY_ACP_LOG", "INFO").upper())
    try:
        asyncio.run(serve(options, protocol_fd))
    except KeyboardInterrupt:
        return 130
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    # everything is saved: skip the SDK's slow interpreter teardown (see headless/run.py)
    os._exit(0)
