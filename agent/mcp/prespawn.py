"""A stdio server's process started before the MCP SDK is imported, and its transport.

``eddy -p`` waits for its servers before the first request, and importing the SDK (``import
mcp``: its types are pydantic models) is CPU-bound Python that no thread overlaps. A server
process spawned before that import starts on the other core while eddy imports; the
connection's first start then runs the SDK's ``ClientSession`` over this process's pipes
instead of spawning one (:func:`adopted`). What crosses the pipes is the SDK's: each line is
read with its JSON-RPC message adapter, each message written with its serialiser, as its
``stdio_client`` does; and the process ends the way that transport ends one (stdin closed,
then SIGTERM to its process group, then SIGKILL), each step with a deadline.

A reconnect spawns through the SDK's ``stdio_client`` as usual: only the first start of a
session's server is early.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import signal
import subprocess
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, TextIO

from agent.mcp.config import ServerConfig

INHERITED_ENV = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER")
"""The variables a server inherits, as the SDK's ``get_default_environment`` on POSIX (a test
holds the two together); the server's own ``env`` comes on top."""
EXIT_WAIT = 2.0
"""Seconds a server may take to exit once its stdin closed (the SDK's grace period), and
again after SIGTERM before SIGKILL."""
READ_CHUNK = 1 << 16


def server_environment(config: ServerConfig) -> dict[str, str]:
    """The environment of ``config``'s process (what the SDK's ``stdio_client`` gives it)."""
    env = {
        k: v
        for k in INHERITED_ENV
        if (v := os.environ.get(k)) is not None and not v.startswith("()")
    }
    return env | dict(config.env)


@dataclass
class Spawned:
    """A server process started early, with its stderr log (closed with the transport).

    Attributes:
        process: the process, or None when it could not start.
        log: the server's log file: its stderr, and what the SDK says about it.
        error: why it could not start (raised by the first start, as the SDK's spawn would).
    """

    process: subprocess.Popen[bytes] | None
    log: TextIO
    error: OSError | None = None

    def kill(self) -> None:
        """End a process no connection took (the session closed before it started)."""
        if self.process is not None and self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(EXIT_WAIT)
        self.log.close()


def spawn(config: ServerConfig, log: TextIO) -> Spawned:
    """Start ``config``'s process now (stdin and stdout piped, stderr to ``log``), in a session
    of its own (its process group is ended with it), as the SDK's ``stdio_client`` starts it."""
    try:
        process = subprocess.Popen(
            [config.command, *config.args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            env=server_environment(config),
            start_new_session=True,
        )
    except OSError as exc:
        return Spawned(None, log, exc)
    return Spawned(process, log)


@contextlib.asynccontextmanager
async def adopted(spawned: Spawned) -> AsyncIterator[tuple[Any, Any]]:
    """The SDK's two streams over ``spawned``'s pipes (as ``stdio_client`` yields them): items
    read are ``SessionMessage``s, or the exception a line that is not one raised; the process
    is ended on the way out (on the MCP loop). The log is the caller's to close."""
    import anyio

    if spawned.process is None:
        assert spawned.error is not None
        raise spawned.error
    process = spawned.process
    assert process.stdin is not None and process.stdout is not None
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=READ_CHUNK)
    read_in, read_out = anyio.create_memory_object_stream[Any](0)
    write_in, write_out = anyio.create_memory_object_stream[Any](0)
    stdout: asyncio.ReadTransport | None = None
    stdin: asyncio.WriteTransport | None = None
    try:
        stdout, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), process.stdout
        )
        stdin, _ = await loop.connect_write_pipe(asyncio.Protocol, process.stdin)
        async with anyio.create_task_group() as tg:
            tg.start_soon(_read_lines, reader, read_in)
            tg.start_soon(_write_messages, write_out, stdin)
            try:
                yield read_out, write_in
            finally:
                tg.cancel_scope.cancel()
    finally:  # also when cancelled before the pipes were connected: the process ends
        with anyio.CancelScope(shield=True):
            (stdin or process.stdin).close()
            await _ended(process)
            (stdout or process.stdout).close()


def _parsed(line: str) -> Any:
    """A line of the server's as the SDK's ``stdio_client`` reads it: a ``SessionMessage``, or
    the exception (the connection's watch sorts it out, agent/mcp/transport.py)."""
    import mcp_types
    from mcp.shared.message import SessionMessage

    try:
        message = mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValueError as exc:
        return exc
    return SessionMessage(message)


async def _read_lines(reader: asyncio.StreamReader, read_in: Any) -> None:
    """The server's stdout, a message a line, into ``read_in``; its end (the process's stdout
    closed) closes ``read_in``, which ends the session."""
    import anyio

    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    buffer = ""
    with contextlib.suppress(OSError, anyio.ClosedResourceError, anyio.BrokenResourceError):
        async with read_in:
            while chunk := await reader.read(READ_CHUNK):
                *lines, buffer = (buffer + decoder.decode(chunk)).split("\n")
                for line in lines:
                    await read_in.send(_parsed(line))


async def _write_messages(write_out: Any, stdin: asyncio.WriteTransport) -> None:
    """The session's messages, a line each, to the server's stdin (the SDK's serialiser)."""
    async with write_out:
        async for item in write_out:
            text = item.message.model_dump_json(by_alias=True, exclude_unset=True)
            if stdin.is_closing():  # the process is gone: the reader ends the session
                break
            stdin.write((text + "\n").encode())


async def _ended(process: subprocess.Popen[bytes]) -> None:
    """End the process as the SDK's transport does: its stdin is closed; it has
    :data:`EXIT_WAIT` to exit, then its group gets SIGTERM, then SIGKILL."""
    for sig in (None, signal.SIGTERM, signal.SIGKILL):
        if sig is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, sig)
        deadline = time.monotonic() + EXIT_WAIT
        while process.poll() is None and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        if process.returncode is not None:
            return
