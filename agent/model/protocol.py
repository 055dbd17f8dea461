"""The model protocol, the request/response types, and a scripted model for tests and demos.

The Anthropic streaming client lives in ``agent/model/anthropic.py`` so that importing this
module (and the loop) never loads the SDK.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol

from agent.messages import Block, Message, TextBlock
from agent.model.pricing import Usage


@dataclass
class ModelRequest:
    """Everything one model call sends (the history is passed as immutable messages).

    Without ``messages`` it is the stable part of every request of a session (its spec).
    """

    model: str
    messages: list[Message] = field(default_factory=list)
    system: list[dict[str, Any]] = field(default_factory=list)
    tools: list[dict[str, Any]] = field(default_factory=list)
    max_tokens: int = 32_000
    thinking: dict[str, Any] | None = None


@dataclass
class ModelResponse:
    """A complete response. ``stop_reason`` None means the stream ended early (incomplete).

    ``cost_usd`` overrides the price table (scripted models in tests).
    """

    message: Message
    stop_reason: str | None
    usage: Usage = field(default_factory=Usage)
    cost_usd: float | None = None


class ModelError(Exception):
    """A model call failed after the SDK's retries, or its stream broke.

    Attributes:
        kind: rate_limit, overloaded, authentication, permission, invalid_request, not_found,
            request_too_large, api_error, connection, timeout, stream_error, bad_response (the
            API sent something that is not a valid response: not SSE, bad JSON, events out
            of order).
        status: the HTTP status, when there was one.
        user_message: what happened and what the user can do, in one or two sentences.
    """

    def __init__(self, kind: str, user_message: str, status: int | None = None) -> None:
        super().__init__(user_message)
        self.kind = kind
        self.status = status
        self.user_message = user_message


class StreamSink(Protocol):
    """Receives a response as it streams."""

    def text(self, delta: str) -> None: ...

    def thinking(self, delta: str) -> None: ...

    def block_done(self, block: Block) -> None:
        """A content block is complete (kept if the user interrupts before the end)."""
        ...

    def retrying(self, notice: str) -> None:
        """The call failed before its response began and is retried after a wait; ``notice``
        says so for the user ("API overloaded, retrying (3/10) in 4 s")."""
        ...


class Model(Protocol):
    """Anything that turns a request into a streamed response."""

    name: str

    async def respond(self, request: ModelRequest, sink: StreamSink) -> ModelResponse:
        """Stream one response into ``sink`` and return it whole.

        Raises:
            ModelError: the call failed (after retries) or the stream broke.
        """
        ...


def estimate_tokens(obj: Any) -> int:
    """A rough token count (4 bytes a token) of a JSON-serialisable object."""
    return max(1, len(json.dumps(obj, separators=(",", ":"))) // 4)


def as_response(item: ModelResponse | Message | str, cost: float | None = None) -> ModelResponse:
    """Turn a script item into a response (stop_reason from whether it calls tools)."""
    if isinstance(item, ModelResponse):
        return item
    msg = Message("assistant", (TextBlock(item),)) if isinstance(item, str) else item
    stop = "tool_use" if msg.tool_uses else "end_turn"
    usage = Usage(output_tokens=estimate_tokens(msg.to_param()))
    return ModelResponse(msg, stop, usage, cost)
