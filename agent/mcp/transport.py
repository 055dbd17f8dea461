"""How eddy reaches one MCP server: the SDK transport for its kind (stdio, SSE, streamable
HTTP) with the OAuth provider when logging in or logged in, the file a stdio server's stderr
goes to (never the terminal), a watch on the server's end of the streams, and what a
transport failure looks like.

The connection that uses them (its states, lists and calls) is :mod:`agent.mcp.connection`.
The SDK is imported inside the functions: a session without servers pays nothing for it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from agent.mcp.config import ServerConfig


async def open_transport(
    config: ServerConfig,
    stack: contextlib.AsyncExitStack,
    *,
    interactive: bool,
    opener: Any,
    say: Callable[[str], None],
    log_path: Path | None,
    on_unauthorized: Callable[[], None],
) -> Any:
    """The SDK transport (an async context manager of streams) for ``config``'s kind.

    Args:
        config: the server's configuration.
        stack: closes what the transport opens (the stderr log, the OAuth callback server).
        interactive: a ``/mcp login`` runs: a 401 hands off to the browser.
        opener: opens the authorization URL (None: ``agent.mcp.oauth.open_in_browser``).
        say: tells the user something (the authorization URL).
        log_path: where a stdio server's stderr goes (None: nowhere).
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
        return stdio_client(params, errlog=stack.enter_context(errlog(log_path)))
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


def errlog(path: Path | None) -> Any:
    """The file a stdio server's stderr is written to (``os.devnull`` without a log path)."""
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
    """An HTTP transport failure (httpx2's errors), not an answer of the server."""
    return any(c.__module__.startswith(("httpx", "httpcore")) for c in type(exc).__mro__)


@contextlib.asynccontextmanager
async def watched(transport: Any, on_end: Callable[[], None]) -> AsyncIterator[Any]:
    """The transport's streams, with ``on_end`` called when the server's side ends (a stdio
    process that exited, a dropped HTTP stream): a relay sees the end of the read stream."""
    import anyio

    async with transport as (read, write):
        send, recv = anyio.create_memory_object_stream[Any](16)

        async def relay() -> None:
            try:
                async with send:
                    async for item in read:
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
