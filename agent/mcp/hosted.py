"""eddy's side of the MCP host (agent/mcp/host.py): the servers of a headless run, connected
from a process of their own, seen here as connections like the others.

A headless run (``-p``, and the Agent SDK's stream-json) whose servers are all stdio ones, and
whose first request waits for them, starts the host as it builds the session: the host
spawns the servers, imports the MCP SDK and makes the handshakes on the other core while eddy
imports the model's SDK; eddy itself never imports the MCP SDK. Everything else works as in
process (agent/mcp/manager.py does not tell the two apart): :class:`HostedConnection` has the
state, the lists and the calls of a :class:`~agent.mcp.connection.ServerConnection`, kept up to
date by the host's messages.

Faults: the host's death fails every server (with its exit code and its log) and every call in
flight (an is_error result, at once); ``/mcp`` reconnecting a server starts a new host. Every
request has a deadline of its own here, on top of the host's (``MCP_TIMEOUT`` for a start,
``MCP_TOOL_TIMEOUT`` for a call, plus :data:`GRACE`): a host that hangs cannot hang eddy.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
from collections.abc import Callable, Iterable
from pathlib import Path
from types import SimpleNamespace
from typing import IO, Any

from agent.mcp.config import ServerConfig
from agent.mcp.connection import (
    KnownServer,
    McpCallFailed,
    McpUnavailable,
    start_timeout,
    tool_timeout,
)
from agent.mcp.early import LOG_NAME, popen_host, take
from agent.mcp.host import LINE_LIMIT, config_json
from agent.mcp.results import max_output_tokens
from tools.base import ToolResult

GRACE = 10.0
"""Seconds the host has beyond its own deadline before eddy stops waiting for it."""


def hosts(configs: Iterable[ServerConfig]) -> bool:
    """Whether these servers can be connected from the host: stdio ones only (an HTTP
    server's login, an SDK server's channel belong to eddy's process)."""
    kinds = [c.kind for c in configs]
    return bool(kinds) and all(kind == "stdio" for kind in kinds)


def _namespace(value: Any) -> Any:
    """A JSON value as the SDK's objects read (``result.contents[0].text``)."""
    if isinstance(value, dict):
        return SimpleNamespace(**{k: _namespace(v) for k, v in value.items()})
    if isinstance(value, list):
        return [_namespace(v) for v in value]
    return value


def _tool(data: dict[str, Any]) -> SimpleNamespace:
    """A tool as the host listed it, read as agent/mcp/adapter.py reads the SDK's."""
    hint = data.get("read_only_hint")
    return SimpleNamespace(
        name=data["name"],
        description=data.get("description"),
        input_schema=data.get("input_schema"),
        annotations=SimpleNamespace(read_only_hint=hint) if hint is not None else None,
    )


class HostGone(Exception):
    """The host process ended, or stopped answering."""


class McpHost:
    """The host process and its requests (its reader runs on the MCP loop).

    Args:
        configs: the servers it connects (:attr:`connections`, one each).
        on_change: called (on the MCP loop) when a server's state or lists change.
        roots: the session's folders (the servers' ``roots/list``).
        log_dir: where the host's stderr goes (``mcp-host.log``), beside the servers' logs.
    """

    def __init__(
        self,
        configs: Iterable[ServerConfig],
        on_change: Callable[[HostedConnection], None],
        roots: Callable[[], tuple[Path, ...]],
        log_dir: Path | None,
    ) -> None:
        self.connections = {c.name: HostedConnection(self, c, on_change) for c in configs}
        self._roots = roots
        self._log_dir = log_dir
        self._process: subprocess.Popen[bytes] | None = None
        self._reader: asyncio.Task[None] | None = None
        self._attaching: asyncio.Task[None] | None = None
        self._writer: asyncio.WriteTransport | None = None
        """Its stdin, once read on the MCP loop: writes never block that loop (a blocked
        write while the host blocks writing to eddy would be a deadlock)."""
        self._next = 0
        self._waiting: dict[int, tuple[asyncio.Future[Any], Callable[[dict[str, Any]], None]]] = {}

    @property
    def log_path(self) -> Path | None:
        return self._log_dir / LOG_NAME if self._log_dir is not None else None

    def spawn(self, early: Iterable[str] = ()) -> None:
        """Start the host now (as the session is built: its imports overlap eddy's), and
        with it the processes of the servers named in ``early``."""
        if self._process is not None and self._process.poll() is None:
            return
        self._process = take()  # the one -p started before its imports, if any
        if self._process is None:
            log: IO[bytes] | int = subprocess.DEVNULL
            if self.log_path is not None:
                with contextlib.suppress(OSError):
                    self.log_path.parent.mkdir(parents=True, exist_ok=True)
                    log = open(self.log_path, "ab")  # noqa: SIM115 - the child's; closed below
            try:
                self._process = popen_host(log)
            finally:
                if not isinstance(log, int):
                    log.close()
        setup = {
            "servers": {name: config_json(c.config) for name, c in self.connections.items()},
            "roots": [str(p) for p in self._roots()],
            "log_dir": str(self._log_dir) if self._log_dir is not None else None,
            "early": list(early),
        }
        self._reader = self._writer = None
        self._write(setup)  # before the loop: the host reads it first, whatever its size

    def _write(self, message: dict[str, Any]) -> None:
        line = json.dumps(message, separators=(",", ":")).encode() + b"\n"
        if self._writer is not None:
            if self._writer.is_closing():
                raise HostGone("it no longer reads")
            self._writer.write(line)
            return
        process = self._process
        if process is None or process.stdin is None:
            raise HostGone("it is not running")
        try:
            process.stdin.write(line)
            process.stdin.flush()
        except (OSError, ValueError) as exc:  # its stdin closed: it ended
            raise HostGone(f"it no longer reads ({exc})") from None

    async def ensure(self) -> None:
        """On the MCP loop: the host running (a new one after a death) and read."""
        if self._attaching is None or self._attaching.done():
            if self._reader is not None and self._process and self._process.poll() is None:
                return
            self._attaching = asyncio.get_running_loop().create_task(self._attach())
        await asyncio.shield(self._attaching)  # one attach, whoever asks first (and its end)

    async def _attach(self) -> None:
        if self._process is None or self._process.poll() is not None:
            self.spawn()
        if self._reader is None:
            process = self._process
            assert process is not None and process.stdout is not None and process.stdin
            loop = asyncio.get_running_loop()
            reader = asyncio.StreamReader(limit=LINE_LIMIT)
            await loop.connect_read_pipe(
                lambda: asyncio.StreamReaderProtocol(reader), process.stdout
            )
            self._writer, _ = await loop.connect_write_pipe(asyncio.Protocol, process.stdin)
            self._reader = loop.create_task(self._read(reader, process))

    def send(self, message: dict[str, Any]) -> None:
        """A message that needs no answer (a start, a cancel); lost if the host is gone
        (its death says so)."""
        with contextlib.suppress(HostGone):
            self._write(message)

    async def request(
        self,
        message: dict[str, Any],
        timeout: float,
        on_message: Callable[[dict[str, Any]], None] = lambda _m: None,
    ) -> Any:
        """Send ``message`` with an id of its own; its answer's result (``on_message`` gets
        what comes for it meanwhile: progress, output).

        Raises:
            McpUnavailable: the server is not connected (the host's answer).
            McpCallFailed: the host answered with another failure.
            HostGone: the host ended, or did not answer within ``timeout``.
        """
        await self.ensure()
        self._next += 1
        call_id = self._next
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting[call_id] = (future, on_message)
        try:
            self._write({**message, "id": call_id})
            async with asyncio.timeout(timeout):
                answer = await future
        except TimeoutError:
            self.send({"op": "cancel", "id": call_id})
            raise HostGone(f"it did not answer within {timeout:g} s") from None
        except asyncio.CancelledError:
            self.send({"op": "cancel", "id": call_id})  # Esc: the host cancels the call
            raise
        finally:
            self._waiting.pop(call_id, None)
        if "error" in answer:
            error = str(answer["error"])
            raise McpUnavailable(error) if answer.get("unavailable") else McpCallFailed(error)
        return answer.get("result")

    async def _read(self, reader: asyncio.StreamReader, process: subprocess.Popen[bytes]) -> None:
        try:
            while line := await reader.readline():
                with contextlib.suppress(ValueError, KeyError, TypeError):  # not the host's
                    self._on_message(json.loads(line))
        except (OSError, ValueError):
            pass  # a line past the limit, a broken pipe: as its end
        code = await asyncio.to_thread(_exit_code, process)
        if process is self._process:
            self._gone(code)

    def _on_message(self, message: dict[str, Any]) -> None:
        if not isinstance(message, dict):
            return
        if "server" in message:
            conn = self.connections.get(message["server"])
            if conn is not None:
                conn.update(message)
            return
        waiting = self._waiting.get(message.get("id"))  # type: ignore[arg-type]
        if waiting is None:
            return
        future, on_message = waiting
        if "result" in message or "error" in message:
            if not future.done():
                future.set_result(message)
        else:
            on_message(message)

    def _gone(self, code: int | None) -> None:
        """The host ended: every request fails, every server with it."""
        self._reader = None
        where = f"; its log: {self.log_path}" if self.log_path is not None else ""
        why = f"eddy's MCP host process ended (exit code {code}){where}"
        for future, _ in list(self._waiting.values()):
            if not future.done():
                future.set_exception(HostGone(why))
        for conn in self.connections.values():
            if conn.state not in ("stopped", "disabled"):
                conn.host_gone(why)

    @property
    def running(self) -> bool:
        """Whether the host process is alive (a dead one is started again only by a start)."""
        return self._process is not None and self._process.poll() is None

    def kill(self) -> None:
        """End the host process at once (its death is then reported as any other)."""
        if self._process is not None:
            self._process.kill()

    async def aclose(self) -> None:
        """End the host: it stops the servers once its stdin closes (then it is killed)."""
        process, self._process = self._process, None
        if process is None:
            return
        with contextlib.suppress(OSError, ValueError):  # its end of file: it stops the servers
            if self._writer is not None:
                self._writer.close()
            elif process.stdin is not None:
                process.stdin.close()
        try:
            await asyncio.wait_for(asyncio.to_thread(process.wait), GRACE)
        except TimeoutError:
            process.kill()
            await asyncio.to_thread(process.wait)
        if self._reader is not None:
            self._reader.cancel()
            await asyncio.gather(self._reader, return_exceptions=True)
            self._reader = None


def _exit_code(process: subprocess.Popen[bytes]) -> int | None:
    try:
        return process.wait(GRACE)
    except subprocess.TimeoutExpired:
        return None


class HostedConnection(KnownServer):
    """One server of the host, as a connection (what a ServerConnection does, asked of the
    host; what it knows, from the host's messages)."""

    def __init__(
        self, host: McpHost, config: ServerConfig, on_change: Callable[[HostedConnection], None]
    ) -> None:
        super().__init__(config)
        self._host = host
        self._on_change = on_change
        self._gen = 0
        self._listed: list[Any] = []
        self._started = asyncio.Event()
        self._watchdog: asyncio.TimerHandle | None = None
        self._starting: asyncio.Task[None] | None = None
        self._reports: set[asyncio.Future[Any]] = set()
        """The progress reports being shown (kept until they are)."""

    # -- as the host says -----------------------------------------------------------------
    def update(self, message: dict[str, Any]) -> None:
        """The host's word on this server's state and lists (from the current start only:
        what it said of an earlier one does not end this one)."""
        if message.get("gen") != self._gen:
            return
        tools = message.get("tools", [])
        if tools != self._listed:  # (a new host counts its versions from 0 again)
            self._listed = tools
            self.tools = tuple(_tool(t) for t in tools)
            self.version += 1
        self.prompts = tuple(_namespace(message.get("prompts", [])))
        self.resources = tuple(_namespace(message.get("resources", [])))
        self._set(str(message.get("state", "failed")), str(message.get("reason", "")))

    def host_gone(self, why: str) -> None:
        self._set("failed", why)

    def _set(self, state: str, reason: str) -> None:
        self.state, self.reason = state, reason
        if state != "connecting":
            self._started.set()
            if self._watchdog is not None:
                self._watchdog.cancel()
                self._watchdog = None
        self._on_change(self)

    # -- lifecycle (on the MCP loop) --------------------------------------------------------
    def start(self) -> None:
        """Start (or restart) the server in the host."""
        self._begin()
        self._starting = asyncio.get_running_loop().create_task(self._start())

    async def _start(self) -> None:
        try:
            await self._host.ensure()
        except (OSError, HostGone) as exc:
            self._set("failed", f"eddy's MCP host could not start ({exc})")
            return
        self._host.send({"op": "start", "server": self.name, "gen": self._gen})

    def _begin(self) -> None:
        """A new start: what the host says of earlier ones no longer counts."""
        self._gen += 1
        self._started = asyncio.Event()
        self.state, self.reason = "connecting", ""
        limit = start_timeout() + GRACE
        if self._watchdog is not None:
            self._watchdog.cancel()
        self._watchdog = asyncio.get_running_loop().call_later(limit, self._no_answer, limit)

    def _no_answer(self, limit: float) -> None:
        self._watchdog = None
        if self.state == "connecting":
            self._set("failed", f"eddy's MCP host said nothing of its start within {limit:g} s")

    def spawn_early(self) -> None:
        """Nothing: the host spawns its servers first."""

    def drop_early(self) -> None:
        """Nothing: the host ends what it spawned."""

    async def stop(self) -> None:
        self._gen += 1  # whatever the host still says of the start is stale
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None
        if self._host.running:  # (a dead host stopped its servers: its stdin closed)
            with contextlib.suppress(Exception):
                await self._host.request({"op": "stop", "server": self.name}, GRACE)
        self._set("stopped", "")

    async def reconnect(self) -> None:
        await self.stop()
        self.start()
        await self.wait_started()

    async def login(self) -> None:
        await self.reconnect()  # a stdio server has no login

    async def wait_started(self) -> None:
        await self._started.wait()

    async def roots_changed(self) -> None:
        roots = [str(p) for p in self.client_side.roots()] if self.client_side else []
        message = {"op": "roots", "server": self.name, "roots": roots}
        with contextlib.suppress(Exception):  # a server gone meanwhile: nothing to tell
            await self._host.request(message, GRACE)

    # -- requests ---------------------------------------------------------------------------
    async def call(self, tool: str, args: dict[str, Any], progress: Any = None) -> ToolResult:
        """As :meth:`ServerConnection.call`, made in the host."""
        if self.state != "connected":
            return ToolResult(self.not_callable(), is_error=True)
        timeout = tool_timeout()  # eddy's environment decides, as in process
        message = {
            "op": "call",
            "server": self.name,
            "tool": tool,
            "args": args,
            "timeout": timeout,
            "max_tokens": max_output_tokens(),
        }

        def on_message(update: dict[str, Any]) -> None:
            if "progress" in update and progress is not None:
                done, total, text = update["progress"]
                report = asyncio.ensure_future(progress(done, total, text))
                self._reports.add(report)
                report.add_done_callback(self._reports.discard)
            elif "output" in update and self.client_side is not None:
                self.client_side.tell_running_call(self.name, str(update["output"]))

        try:
            result = await self._host.request(
                {**message, "progress": progress is not None}, timeout + GRACE, on_message
            )
        except (HostGone, McpCallFailed) as exc:
            return ToolResult(
                f"The call to the MCP server {self.name} failed: eddy's MCP host: {exc}", True
            )
        content = result.get("content") if isinstance(result, dict) else None
        if not isinstance(content, str | list):
            why = "eddy's MCP host answered with something that is not a result"
            return ToolResult(f"The call to the MCP server {self.name} failed: {why}", True)
        return ToolResult(content, bool(result.get("is_error")))

    async def get_prompt(self, name: str, args: dict[str, str]) -> Any:
        """The server's prompt ``name`` filled with ``args``."""
        message = {"op": "prompt", "server": self.name, "name": name, "args": args}
        return _namespace(await self._host.request(message, tool_timeout() + GRACE))

    async def read_resource(self, uri: str) -> Any:
        """The resource at ``uri``."""
        message = {"op": "resource", "server": self.name, "uri": uri}
        return _namespace(await self._host.request(message, tool_timeout() + GRACE))
