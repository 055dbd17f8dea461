"""The JSON-RPC wire of ``eddy --acp``: newline-delimited messages on stdio, checked before the
``acp`` package sees them.

The package's stdio reader hands every JSON value it parses to a receive loop that calls
``.get`` on it, so one line that is valid JSON but not an object (a batch ``[...]``, a string,
a number) ended the server with a traceback, and a line that is not JSON was logged with one.
:class:`LineTransport` is the package's message-level ``Transport`` (``send``, ``receive``,
``close``) over the same byte streams; it passes on only what the connection can handle and
answers the rest itself, as JSON-RPC 2.0 says, then reads on:

- a line that is not JSON: ``-32700 Parse error`` (id null);
- JSON that is not a request, a notification or a response (a string, a number, ``null``, an
  object without ``method`` and ``id``, a ``method`` that is not a string, an ``id`` that is
  not a string or a number, ``params`` that are not an object or array, a ``jsonrpc`` other
  than "2.0"): ``-32600 Invalid Request``, with the request's id when it has a valid one;
- a batch: eddy does not take batches (ACP clients send one message a line). An empty batch
  is one ``-32600``; otherwise each request in it gets a ``-32600`` with its id, in one array,
  as the spec's batch answer; notifications in it get nothing (the spec's rule).
- a notification eddy does not handle (any method but ``session/cancel`` and ``_``
  extensions), or a ``session/cancel`` with invalid params: ignored with a warning
  (notifications are never answered);
- a response to eddy's own request whose ``error`` is not an error object: passed on as an
  internal error, so the request waiting for it ends.

``jsonrpc`` may be absent (the package itself is lenient there). A client that hangs up, at
the end of its input or by closing the pipe eddy writes to, ends :meth:`LineTransport.receive`
with None: the connection closes and the server shuts its sessions down (said at INFO, no
traceback).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from dataclasses import dataclass
from typing import Any

from acp import RequestError, schema

log = logging.getLogger("eddy.acp")

NOT_A_BATCH = "eddy does not take JSON-RPC batches: send each message on its own line"
SHOWN_CHARS = 120
"""How much of an odd line the log shows."""
_GONE = (BrokenPipeError, ConnectionResetError, ConnectionError)


def _error(code_of: RequestError, message_id: Any, why: str) -> dict[str, Any]:
    error = code_of.to_error_obj()
    error["data"] = {"details": why}
    return {"jsonrpc": "2.0", "id": message_id, "error": error}


def _valid_id(value: Any) -> bool:
    """A JSON-RPC id: a string, a number or null (not a boolean, an array or an object)."""
    return value is None or (isinstance(value, str | int | float) and not isinstance(value, bool))


def _shown(text: str | bytes) -> str:
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    text = text.strip()
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "..."


@dataclass(frozen=True)
class Triage:
    """What to do with one line: pass a message on, answer it, log it (any of these).

    Attributes:
        message: the JSON-RPC message for the connection, or None.
        answer: what to write back (an error response or a batch's array), or None.
        warning: what the log says about the line ("" for an ordinary message).
    """

    message: dict[str, Any] | None = None
    answer: Any = None
    warning: str = ""


def _invalid(value: Any) -> str:
    """Why ``value`` is not a JSON-RPC request, notification or response ("" if it is one)."""
    if not isinstance(value, dict):
        return f"a JSON-RPC message is an object, not {type(value).__name__}"
    if "jsonrpc" in value and value["jsonrpc"] != "2.0":
        return 'jsonrpc must be "2.0"'
    if "id" in value and not _valid_id(value["id"]):
        return "id must be a string, a number or null"
    if "method" in value:
        if not isinstance(value["method"], str):
            return "method must be a string"
        params = value.get("params")
        if params is not None and not isinstance(params, dict | list):
            return "params must be an object or an array"
        return ""
    if "id" not in value:
        return "an object with neither method nor id"
    if ("result" in value) == ("error" in value):
        return "a response has exactly one of result and error"
    return ""


def _batch(items: list[Any]) -> Triage:
    if not items:
        return Triage(answer=_error(RequestError.invalid_request(), None, "an empty batch"))
    answers = []
    for item in items:
        if isinstance(item, dict) and "method" in item and "id" not in item and not _invalid(item):
            continue  # a notification: never answered
        item_id = item.get("id") if isinstance(item, dict) else None
        item_id = item_id if _valid_id(item_id) else None
        answers.append(_error(RequestError.invalid_request(), item_id, NOT_A_BATCH))
    return Triage(answer=answers or None, warning=f"a batch of {len(items)} ({NOT_A_BATCH})")


def _notification(message: dict[str, Any]) -> Triage:
    method = message["method"]
    if method.startswith("_"):
        return Triage(message)
    if method != "session/cancel":
        return Triage(warning=f"ignored the notification {method!r}: eddy does not handle it")
    try:
        schema.CancelNotification.model_validate(message.get("params"))
    except ValueError as exc:  # pydantic's ValidationError is a ValueError
        first = str(exc).splitlines()[0]
        return Triage(warning=f"ignored a session/cancel with invalid params ({first})")
    return Triage(message)


def _response(message: dict[str, Any]) -> Triage:
    error = message.get("error")
    if "error" in message and not (
        isinstance(error, dict)
        and isinstance(error.get("code"), int)
        and isinstance(error.get("message"), str)
    ):
        fixed = {
            "jsonrpc": "2.0",
            "id": message["id"],
            "error": RequestError.internal_error(
                {"details": "the client's error response was not an error object"}
            ).to_error_obj(),
        }
        return Triage(fixed, warning="the client answered with a malformed error object")
    return Triage(message)


def triage(line: bytes) -> Triage:
    """What the server does with one line from the client (see the module note)."""
    try:
        value = json.loads(line)
    except ValueError as exc:  # JSONDecodeError, or bytes that are not UTF-8
        answer = _error(RequestError.parse_error(), None, f"not JSON: {exc}")
        return Triage(answer=answer, warning=f"a line that is not JSON: {_shown(line)}")
    if isinstance(value, list):
        return _batch(value)
    why = _invalid(value)
    if why:
        message_id = value.get("id") if isinstance(value, dict) else None
        if not _valid_id(message_id):
            message_id = None
        answer = _error(RequestError.invalid_request(), message_id, why)
        return Triage(answer=answer, warning=f"an invalid request ({why}): {_shown(line)}")
    if "method" not in value:
        return _response(value)
    if "id" not in value:
        return _notification(value)
    return Triage(value)


class LineTransport:
    """``acp``'s message ``Transport`` over the client's byte streams (see the module note).

    Args:
        reader: the client's lines (stdin).
        writer: the way back to the client (the protocol's copy of stdout).
        closed: set when the client closes its end of ``writer``'s pipe (None: only a failed
            write tells).
    """

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        closed: asyncio.Event | None = None,
    ) -> None:
        self._reader = reader
        self._writer = writer
        self._closed = closed or asyncio.Event()
        self._lock = asyncio.Lock()
        self.client_gone = False
        """The client hung up (its input ended, its end of the pipe closed, or a write to it
        failed)."""

    async def send(self, message: dict[str, Any] | list[Any]) -> None:
        """Write one message (or a batch's answer); after the client went away, nothing."""
        if self.client_gone:
            return
        data = (json.dumps(message, separators=(",", ":")) + "\n").encode("utf-8")
        async with self._lock:
            try:
                self._writer.write(data)
                await self._writer.drain()
            except _GONE as exc:
                self._hang_up(f"writing to it failed ({type(exc).__name__})")
            except RuntimeError:  # a transport already closed
                self._hang_up("its pipe is closed")

    async def receive(self) -> dict[str, Any] | None:
        """The next message for the connection; None once the client is gone."""
        while not self.client_gone:
            line = await self._next_line()
            if line is None:
                self._hang_up("its input ended")
                return None
            if not line.strip():
                continue
            verdict = triage(line)
            if verdict.warning:
                log.warning("%s", verdict.warning)
            if verdict.answer is not None:
                await self.send(verdict.answer)
            if verdict.message is not None:
                return verdict.message
        return None

    async def close(self) -> None:
        """Stop writing (the connection is closing)."""
        self.client_gone = True
        with contextlib.suppress(Exception):
            self._writer.close()

    def _hang_up(self, why: str) -> None:
        if self.client_gone:
            return
        self.client_gone = True
        log.info("the client went away (%s): closing its sessions", why)
        self._closed.set()

    async def _next_line(self) -> bytes | None:
        """One line (without a limit on its length), or None at the end of the input or when
        the client went away meanwhile (its end of stdout closed, a failed write)."""
        read = asyncio.ensure_future(self._read_line())
        closed = asyncio.ensure_future(self._closed.wait())
        try:
            await asyncio.wait({read, closed}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (read, closed):
                if not task.done():
                    task.cancel()
            await asyncio.gather(read, closed, return_exceptions=True)
        if self._closed.is_set():
            self._hang_up("it closed its end of eddy's output")
            return None
        if read.cancelled() or read.exception() is not None:
            return None
        return read.result() or None

    async def _read_line(self) -> bytes:
        chunks: list[bytes] = []
        try:
            while True:
                try:
                    chunks.append(await self._reader.readuntil(b"\n"))
                    return b"".join(chunks)
                except asyncio.LimitOverrunError as exc:  # a long line: take what is there
                    chunks.append(await self._reader.readexactly(exc.consumed))
        except asyncio.IncompleteReadError as exc:  # the last line, without its newline
            chunks.append(exc.partial)
            return b"".join(chunks)
        except OSError:  # the pipe broke: as the end of the input
            return b"".join(chunks)
