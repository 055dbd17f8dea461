"""eddy's MCP host: the stdio servers of a headless run, connected from a process of their own.

``eddy -p`` waits for its MCP servers before its first request. In eddy's own process the MCP
SDK's import (CPU-bound Python, 0.4 s to 1 s) shares the GIL with the import of the model's
SDK, so the two add up before that request. Run here, on the other core, the import and the
handshakes overlap eddy's start-up instead (:mod:`agent.mcp.hosted` is eddy's side).

The connections are the ones eddy makes in process (:class:`ServerConnection`: the start-up
deadline, the server's log, garbage on stdout, a server that dies, a call's deadline and its
errors as is_error results); this process only carries requests and answers. What it says and
hears, one JSON object per line (its stdout is the protocol: whatever else writes to fd 1 goes
to stderr, eddy's log of this process):

- first, from eddy: ``{"servers": {name: config}, "roots": [path], "log_dir": path | null,
  "early": [name]}`` (the servers to spawn at once: those eddy is about to start);
- from eddy: ``{"op": "start" | "stop" | "reconnect", "server", "gen", "id"?}``,
  ``{"op": "call", "id", "server", "tool", "args", "progress", "timeout", "max_tokens"}``,
  ``{"op": "cancel", "id"}``,
  ``{"op": "prompt", "id", "server", "name", "args"}``, ``{"op": "resource", "id", "server",
  "uri"}``, ``{"op": "roots", "id", "server", "roots"}`` (tell the server they changed);
- to eddy: a server's state and lists whenever they change (``{"server", "gen", "state",
  "reason", "tools", "prompts", "resources"}``), ``{"id", "result"}`` or
  ``{"id", "error", "unavailable"}``, and a call's ``{"id", "progress": [done, total,
  message]}`` and ``{"id", "output": text}``.

It ends when eddy closes its stdin (stopping every server first), and never outlives eddy: a
closed stdin is the end whatever the reason.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import signal
import stat
import sys
from collections.abc import Coroutine, Mapping
from pathlib import Path
from typing import Any, BinaryIO

from agent.mcp.client_side import ClientSide
from agent.mcp.config import ServerConfig
from agent.mcp.connection import McpUnavailable, ServerConnection

LINE_LIMIT = 1 << 30
"""The longest line either side may send (a call's arguments, a result with images)."""


def config_of(data: dict[str, Any]) -> ServerConfig:
    """A server's configuration as :func:`config_json` wrote it."""
    fields: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
    return ServerConfig(**fields)


def config_json(config: ServerConfig) -> dict[str, Any]:
    """``config`` as JSON for this process's first line (its tuples as lists, its mappings
    as objects)."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(config):
        value = getattr(config, f.name)
        if isinstance(value, tuple):
            value = list(value)
        elif isinstance(value, Mapping):
            value = dict(value)
        out[f.name] = value
    return out


def tool_json(tool: Any) -> dict[str, Any]:
    """What eddy's side makes an MCP tool of (agent/mcp/adapter.py reads no more)."""
    annotations = tool.annotations
    return {
        "name": tool.name,
        "description": tool.description,
        "input_schema": tool.input_schema,
        "read_only_hint": annotations.read_only_hint if annotations is not None else None,
    }


class _Call:
    """A call in flight, as the client side sees a running call: where a server's
    elicitation says that nobody can answer (:meth:`ClientSide.elicit`)."""

    dialogs = None

    def __init__(self, host: Host, call_id: int) -> None:
        self.call_id = str(call_id)
        self._host, self._id = host, call_id

    def output(self, text: str) -> None:
        self._host.send({"id": self._id, "output": text})


class Host:
    """The servers of one eddy session, served over ``out`` (see the module note)."""

    def __init__(self, setup: dict[str, Any], out: asyncio.WriteTransport) -> None:
        self._out = out
        self._roots = tuple(Path(p) for p in setup.get("roots", ()))
        self.side = ClientSide(lambda: self._roots)
        log_dir = setup.get("log_dir")
        self.connections = {
            name: ServerConnection(
                config_of(data), self._changed, Path(log_dir) if log_dir else None
            )
            for name, data in setup["servers"].items()
        }
        for conn in self.connections.values():
            conn.client_side = self.side
        self._gen = dict.fromkeys(self.connections, 0)
        self._tasks: dict[int, asyncio.Task[None]] = {}

    def send(self, message: dict[str, Any]) -> None:
        """Write one message (on the loop: one writer)."""
        if not self._out.is_closing():  # (eddy gone: nobody to tell)
            self._out.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")

    def _changed(self, conn: ServerConnection) -> None:
        self.send(
            {
                "server": conn.name,
                "gen": self._gen[conn.name],
                "state": conn.state,
                "reason": conn.reason,
                "tools": [tool_json(t) for t in conn.tools],
                "prompts": [p.model_dump(mode="json") for p in conn.prompts],
                "resources": [r.model_dump(mode="json") for r in conn.resources],
            }
        )

    async def serve(self, reader: asyncio.StreamReader) -> None:
        """Carry out eddy's requests until its side closes."""
        self.side.session_loop = asyncio.get_running_loop()
        try:
            while line := await reader.readline():
                try:
                    message = json.loads(line)
                except ValueError:
                    continue  # eddy writes JSON: not a line of its
                self._dispatch(message)
        finally:
            for task in self._tasks.values():
                task.cancel()
            await asyncio.gather(*self._tasks.values(), return_exceptions=True)
            stops = [c.stop() for c in self.connections.values()]
            await asyncio.gather(*stops, return_exceptions=True)

    def _dispatch(self, message: dict[str, Any]) -> None:
        op, call_id = message.get("op"), message.get("id")
        conn = self.connections.get(message.get("server", ""))
        if op == "cancel":
            task = self._tasks.get(call_id) if isinstance(call_id, int) else None
            if task is not None:
                task.cancel()
        elif op == "start" and conn is not None:  # answered by the state it goes through
            self._gen[conn.name] = message.get("gen", 0)
            conn.start()
        elif isinstance(call_id, int) and call_id not in self._tasks:
            work = self._work(op, conn, message)
            if work is not None:
                self._tasks[call_id] = asyncio.ensure_future(self._answer(call_id, work))

    def _work(
        self, op: Any, conn: ServerConnection | None, message: dict[str, Any]
    ) -> Coroutine[Any, Any, Any] | None:
        """What request ``op`` asks for (None: not a request of eddy's)."""
        if conn is None:
            return None
        if op == "roots":
            self._roots = tuple(Path(p) for p in message.get("roots", ()))
            return conn.roots_changed()
        if op == "reconnect":
            self._gen[conn.name] = message.get("gen", 0)
            return conn.reconnect()
        if op == "stop":
            return conn.stop()
        if op == "call":
            return self._call(conn, message)
        if op == "prompt":
            return conn.get_prompt(message["name"], message.get("args") or {})
        if op == "resource":
            return conn.read_resource(message["uri"])
        return None

    async def _call(self, conn: ServerConnection, message: dict[str, Any]) -> Any:
        call_id = message["id"]
        running = _Call(self, call_id)
        calls = self.side.calls.setdefault(conn.name, [])
        calls.append(running)  # type: ignore[arg-type]  # what elicit reads of a call
        progress = None
        if message.get("progress"):

            async def progress(done: float, total: float | None, text: str | None) -> None:
                self.send({"id": call_id, "progress": [done, total, text]})

        try:
            result = await conn.call(
                message["tool"],
                message.get("args") or {},
                progress,
                timeout=message.get("timeout"),
                max_tokens=message.get("max_tokens"),
            )
        finally:
            calls.remove(running)  # type: ignore[arg-type]
        return {"content": result.content, "is_error": result.is_error}

    async def _answer(self, call_id: int, work: Any) -> None:
        try:
            result = await work
        except asyncio.CancelledError:
            result, error = None, "cancelled"
            unavailable = False
        except Exception as exc:  # the caller's failure to report, never this process's
            result, error = None, str(exc) or type(exc).__name__
            unavailable = isinstance(exc, McpUnavailable)
        else:
            error, unavailable = "", False
            if hasattr(result, "model_dump"):
                result = result.model_dump(mode="json")
        finally:
            self._tasks.pop(call_id, None)
        if error:
            self.send({"id": call_id, "error": error, "unavailable": unavailable})
        else:
            self.send({"id": call_id, "result": result})


async def _main(out: BinaryIO) -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    writer, _ = await loop.connect_write_pipe(asyncio.Protocol, out)  # never blocks the loop
    first = await reader.readline()
    if not first:
        return
    try:
        setup = json.loads(first)
    except ValueError:
        setup = None
    if not isinstance(setup, dict) or not isinstance(setup.get("servers"), dict):
        sys.stderr.write("eddy's MCP host: the first line was not eddy's setup; nothing served\n")
        sys.exit(2)
    host = Host(setup, writer)
    for name in setup.get("early", ()):  # the processes first, before the SDK's import
        if name in host.connections:
            host.connections[name].spawn_early()
    await host.serve(reader)


def _piped(fd: int) -> bool:
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def main() -> None:
    """Serve eddy on stdin and stdout (see the module note; ``python -m agent.mcp`` runs it).
    Anything but pipes there (a terminal, a file, /dev/null) is not eddy: a message and exit
    status 2, instead of a wait for a line that never comes or a traceback."""
    if not (_piped(0) and _piped(1)):
        sys.stderr.write(
            "eddy's MCP host talks to eddy over pipes on stdin and stdout; eddy -p starts it.\n"
        )
        sys.exit(2)
    out = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)  # a stray print (a library's, the SDK's) goes to the log, not to eddy
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # eddy's Ctrl+C is eddy's: it closes stdin
    with contextlib.suppress(KeyboardInterrupt, BrokenPipeError):
        asyncio.run(_main(out))
