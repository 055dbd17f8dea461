"""One MCP server's connection: start it, keep its lists, call its tools, notice when it dies.

Everything here runs on the MCP manager's own event loop (:mod:`agent.mcp.manager`), never on
the UI's. A connection lives in one task (``_lifetime``) because the SDK's transports hold
anyio task groups that must be left by the task that entered them; a start-up timeout cancels
that task instead of wrapping the start in a timeout scope. (One thing runs before that loop
does: ``-p``'s :meth:`ServerConnection.spawn_early`, on the thread that builds the session.)

States: ``connecting``, ``connected``, ``failed`` (with ``reason``), ``needs-auth`` (an HTTP
server answered 401), ``needs-approval`` (a project server the user has not approved) and
``stopped``. A stdio server whose process ends is ``failed`` until ``/mcp`` reconnects it; an
HTTP or SSE server that drops is reconnected with exponential backoff (1 s, 2 s, 4 s, ... at
most :data:`MAX_HTTP_RETRIES` times).

Deadlines: a start has ``MCP_TIMEOUT`` (ms, default 30 s); every tool call has
``MCP_TOOL_TIMEOUT`` (ms, default :data:`DEFAULT_TOOL_TIMEOUT_MS`, 10 minutes, Bash's longest
timeout), a wall-clock limit from the call's start that progress notifications do not extend
(as Claude Code's ``MCP_TOOL_TIMEOUT``). A call also ends at once when the server answers with
something that is not an MCP answer (:mod:`agent.mcp.transport`). Whatever the SDK logs about
a server (its complaints and tracebacks) goes to that server's log file, as its stderr does.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent.mcp.config import ServerConfig
from agent.mcp.prespawn import Spawned, adopted, spawn
from agent.mcp.results import to_tool_result
from agent.mcp.transport import (
    UNREADABLE_ANSWER,
    UNREADABLE_MARK,
    Unreadable,
    errlog,
    is_transport_error,
    load_sdk,
    open_transport,
    sdk_logs_to,
    status_of,
    stderr_tail,
    watched,
)
from tools.base import ToolResult

MAX_HTTP_RETRIES = 5
DEFAULT_START_TIMEOUT_MS = 30_000
DEFAULT_TOOL_TIMEOUT_MS = 600_000


def _ms(name: str, default: float | None) -> float | None:
    """A timeout in seconds from an environment variable in milliseconds (Claude Code's)."""
    raw = os.environ.get(name, "")
    try:
        value = float(raw)
    except ValueError:
        return default
    return value / 1000 if value > 0 else default


def start_timeout() -> float:
    """``MCP_TIMEOUT`` (ms) in seconds: how long a server may take to start (default 30 s)."""
    return _ms("MCP_TIMEOUT", DEFAULT_START_TIMEOUT_MS / 1000) or DEFAULT_START_TIMEOUT_MS / 1000


def tool_timeout() -> float:
    """``MCP_TOOL_TIMEOUT`` (ms) in seconds: how long a call may take, from its start to its
    answer (default 10 minutes; progress notifications do not extend it)."""
    return _ms("MCP_TOOL_TIMEOUT", None) or DEFAULT_TOOL_TIMEOUT_MS / 1000


class McpCallFailed(Exception):
    """A call ended without an answer; the message says why, for the model and the user."""


class McpUnavailable(McpCallFailed):
    """The server cannot take calls now; the message says why and what to do."""


def _login_timeout() -> float:
    from agent.mcp.oauth import LOGIN_TIMEOUT

    return LOGIN_TIMEOUT


def _has(exc: BaseException, name: str) -> bool:
    """Whether an exception of class ``name`` is in ``exc`` (groups and causes included)."""
    seen: set[int] = set()
    stack = [exc]
    while stack:
        e = stack.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        if type(e).__name__ == name:
            return True
        stack.extend(getattr(e, "exceptions", ()))
        stack.extend(x for x in (e.__cause__, e.__context__) if x is not None)
    return False


def describe(exc: BaseException) -> str:
    """A one-line reason for a failed start or call (the innermost meaningful message)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class KnownServer:
    """What a connection knows of its server, read from any thread (written on the MCP loop
    only): the manager, ``/mcp`` and the front ends read these, wherever the connection is
    made (eddy's process: :class:`ServerConnection`; the MCP host's: agent/mcp/hosted.py)."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.name = config.name
        self.state = "stopped"
        self.reason = ""
        self.tools: tuple[Any, ...] = ()
        """The server's tools (``mcp.types.Tool``), in the server's order."""
        self.prompts: tuple[Any, ...] = ()
        self.resources: tuple[Any, ...] = ()
        self.version = 0
        """Goes up each time ``tools`` changes (the session rebuilds its tool list then)."""
        self.logging_in = False
        """A ``/mcp login`` runs: a 401 hands off to the browser (else it is needs-auth)."""
        self.opener: Any = None
        """Opens the authorization URL (``agent.mcp.oauth.open_in_browser`` by default)."""
        self.say: Callable[[str], None] = lambda _text: None
        """Tells the user something (the authorization URL)."""
        self.inproc: Any = None
        """An in-process server (``mcp.server.MCPServer``) to connect to instead (tests)."""
        self.client_side: Any = None
        """The client's capabilities (agent/mcp/client_side.py ``ClientSide``): roots and
        elicitation are offered to the server when set."""

    def not_callable(self) -> str:
        """What a call returns while the server is not connected."""
        why = f": {self.reason}" if self.reason else ""
        return (
            f"The MCP server {self.name} is {self.state}{why}. "
            "It was not called; the user can reconnect it with /mcp."
        )


class ServerConnection(KnownServer):
    """A server and what is known of it (read from any thread; written on the MCP loop).

    Args:
        config: the server's configuration.
        on_change: called (on the MCP loop) whenever state, reason or lists change.
        log_dir: where the server's stderr goes (one file per server), not the terminal.
    """

    def __init__(
        self,
        config: ServerConfig,
        on_change: Callable[[ServerConnection], None],
        log_dir: Path | None = None,
    ) -> None:
        super().__init__(config)
        self._on_change = on_change
        self._log_dir = log_dir
        self._client: Any = None
        self._life: asyncio.Task[None] | None = None
        self._gone = asyncio.Event()
        self._relist = asyncio.Event()
        self._started = asyncio.Event()
        self._not_connected = asyncio.Event()
        self._unauthorized = False
        self._calls: set[asyncio.Future[str]] = set()
        """One future per call in flight, given a line of garbage the server wrote meanwhile."""
        self._garbage = ""
        """The last line the server wrote that is not an MCP message (said if it fails)."""
        self._early: Spawned | None = None
        """The process :meth:`spawn_early` started, until the first start connects to it."""

    # -- lifecycle ------------------------------------------------------------------------
    def start(self) -> None:
        """Start (or restart) the connection in the background."""
        if self._life is not None and not self._life.done():
            self._life.cancel()
        self._started = asyncio.Event()
        self._life = asyncio.get_running_loop().create_task(self._lifetime())

    def spawn_early(self) -> None:
        """Start a stdio server's process now, before the SDK is imported (``-p``: its start
        overlaps eddy's own imports); the first :meth:`start` connects to it."""
        if self._early is not None or self.inproc is not None:
            return
        if self.config.kind == "stdio" and os.name == "posix":
            self._early = spawn(self.config, errlog(self._log_path()))

    async def stop(self) -> None:
        """Close the connection (ends a stdio server's process)."""
        life, self._life = self._life, None
        if life is not None:
            life.cancel()
            await asyncio.gather(life, return_exceptions=True)
        self.drop_early()
        self._set("stopped", "")

    def drop_early(self) -> None:
        """End the process :meth:`spawn_early` started if no start connected to it yet."""
        early, self._early = self._early, None
        if early is not None:
            early.kill()

    async def reconnect(self) -> None:
        """Stop and start again; returns when the new start ended (connected or not)."""
        await self.stop()
        self.start()
        await self.wait_started()

    async def login(self) -> None:
        """Connect again, handing off to the browser if the server asks for a login."""
        self.logging_in = True
        try:
            await self.reconnect()
        finally:
            self.logging_in = False

    async def wait_started(self) -> None:
        """Wait until the current start attempt succeeded or failed."""
        await self._started.wait()

    def _set(self, state: str, reason: str) -> None:
        self.state, self.reason = state, reason
        if state != "connecting":
            self._started.set()
        if state == "connected":
            self._not_connected.clear()
        else:
            self._not_connected.set()
        self._on_change(self)

    async def _lifetime(self) -> None:
        attempt = 0
        while await self._attempt(attempt):
            delay = min(2**attempt, 30)
            attempt += 1
            self._set("connecting", f"reconnecting in {delay} s (attempt {attempt})")
            await asyncio.sleep(delay)

    async def _attempt(self, attempt: int) -> bool:
        """One start and the connection it made, to its end; True to try again (an HTTP or
        SSE server that dropped, within :data:`MAX_HTTP_RETRIES`)."""
        self._gone = asyncio.Event()
        self._unauthorized = False
        self._set("connecting", "")
        if self.inproc is None:
            # importing the SDK takes seconds on a loaded machine: not the server's time; in a
            # thread, so that a stop (the session's close) never waits for the import to end
            await asyncio.to_thread(load_sdk, self.config.kind)
        limit = start_timeout() if not self.logging_in else _login_timeout()
        watchdog = asyncio.get_running_loop().call_later(
            limit, self._start_timed_out, asyncio.current_task()
        )
        try:
            await self._connected_once(watchdog)
        except asyncio.CancelledError:
            self._client = None
            if self.state == "connecting" and self.reason.startswith("did not start"):
                self._set("failed", self.reason)  # the watchdog's cancel: a final state
                return False
            raise
        except Exception as exc:
            self._client = None
            watchdog.cancel()
            return self._failed(exc, attempt)
        self._client = None
        return self._ended(attempt)

    def _failed(self, exc: Exception, attempt: int) -> bool:
        """A start or a connection failed with ``exc``: say why; True to try again."""
        if status_of(exc) == 401 or self._unauthorized or _has(exc, "NeedsLogin"):
            why = "the server asks for authentication (HTTP 401)"
            if self.config.reconnects:
                why += f": /mcp login {self.name}"
            if self.logging_in:
                why = f"the login did not succeed ({describe(exc)})"
            self._set("needs-auth", why)
            return False
        if self.config.reconnects and attempt < MAX_HTTP_RETRIES:
            return True
        why = describe(exc)
        if self.config.kind == "stdio" and self._gone.is_set():
            why = "the server process exited while starting"
        self._set("failed", why + self._garbage_note() + self._stderr_tail())
        return False

    def _ended(self, attempt: int) -> bool:
        """The connection ended without an error: True to try again (HTTP and SSE)."""
        if not self.config.reconnects:
            ended = "process exited" if self.config.kind == "stdio" else "connection ended"
            self._set("failed", f"the server {ended}" + self._stderr_tail())
            return False
        if attempt >= MAX_HTTP_RETRIES:
            self._set("failed", "the connection dropped and did not come back")
            return False
        return True

    def _start_timed_out(self, task: asyncio.Task[Any] | None) -> None:
        if self.state == "connecting" and task is not None:
            self.reason = (
                f"did not start within {start_timeout():g} s (MCP_TIMEOUT, in ms, gives it "
                f"longer){self._garbage_note()}"
            )
            task.cancel()

    def _garbage_note(self) -> str:
        if not self._garbage:
            return ""
        return f"; it wrote lines that are not MCP messages on stdout, the last: {self._garbage}"

    def _unreadable(self, bad: Unreadable) -> None:
        """On the relay: the server wrote a line that is not an MCP message (see
        :mod:`agent.mcp.transport`). Garbage ends the calls in flight: it may be their answer."""
        if bad.is_message:
            return
        self._garbage = bad.text
        for call in list(self._calls):
            if not call.done():
                call.set_result(bad.text)

    async def _connected_once(self, watchdog: asyncio.TimerHandle) -> None:
        """One connection: open, list, serve until the transport ends."""
        from mcp import Client

        async with contextlib.AsyncExitStack() as stack:
            early, self._early = self._early, None
            if early is not None:  # ended by its transport; this only if it never got one
                stack.callback(early.kill)
            log = stack.enter_context(early.log if early else errlog(self._log_path()))
            stack.enter_context(sdk_logs_to(log))  # the SDK's tasks start in this context
            self._garbage = ""
            target = self.inproc
            if target is None:
                transport = adopted(early) if early else await self._transport(stack, log)
                target = watched(transport, self._gone.set, self._unreadable)
            client = Client(target, message_handler=self._on_message, **self._capabilities())
            await stack.enter_async_context(client)
            await self._load_lists(client)
            watchdog.cancel()
            self._client = client
            self._set("connected", "")
            listen = asyncio.create_task(self._listen(client))
            try:
                while not self._gone.is_set():
                    gone = asyncio.create_task(self._gone.wait())
                    relist = asyncio.create_task(self._relist.wait())
                    try:
                        await asyncio.wait({gone, relist}, return_when=asyncio.FIRST_COMPLETED)
                    finally:
                        gone.cancel()
                        relist.cancel()
                        await asyncio.gather(gone, relist, return_exceptions=True)
                    if self._relist.is_set() and not self._gone.is_set():
                        self._relist.clear()
                        with contextlib.suppress(Exception):
                            await self._load_lists(client)
            finally:
                listen.cancel()
                await asyncio.gather(listen, return_exceptions=True)
                self._client = None

    async def _transport(self, stack: contextlib.AsyncExitStack, log: Any) -> Any:
        """This server's transport (:func:`agent.mcp.transport.open_transport`)."""

        def unauthorized() -> None:
            self._unauthorized = True

        return await open_transport(
            self.config,
            stack,
            interactive=self.logging_in,
            opener=self.opener,
            say=self.say,
            log=log,
            on_unauthorized=unauthorized,
        )

    def _log_path(self) -> Path | None:
        return self._log_dir / f"{self.name}.log" if self._log_dir is not None else None

    def _stderr_tail(self) -> str:
        return stderr_tail(self._log_path())

    async def _load_lists(self, client: Any) -> None:
        caps = client.server_capabilities
        tools = await _all(client.list_tools, "tools") if caps.tools is not None else []
        prompts = await _all(client.list_prompts, "prompts") if caps.prompts is not None else []
        resources: list[Any] = []
        if caps.resources is not None:
            resources = await _all(client.list_resources, "resources")
        new_tools = tuple(tools)
        if [_tool_key(t) for t in new_tools] != [_tool_key(t) for t in self.tools]:
            self.tools = new_tools
            self.version += 1
        self.prompts, self.resources = tuple(prompts), tuple(resources)
        self._on_change(self)

    async def _listen(self, client: Any) -> None:
        """On 2026-07-28 connections list changes come only to a ``subscriptions/listen``."""
        caps = client.server_capabilities
        if caps.tools is None or not getattr(caps.tools, "list_changed", False):
            return
        with contextlib.suppress(Exception):
            async with client.listen(tools_list_changed=True, prompts_list_changed=True) as sub:
                async for _event in sub:
                    self._relist.set()

    async def _on_message(self, message: Any) -> None:
        method = getattr(message, "method", "")
        if method in ("notifications/tools/list_changed", "notifications/prompts/list_changed"):
            self._relist.set()

    # -- calls ----------------------------------------------------------------------------
    def _ready(self) -> Any:
        client = self._client
        if self.state == "connected" and client is not None and not self._gone.is_set():
            return client
        raise McpUnavailable(self.not_callable())

    def _capabilities(self) -> dict[str, Any]:
        """The client's roots and elicitation handlers (none without ``client_side``)."""
        side = self.client_side
        if side is None:
            return {}
        return {
            "list_roots_callback": side.list_roots,
            "elicitation_callback": side.elicitation(self.name),
        }

    async def roots_changed(self) -> None:
        """Tell the server the client's roots changed (it asks for them again). A server on
        the 2026-07-28 protocol asks within each request instead: nothing to tell it."""
        version = str(getattr(self._client, "protocol_version", "") or "")
        if self._client is not None and version < "2026-07-28":
            with contextlib.suppress(Exception):  # a server gone meanwhile: nothing to tell
                await self._client.send_roots_list_changed()

    async def call_tool(
        self, tool: str, args: dict[str, Any], timeout: float, progress: Any = None
    ) -> Any:
        """Call ``tool``; the SDK's ``CallToolResult`` (``progress`` receives the server's
        progress reports: a progress token is sent with the call).

        Raises:
            McpUnavailable: the server is not connected, or died during the call.
            McpCallFailed: the server answered with something that is not an MCP answer.
            TimeoutError: no answer within ``timeout`` (the call was cancelled).
            Exception: an MCP error (``mcp.MCPError``) or a transport failure.
        """
        from mcp import MCPError
        from pydantic import ValidationError

        client = self._ready()
        try:
            return await self._within(
                client.call_tool(tool, args, progress_callback=progress), timeout
            )
        except TimeoutError:
            raise
        except McpCallFailed:
            raise
        except ValidationError as exc:  # a JSON-RPC answer whose result is not a tool result
            first = str(exc).splitlines()
            detail = " ".join(first[1:3]).strip() if len(first) > 1 else str(exc)
            raise self._unanswered(f"its result does not follow MCP's schema: {detail}") from None
        except OSError as exc:
            raise self._lost(exc) from None
        except Exception as exc:
            if self.config.reconnects and is_transport_error(exc):
                raise self._lost(exc) from None
            if not isinstance(exc, MCPError):
                raise
            if exc.code == UNREADABLE_ANSWER and exc.data == UNREADABLE_MARK:
                raise self._unanswered(exc.message) from None
            await asyncio.sleep(0)  # let the transport's end reach ``_gone`` first
            if self._gone.is_set() or "Connection closed" in str(exc):
                self._gone.set()
                await self._not_connected.wait()  # the next call already knows it is down
                raise McpUnavailable(
                    f"The MCP server {self.name} stopped during the call ({exc}). "
                    "The user can reconnect it with /mcp."
                ) from None
            raise

    async def call(
        self,
        tool: str,
        args: dict[str, Any],
        progress: Any = None,
        *,
        timeout: float | None = None,
        max_tokens: int | None = None,
    ) -> ToolResult:
        """Call ``tool`` within ``timeout`` (default ``MCP_TOOL_TIMEOUT``); every failure is an
        is_error result (``progress`` as in :meth:`call_tool`; ``max_tokens``: the result's
        cut, default ``MAX_MCP_OUTPUT_TOKENS``)."""
        from mcp import MCPError
        from mcp_types import REQUEST_TIMEOUT

        timeout = tool_timeout() if timeout is None else timeout
        try:
            result = await self.call_tool(tool, args, timeout, progress)
        except McpCallFailed as exc:  # down, died, or answered with something unreadable
            return ToolResult(str(exc), is_error=True)
        except TimeoutError:
            return ToolResult(timed_out(self.name, timeout), is_error=True)
        except MCPError as exc:
            if exc.code == REQUEST_TIMEOUT:
                return ToolResult(timed_out(self.name, timeout), is_error=True)
            return ToolResult(f"The MCP server {self.name} answered with an error: {exc}", True)
        except Exception as exc:  # a transport failure, an invalid answer
            why = describe(exc)
            return ToolResult(f"The call to the MCP server {self.name} failed: {why}", True)
        return to_tool_result(result, max_tokens=max_tokens)

    async def _within(self, call: Any, timeout: float) -> Any:
        """Await the SDK's ``call`` until its answer, the deadline, or a line of garbage from
        the server; the SDK tells the server when it is cancelled (any way but its answer)."""
        task = asyncio.ensure_future(call)
        garbage: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._calls.add(garbage)
        answered = False
        try:
            await asyncio.wait(
                {task, garbage}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
            )
            answered = task.done()
        finally:  # also on Esc (CancelledError here): the call is cancelled, the server told
            self._calls.discard(garbage)
            if not task.done():
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
        if answered:
            return task.result()
        if garbage.done():
            line = garbage.result()
            raise self._unanswered(f"it wrote a line that is not an MCP message: {line}")
        raise TimeoutError

    def _unanswered(self, why: str) -> McpCallFailed:
        return McpCallFailed(
            f"The MCP server {self.name} sent an answer eddy cannot read ({why}). The call "
            f"was ended; its log ({self._log_path() or 'none'}) may say more. The server may "
            "have done part of the work."
        )

    def _lost(self, exc: BaseException) -> McpUnavailable:
        """The connection broke during a call: end it (the lifetime reconnects an HTTP
        server with backoff; a stdio server is failed until /mcp reconnects it)."""
        self._gone.set()
        again = "eddy reconnects it" if self.config.reconnects else "/mcp reconnects it"
        return McpUnavailable(
            f"The connection to the MCP server {self.name} was lost during the call "
            f"({describe(exc)}); {again}."
        )

    async def get_prompt(self, name: str, args: dict[str, str]) -> Any:
        """The server's prompt ``name`` filled with ``args`` (``GetPromptResult``)."""
        return await self._ready().get_prompt(name, args)

    async def read_resource(self, uri: str) -> Any:
        """The resource at ``uri`` (``ReadResourceResult``)."""
        return await self._ready().read_resource(uri)


def timed_out(server: str, timeout: float | None) -> str:
    """What a call that got no answer within ``timeout`` seconds returns."""
    return (
        f"The MCP server {server} did not answer within {timeout:g} s (MCP_TOOL_TIMEOUT); "
        "the call was cancelled."
    )


async def _all(method: Callable[..., Any], field: str) -> list[Any]:
    """Every page of a list method."""
    items: list[Any] = []
    cursor = None
    for _ in range(100):  # a server that pages forever cannot hang the start
        page = await method(cursor=cursor)
        items.extend(getattr(page, field))
        cursor = page.next_cursor
        if cursor is None:
            break
    return items


def _tool_key(tool: Any) -> tuple[Any, ...]:
    ann = tool.annotations
    read_only = bool(ann is not None and ann.read_only_hint)
    return (tool.name, tool.description, repr(tool.input_schema), read_only)
