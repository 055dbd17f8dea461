"""A streamed Messages API response, accumulated from its raw SSE events.

We read the event stream ourselves instead of through the SDK's accumulator because the
accumulator turns odd but harmless streams into exceptions that say nothing (a ``message_start``
without usage is an ``AttributeError``, invalid tool JSON a ``ValueError`` that ends the
stream) and drops what it does not model (a ``compaction_delta``'s content). Here every block
is kept as the dict the API sent, so server-side blocks go back byte for byte; a tool input
that is not valid JSON becomes an ``input_error`` the runner answers, so the model can retry in
the same turn; anything truly broken is a ``ModelError`` that says what was wrong.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from agent.messages import Block, Message, ToolUseBlock, block_from_param
from agent.model.pricing import Usage
from agent.model.protocol import ModelError, ModelResponse, StreamSink

INPUT_TYPES = ("tool_use", "server_tool_use", "mcp_tool_use")
"""Blocks whose ``input`` streams as ``input_json_delta`` fragments."""
OPAQUE = ("signature", "encrypted_content", "data")
"""Delta fields that carry a whole opaque token each time (the last one counts)."""


def _bad(what: str) -> ModelError:
    return ModelError("bad_response", f"The API sent {what}. Send a message to retry.")


async def sse_events(lines: AsyncIterator[str]) -> AsyncIterator[tuple[str, str]]:
    """The ``(event, data)`` pairs of an SSE body, given its lines (without newlines).

    An event without an ``event:`` field is dropped, as the SDK does; so is one that is not
    terminated by a blank line before the body ends.
    """
    name: str | None = None
    data: list[str] = []
    async for line in lines:
        if not line:
            if name is not None and data:
                yield name, "\n".join(data)
            name, data = None, []
        elif line.startswith(":"):
            continue
        else:
            field, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if field == "event":
                name = value
            elif field == "data":
                data.append(value)


def _usage(raw: Any) -> dict[str, Any]:
    """``raw`` if it is a JSON object, else an empty one (a missing usage is not an error)."""
    return raw if isinstance(raw, dict) else {}


class ResponseAccumulator:
    """Builds one response from its events, streaming text and finished blocks to ``sink``."""

    def __init__(self, sink: StreamSink) -> None:
        self.sink = sink
        self.started = False
        self.blocks: dict[int, dict[str, Any]] = {}
        self.done: dict[int, Block] = {}
        self._json: dict[int, list[str]] = {}
        self._grown: dict[int, dict[str, list[str]]] = {}
        """The text and thinking deltas of each block not finished yet, as they came: joined
        once when the block is read (adding each to one string copied it again each time)."""
        self.stop_reason: str | None = None
        self.usage: dict[str, Any] = {}

    def feed(self, name: str, data: str) -> None:
        """Apply one SSE event.

        Raises:
            ModelError: an SSE ``error`` event (kind ``stream_error``) or an event that cannot
                be understood (kind ``bad_response``).
        """
        if name == "ping":
            return
        try:
            event = json.loads(data)
        except ValueError:
            raise _bad(f"a {name} event whose data is not valid JSON ({data[:80]!r})") from None
        if not isinstance(event, dict):
            raise _bad(f"a {name} event whose data is not a JSON object")
        if name == "error":
            err = _usage(event.get("error"))
            kind, detail = err.get("type") or "error", err.get("message") or "no details"
            msg = f"The response stream failed mid-way ({kind}: {detail}). Send a message to retry."
            raise ModelError("stream_error", msg, 200)
        kind = event.get("type", name)
        raw = getattr(self.sink, "raw_event", None)
        if raw is not None:  # an optional sink method: headless stream-json's stream_event
            raw(event)
        if kind == "message_start":
            message = _usage(event.get("message"))
            self.usage = dict(_usage(message.get("usage")))
            self.started = True
            return
        if not self.started:
            raise _bad(f"a {kind} event before message_start")
        try:
            self._apply(kind, event)
        except (KeyError, TypeError, AttributeError) as exc:
            raise _bad(f"a malformed {kind} event ({type(exc).__name__}: {exc})") from None

    def _apply(self, kind: str, event: dict[str, Any]) -> None:
        if kind == "content_block_start":
            block = dict(event["content_block"])
            self.blocks[int(event["index"])] = block
            if block.get("type") in INPUT_TYPES:
                self._json[int(event["index"])] = []
        elif kind == "content_block_delta":
            self._delta(self.blocks[int(event["index"])], int(event["index"]), event["delta"])
        elif kind == "content_block_stop":
            index = int(event["index"])
            self.done[index] = self._finish(index, self._whole(index))
            self.sink.block_done(self.done[index])
        elif kind == "message_delta":
            delta = event.get("delta") or {}
            self.stop_reason = delta.get("stop_reason", self.stop_reason)
            # cumulative totals: overwrite, and keep message_start's fields it omits
            self.usage.update(
                {k: v for k, v in _usage(event.get("usage")).items() if v is not None}
            )

    def _delta(self, block: dict[str, Any], index: int, delta: dict[str, Any]) -> None:
        dtype = delta.get("type")
        if dtype == "text_delta":
            self._grow(index, "text", delta["text"])
            self.sink.text(delta["text"])
        elif dtype == "thinking_delta":
            self._grow(index, "thinking", delta["thinking"])
            self.sink.thinking(delta["thinking"])
        elif dtype == "input_json_delta":
            part = delta["partial_json"]
            if not isinstance(part, str):
                raise TypeError("a partial_json that is not a string")
            self._json.setdefault(index, []).append(part)
        elif dtype == "citations_delta":
            block.setdefault("citations", []).append(delta["citation"])
        else:  # signature_delta, compaction_delta, and deltas not invented yet: merge fields
            block = self._whole(index)
            for key, value in delta.items():
                if key == "type":
                    continue
                old = block.get(key)
                # text-like fields grow; opaque tokens are replaced by the newest one
                concat = isinstance(old, str) and isinstance(value, str) and key not in OPAQUE
                block[key] = old + value if concat else value

    def _grow(self, index: int, key: str, text: Any) -> None:
        """Keep ``text`` for field ``key`` of block ``index`` (TypeError: not a string, or
        the field is not one, as adding them would have raised)."""
        grown = self._grown.setdefault(index, {})
        if not isinstance(text, str) or (
            key not in grown and not isinstance(self.blocks[index].get(key, ""), str)
        ):
            raise TypeError(f"a {key} delta that does not add to a string")
        grown.setdefault(key, []).append(text)

    def _whole(self, index: int) -> dict[str, Any]:
        """Block ``index`` with the deltas it grew by so far."""
        block = self.blocks[index]
        for key, parts in self._grown.pop(index, {}).items():
            block[key] = block.get(key, "") + "".join(parts)
        return block

    def _finish(self, index: int, block: dict[str, Any]) -> Block:
        """The finished block; a tool input that is not a JSON object becomes an input_error."""
        parts = self._json.pop(index, None)
        raw = None if parts is None else "".join(parts)
        if raw is None or not raw.strip():
            return block_from_param(block)  # the input came whole in content_block_start
        error: str | None
        try:
            value = json.loads(raw)
        except ValueError:
            value, error = {}, "the input was not valid JSON"
        else:
            error = None if isinstance(value, dict) else "the input was not a JSON object"
        if error is None:
            block["input"] = value
            return block_from_param(block)
        block["input"] = {}
        if block.get("type") != "tool_use":
            return block_from_param(block)
        return ToolUseBlock(str(block["id"]), str(block["name"]), {}, error)

    def response(self) -> ModelResponse:
        """The whole response; ``stop_reason`` None when the stream ended early."""
        blocks = tuple(
            self.done.get(i) or block_from_param({**b, "input": {}} if i in self._json else b)
            for i, b in sorted((i, self._whole(i)) for i in self.blocks)
        )
        return ModelResponse(Message("assistant", blocks), self.stop_reason, usage_of(self.usage))


def usage_of(raw: dict[str, Any]) -> Usage:
    """A ``Usage`` from the API's usage object (missing fields are 0)."""

    def get(name: str, source: dict[str, Any] = raw) -> int:
        value = source.get(name)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    creation = raw.get("cache_creation")
    one_hour = get("ephemeral_1h_input_tokens", creation) if isinstance(creation, dict) else 0
    return Usage(
        get("input_tokens"),
        get("output_tokens"),
        get("cache_creation_input_tokens"),
        get("cache_read_input_tokens"),
        one_hour,
    )
