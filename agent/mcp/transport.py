"""How eddy reaches one MCP server: the SDK transport for its kind (stdio, SSE, streamable
HTTP) with the OAuth provider when logging in or logged in, the server's log file (its stderr
and what the SDK says about it go there, never to the terminal), a watch on the server's end of
the streams and on lines that are not MCP messages, and what a transport failure looks like.

A line the SDK cannot read as an MCP message is dropped by the SDK (with a logged traceback),
and the call it answered would wait forever. :func:`watched` sees it first:

- a JSON object with an ``id`` and no ``method`` (a response that fails MCP's schema, as
  ``"result": 42``) becomes an error response for that id (:data:`UNREADABLE_ANSWER`): the
  call ends at once;
- a JSON object with a ``method`` (a malformed request or notification of the server) is not
  an answer: it is only logged;
- anything else (a line that is not JSON, a half line, a string, a number, an array) is
  garbage: ``on_unreadable`` is told, and the connection ends the calls then in flight (an
  answer cannot be told apart from it). At start-up garbage is tolerated, as Claude Code does
  (some servers print a banner); it is named if the start then fails.

The connection that uses them (its states, lists and calls) is :mod:`agent.mcp.connection`.
The SDK is imported inside the functions: a session without servers pays nothing for it.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import os
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from agent.mcp.config import ServerConfig

UNREADABLE_ANSWER = -32700
"""The code of the error eddy puts in place of an answer it could not read (JSON-RPC's parse
error); its ``data`` is :data:`UNREADABLE_MARK`, so a server's own -32700 is told apart."""
UNREADABLE_MARK = "eddy: the server's answer was not an MCP message"
SHOWN_CHARS = 200
"""How much of an unreadable line a message quotes."""


def load_sdk(kind: str) -> None:
    """Import the SDK modules a server of ``kind`` needs (once per process; 2-3 s on a loaded
    machine), so that a start's timeout measures the server, not the import; in the MCP host
    without the SDK's server side while that works (:mod:`agent.mcp.client_only`)."""
    from agent.mcp.client_only import import_sdk

    def load() -> None:
        import mcp  # noqa: F401 - the client and the types

        if kind == "stdio":
            import mcp.client.stdio  # noqa: F401
        elif kind == "sse":
            import mcp.client.sse  # noqa: F401
        else:
            import mcp.client.streamable_http  # noqa: F401

    import_sdk(load)


async def open_transport(
    config: ServerConfig,
    stack: contextlib.AsyncExitStack,
    *,
    interactive: bool,
    opener: Any,
    say: Callable[[str], None],
    log: TextIO,
    on_unauthorized: Callable[[], None],
) -> Any:
    """The SDK transport (an async context manager of streams) for ``config``'s kind.

    Args:
        config: the server's configuration.
        stack: closes what the transport opens (the stderr log, the OAuth callback server).
        interactive: a ``/mcp login`` runs: a 401 hands off to the browser.
        opener: opens the authorization URL (None: ``agent.mcp.oauth.open_in_browser``).
        say: tells the user something (the authorization URL).
        log: the server's log (:func:`errlog`): a stdio server's stderr goes there.
        on_unauthorized: called when an HTTP response is a 401 (the SDK reports it as a
            generic error).
    """
    if config.kind == "sdk":  # McpManager.connect_through gives it its transport
        raise ValueError("an Agent SDK's in-process server has no transport here")
    if config.kind == "stdio":
        from mcp import StdioServerParameters
        from mcp.client.stdio import stdio_client

        params = StdioServerParameters(
            command=config.command, args=list(config.args), env=dict(config.env) or None
        )
        return stdio_client(params, errlog=log)
    if config.kind == "sse":
        from mcp.client.sse import sse_client

        return sse_client(
            config.url,
            headers=dict(config.headers),
            auth=await _auth(config, stack, interactive=interactive, opener=opener, say=say),
        )
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    http = create_mcp_http_client(
        headers=dict(config.headers),
        auth=await _auth(config, stack, interactive=interactive, opener=opener, say=say),
    )

    async def saw(response: Any) -> None:  # the SDK reports a 401 as a generic error
        if response.status_code == 401:
            on_unauthorized()

    http.event_hooks = {"request": [], "response": [saw]}
    return streamable_http_client(config.url, http_client=http)


