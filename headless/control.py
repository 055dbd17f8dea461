"""The Agent SDK's control channel: requests and responses as JSON lines, both ways.

Claude Code's stream-json control protocol (the Python SDK's ``_internal/query.py``, the
TypeScript SDK's ``SDKControlRequest``): either side sends
``{"type": "control_request", "request_id", "request": {"subtype", ...}}`` and the other
answers once with ``{"type": "control_response", "response": {"subtype": "success",
"request_id", "response": {...}}}`` or ``{"subtype": "error", "request_id", "error": "..."}``.
A side that no longer needs an answer sends ``{"type": "control_cancel_request",
"request_id"}``.

:class:`ControlChannel` is eddy's end of it: :meth:`ControlChannel.request` asks the SDK
(``can_use_tool``, ``hook_callback``, ``mcp_message``) and waits for the answer; its
cancellation (Esc stops the turn that asked) withdraws the request. :meth:`respond` and
:meth:`fail` answer the SDK's requests. When stdin ends nothing can answer any more:
:meth:`close` fails every request still waiting, so no caller waits forever.

Everything runs on the session's event loop; :meth:`request_threadsafe` is the way in from
another loop (the MCP servers' thread).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

WriteLine = Callable[[dict[str, Any]], None]


class ControlError(Exception):
    """The SDK answered a request with an error, or can no longer answer it (stdin ended)."""


class ControlChannel:
    """eddy's end of the control protocol.

    Args:
        write: writes one JSON object as one line on stdout (the stream's writer, so control
            lines and messages never interleave).
    """

    def __init__(self, write: WriteLine) -> None:
        self._write = write
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._closed = False
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def waiting(self) -> int:
        """Requests sent and not answered yet."""
        return len(self._pending)

    async def request(self, subtype: str, fields: dict[str, Any]) -> dict[str, Any]:
        """Send a request to the SDK and return its answer's ``response`` object.

        Raises:
            ControlError: the SDK answered with an error, or stdin ended first.
        """
        if self._closed:
            raise ControlError("the Agent SDK's input has ended: nobody can answer")
        self._loop = asyncio.get_running_loop()
        request_id = f"eddy-{uuid.uuid4().hex}"
        future: asyncio.Future[dict[str, Any]] = self._loop.create_future()
        self._pending[request_id] = future
        self._write(
            {
                "type": "control_request",
                "request_id": request_id,
                "request": {"subtype": subtype, **fields},
            }
        )
        try:
            return await future
        except asyncio.CancelledError:
            # withdrawn before an answer came (cancelling the wait cancels the future)
            if not self._closed and (future.cancelled() or not future.done()):
                self._write({"type": "control_cancel_request", "request_id": request_id})
            raise
        finally:
            self._pending.pop(request_id, None)

    def request_threadsafe(self, subtype: str, fields: dict[str, Any]) -> Future[dict[str, Any]]:
        """:meth:`request` from another thread's loop (cancelling the future withdraws it)."""
        loop = self._loop
        if loop is None:
            raise ControlError("the control channel is not running")
        return asyncio.run_coroutine_threadsafe(self.request(subtype, fields), loop)

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """The loop requests run on (``request_threadsafe`` reaches it)."""
        self._loop = loop

    def resolve(self, message: dict[str, Any]) -> bool:
        """Deliver a ``control_response`` line to the request it answers; False when no
        request waits for it (answered already, withdrawn, or unknown)."""
        response = message.get("response")
        if not isinstance(response, dict):
            return False
        future = self._pending.get(str(response.get("request_id")))
        if future is None or future.done():
            return False
        if response.get("subtype") == "error":
            future.set_exception(ControlError(str(response.get("error") or "unknown error")))
        else:
            answer = response.get("response")
            future.set_result(answer if isinstance(answer, dict) else {})
        return True

    def respond(self, request_id: str, response: dict[str, Any]) -> None:
        """Answer the SDK's request ``request_id`` with success."""
        self._write(
            {
                "type": "control_response",
                "response": {"subtype": "success", "request_id": request_id, "response": response},
            }
        )

    def fail(self, request_id: str, error: str) -> None:
        """Answer the SDK's request ``request_id`` with an error."""
        self._write(
            {
                "type": "control_response",
                "response": {"subtype": "error", "request_id": request_id, "error": error},
            }
        )

    def close(self) -> None:
        """stdin ended: every request still waiting fails (nobody can answer it now)."""
        self._closed = True
        for future in list(self._pending.values()):
            if not future.done():
                future.set_exception(ControlError("the Agent SDK's input ended before it answered"))
