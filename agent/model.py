"""The model protocol, the request/response types, and a scripted model for tests and demos.

The Anthropic streaming client lives in ``agent/anthropic_model.py`` so that importing this
module (and the loop) never loads the SDK.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from agent.messages import Block, Message, TextBlock, ThinkingBlock, ToolUseBlock
from agent.pricing import Usage


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


ScriptItem = ModelResponse | Message | str | BaseException
ScriptFn = Callable[[list[Message]], "ScriptItem | Awaitable[ScriptItem]"]


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


class ScriptedModel:
    """A model that answers from a script: a list of items, or a function of the history.

    Items are ``ModelResponse``, an assistant ``Message``, a string (a text answer) or an
    exception (raised, to simulate a failed call). A function may be async (it can wait on an
    event, which is how tests interrupt a call mid-stream). Text is streamed to the sink in
    small pieces with a yield to the event loop between them.

    Args:
        script: the items or the function.
        cost_per_call: a fixed cost per response (overrides pricing), e.g. 3 in LOOP-MODEL.md.
        name: the model name reported.
        chunk: characters per streamed text delta.
    """

    def __init__(
        self,
        script: Sequence[ScriptItem] | ScriptFn,
        *,
        cost_per_call: float | None = None,
        name: str = "scripted",
        chunk: int = 16,
    ) -> None:
        self.name = name
        self._fn = script if callable(script) else None
        self._items = list(script) if not callable(script) else []
        self._cost = cost_per_call
        self._chunk = chunk
        self.calls = 0
        self.requests: list[ModelRequest] = []

    async def respond(self, request: ModelRequest, sink: StreamSink) -> ModelResponse:
        self.calls += 1
        # a snapshot: the loop passes the live history, which grows after this call
        request = dataclasses.replace(request, messages=list(request.messages))
        self.requests.append(request)
        item: Any
        if self._fn is not None:
            item = self._fn(request.messages)
            if inspect.isawaitable(item):
                item = await item
        elif self._items:
            item = self._items.pop(0)
        else:
            item = "(script exhausted)"
        if isinstance(item, BaseException):
            raise item
        response = as_response(item, self._cost)
        for block in response.message.content:
            if isinstance(block, TextBlock):
                for i in range(0, len(block.text), self._chunk):
                    sink.text(block.text[i : i + self._chunk])
                    await asyncio.sleep(0)
            elif isinstance(block, ThinkingBlock):
                sink.thinking(block.thinking)
            sink.block_done(block)
        if response.usage.prompt_tokens == 0:
            prompt = estimate_tokens([m.to_param() for m in request.messages[-2:]])
            response.usage = Usage(prompt, response.usage.output_tokens)
        return response


def tool_call(call_id: str, name: str, **args: Any) -> ToolUseBlock:
    """Shorthand for scripts: ``tool_call("t1", "Read", file_path="a.py")``."""
    return ToolUseBlock(call_id, name, args)
