"""An Agent SDK's in-process MCP server (``create_sdk_mcp_server``), reached through the
control channel.

The SDK names such a server in ``--mcp-config`` as ``{"type": "sdk", "name": ...}`` (or in
``initialize``'s ``sdkMcpServers``); the server itself lives in the SDK's process. Claude Code
talks to it by wrapping every JSON-RPC message in an ``mcp_message`` control request, whose
answer carries the server's JSON-RPC response (``{"mcp_response": ...}``; a notification is
acknowledged with an empty result).

:class:`ControlMcpTransport` is that path as an ``mcp`` client transport (an async context
manager of a read and a write stream), so eddy's MCP manager connects the server like any
other (agent/mcp/manager.py ``connect_through``): the same tool names (``mcp__server__tool``),
permission rules, results, Esc, ``/mcp`` states. It runs on the MCP manager's loop; the
control channel runs on the session's, so each message crosses with
``ControlChannel.request_threadsafe``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

from headless.control import ControlChannel, ControlError

Send = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]
"""Sends one JSON-RPC message to the server; returns the ``mcp_message`` answer."""


def channel_sender(channel: ControlChannel, server: str) -> Send:
    """A :data:`Send` for ``server`` over ``channel`` (from any loop)."""

    async def send(message: dict[str, Any]) -> dict[str, Any]:
        fields = {"server_name": server, "message": message}
        return await asyncio.wrap_future(channel.request_threadsafe("mcp_message", fields))

    return send


class ControlMcpTransport:
    """An ``mcp`` client transport whose messages go through ``send``.

    Args:
        server: the server's name (for error messages).
        send: delivers one JSON-RPC message and returns the control answer.
    """

    def __init__(self, server: str, send: Send) -> None:
        self.server = server
        self._send = send
        self._tasks: set[asyncio.Task[None]] = set()
        self._pump: asyncio.Task[None] | None = None

    async def __aenter__(self) -> tuple[Any, Any]:
        import anyio
        from mcp.shared.message import SessionMessage

        self._to_client, from_server = anyio.create_memory_object_stream[Any](64)
        to_server, self._from_client = anyio.create_memory_object_stream[SessionMessage](64)
        self._pump = asyncio.get_running_loop().create_task(self._forward())
        return from_server, to_server

    async def __aexit__(self, *exc: object) -> None:
        tasks = [t for t in (self._pump, *self._tasks) if t is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self._to_client.aclose()
        await self._from_client.aclose()

    async def _forward(self) -> None:
        """Each message the client writes goes out on its own (a slow tool call does not hold
        up a ping or another call)."""
        async with self._from_client:
            async for item in self._from_client:
                task = asyncio.get_running_loop().create_task(self._deliver(item))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)

    async def _deliver(self, item: Any) -> None:
        from mcp.shared.message import SessionMessage
        from mcp_types import JSONRPCRequest, jsonrpc_message_adapter

        message = item.message
        payload = message.model_dump(by_alias=True, mode="json", exclude_none=True)
        request_id = message.id if isinstance(message, JSONRPCRequest) else None
        try:
            answer = await self._send(payload)
            reply = answer.get("mcp_response")
            if not isinstance(reply, dict):
                raise ControlError("the answer has no mcp_response")
        except ControlError as exc:
            if request_id is None:
                return  # a notification: nobody waits for it
            text = f"the Agent SDK's MCP server {self.server} could not be reached: {exc}"
            reply = {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32603, "message": text}}
        if request_id is None or "id" not in reply:
            return  # the acknowledgement of a notification
        try:
            parsed = jsonrpc_message_adapter.validate_python(reply, by_name=False)
        except Exception as exc:  # the SDK answered something that is not JSON-RPC
            text = f"the Agent SDK's MCP server {self.server} answered invalid JSON-RPC: {exc}"
            error = {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32603, "message": text}}
            parsed = jsonrpc_message_adapter.validate_python(error, by_name=False)
        with contextlib.suppress(Exception):  # the client went away meanwhile
            await self._to_client.send(SessionMessage(parsed))