async def _auth(
    config: ServerConfig,
    stack: contextlib.AsyncExitStack,
    *,
    interactive: bool,
    opener: Any,
    say: Callable[[str], None],
) -> Any:
    """The OAuth provider when logging in or logged in (and no header authorises)."""
    if any(k.lower() == "authorization" for k in config.headers):
        return None
    from agent.mcp import oauth

    if not (interactive or oauth.has_tokens(config)):
        return None
    return await oauth.provider(
        config,
        stack,
        interactive=interactive,
        opener=opener or oauth.open_in_browser,
        say=say,
    )


def errlog(path: Path | None) -> TextIO:
    """The server's log file: its stderr, and what the SDK says about it (``os.devnull``
    without a log path)."""
    if path is None:
        return open(os.devnull, "w")  # noqa: SIM115 - closed by the exit stack
    path.parent.mkdir(parents=True, exist_ok=True)
    return open(path, "w", encoding="utf-8")  # noqa: SIM115 - closed by the exit stack


def stderr_tail(path: Path | None) -> str:
    """The server's last line of stderr, for the reason it failed ("" if none)."""
    if path is None:
        return ""
    try:
        lines = [ln for ln in path.read_text(errors="replace").splitlines() if ln.strip()]
    except OSError:
        return ""
    return f" (its last words: {lines[-1].strip()[:200]})" if lines else ""


def status_of(exc: BaseException) -> int | None:
    """An HTTP status somewhere in ``exc`` (exception groups and causes included)."""
    seen: set[int] = set()
    stack = [exc]
    while stack:
        e = stack.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        response = getattr(e, "response", None)
        code = getattr(response, "status_code", None)
        if isinstance(code, int):
            return code
        stack.extend(getattr(e, "exceptions", ()))
        for nxt in (e.__cause__, e.__context__):
            if nxt is not None:
                stack.append(nxt)
    return None


def is_transport_error(exc: BaseException) -> bool:
    """An HTTP transport failure (httpx2's errors, or the SDK's own error for a response
    stream that broke), not an answer of the server."""
    if any(c.__module__.startswith(("httpx", "httpcore")) for c in type(exc).__mro__):
        return True
    return _stream_lost(exc)


def _stream_lost(exc: BaseException) -> bool:
    """The SDK's stand-in answer when a streamable HTTP response stream broke and did not
    resume (the server died mid-call): an ``MCPError`` of code CONNECTION_CLOSED that the
    SDK wrote itself (a server's own -32000 error is its answer, not a lost connection)."""
    from mcp import MCPError
    from mcp_types import CONNECTION_CLOSED

    return (
        isinstance(exc, MCPError)
        and exc.code == CONNECTION_CLOSED
        and exc.message.startswith(("SSE stream failed", "SSE stream ended"))
    )


_server_log: contextvars.ContextVar[TextIO | None] = contextvars.ContextVar(
    "eddy_mcp_server_log", default=None
)


class _ToServerLog(logging.Handler):
    """Writes the MCP SDK's log records to the log of the server the running task serves
    (each connection's task, and the SDK's tasks it starts, carry it in a context variable);
    records of no server are dropped: eddy's terminal never gets them."""

    def emit(self, record: logging.LogRecord) -> None:
        stream = _server_log.get()
        if stream is None or stream.closed:
            return
        try:
            stream.write(self.format(record) + "\n")
            stream.flush()
        except (OSError, ValueError):
            pass  # a full disk or a closed file: the log is best effort


SDK_LOGGERS = ("mcp", "client")
"""The loggers the MCP SDK logs under: its modules' own names, and ``client``, the bare name
its client session (``mcp.client.session``, the SDK 2.x) logs under, e.g. a notification
that fails the schema, with its traceback (found by a long fuzz run of the ACP server).
Another library's ``client`` records go the same way: to a server's log inside a
connection's task, nowhere outside one (eddy's terminal never shows library logs)."""

_ROUTED = _ToServerLog()
_ROUTED.setFormatter(logging.Formatter("eddy: the MCP SDK says (%(levelname)s): %(message)s"))


