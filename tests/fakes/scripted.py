"""A model that answers from a script (tests): the loop's third seam beside the fake Messages
API and the recorded event logs. Items are responses, assistant messages, strings (a text
answer) or exceptions; a function of the history may answer instead."""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from agent.messages import Message, TextBlock, ThinkingBlock, ToolUseBlock
from agent.model.pricing import Usage
from agent.model.protocol import (
    ModelRequest,
    ModelResponse,
    StreamSink,
    as_response,
    estimate_tokens,
)

ScriptItem = ModelResponse | Message | str | BaseException
ScriptFn = Callable[[list[Message]], "ScriptItem | Awaitable[ScriptItem]"]


class ScriptedModel:
    """A model that answers from a script: a list of items, or a function of the history.

    Items are ``ModelResponse``, an assistant ``Message``, a string (a text answer) or an
    exception (raised, to simulate a failed call). A function may be async (it can wait on an
    event, which is how tests interrupt a call mid-stream). Text is streamed to the sink in
    small pieces with a yield to the event loop between them.

    Args:
        script: the items or the function.
        cost_per_call: a fixed cost per response (overrides pricing), e.g. 3 in docs/loop.md.
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