@contextlib.contextmanager
def sdk_logs_to(stream: TextIO) -> Iterator[None]:
    """Send what the MCP SDK logs, in this task and the tasks it starts, to ``stream`` (the
    server's log) instead of eddy's stderr (where a traceback would tear the TUI)."""
    for name in SDK_LOGGERS:
        sdk = logging.getLogger(name)
        if _ROUTED not in sdk.handlers:
            sdk.addHandler(_ROUTED)
            sdk.propagate = False
    token = _server_log.set(stream)
    try:
        yield
    finally:
        _server_log.reset(token)


@dataclass(frozen=True)
class Unreadable:
    """A line from the server that the SDK could not read as an MCP message.

    Attributes:
        text: the line, or what the SDK kept of it, shortened for a message.
        request_id: the id of the request it answers (a response that fails the schema),
            or None.
        is_message: it is a request or notification of the server (it has a ``method``):
            not an answer to anything.
    """

    text: str
    request_id: int | str | None = None
    is_message: bool = False


def _shown(value: Any) -> str:
    text = value if isinstance(value, str) else repr(value)
    text = " ".join(text.split())
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "..."


def unreadable(exc: Exception) -> Unreadable:
    """What an item the SDK could not parse was (pydantic's errors carry the line, or the
    object parsed from it)."""
    errors: list[Any] = []
    with contextlib.suppress(Exception):
        errors = list(exc.errors())  # type: ignore[attr-defined]
    inputs = [e.get("input") for e in errors if isinstance(e, dict)]
    obj = next((i for i in inputs if isinstance(i, dict)), None)
    if obj is None:
        first = inputs[0] if inputs else str(exc)
        return Unreadable(_shown(first))
    if "method" in obj:
        return Unreadable(_shown(obj), is_message=True)
    request_id = obj.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, int | str):
        return Unreadable(_shown(obj))
    return Unreadable(_shown(obj), request_id)


def unreadable_answer(bad: Unreadable, why: str) -> Any:
    """The error response eddy hands the SDK in place of the answer it could not read."""
    from mcp import types
    from mcp.shared.message import SessionMessage

    assert bad.request_id is not None
    error = types.ErrorData(
        code=UNREADABLE_ANSWER, message=f"{why}: {bad.text}", data=UNREADABLE_MARK
    )
    return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=bad.request_id, error=error))


def schema_problem(exc: Exception) -> str:
    """The first thing MCP's schema says is wrong with an answer, in a few words."""
    with contextlib.suppress(Exception):
        for e in exc.errors():  # type: ignore[attr-defined]
            where = ".".join(str(p) for p in e.get("loc", ()))
            if where.startswith(("JSONRPCResponse", "JSONRPCError")):
                return f"{where.partition('.')[2] or where}: {e.get('msg')}"
    return "it does not follow MCP's schema"


@contextlib.asynccontextmanager
async def watched(
    transport: Any,
    on_end: Callable[[], None],
    on_unreadable: Callable[[Unreadable], None] = lambda _bad: None,
) -> AsyncIterator[Any]:
    """The transport's streams, with ``on_end`` called when the server's side ends (a stdio
    process that exited, a dropped HTTP stream) and lines that are not MCP messages sorted
    out (see the module note): a relay sees every item of the read stream first."""
    import anyio

    async with transport as (read, write):
        send, recv = anyio.create_memory_object_stream[Any](16)

        async def relay() -> None:
            try:
                async with send:
                    async for item in read:
                        if isinstance(item, Exception) and is_transport_error(item):
                            break  # the stream broke (the server died): its end, not garbage
                        if isinstance(item, Exception):
                            bad = unreadable(item)
                            if bad.request_id is None:
                                on_unreadable(bad)
                                continue
                            why = f"it does not follow MCP's schema ({schema_problem(item)})"
                            item = unreadable_answer(bad, why)
                        await send.send(item)
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                pass
            finally:
                on_end()

        async with anyio.create_task_group() as tg:
            tg.start_soon(relay)
            try:
                yield recv, write
            finally:
                tg.cancel_scope.cancel()
