"""``eddy -p``'s model wrapper (headless/model_tap.py): raw stream events for stream-json's
partial messages, and the moment the first response began (MCP servers held for the first
request start then)."""

from __future__ import annotations

from typing import Any

from agent import events as ev
from agent.model.protocol import ModelRequest, ModelResponse, StreamSink, as_response
from agent.turn.sink import TurnSink
from headless.model_tap import TappedModel

EVENTS = [{"type": "message_start"}, {"type": "content_block_start"}, {"type": "message_stop"}]


class RawModel:
    """Streams :data:`EVENTS` as raw events to a sink that takes them (as agent/model/stream.py
    does), noting what had happened before each."""

    name = "raw"

    def __init__(self) -> None:
        self.seen: list[tuple[str, int]] = []
        self.answered = 0

    async def respond(self, request: ModelRequest, sink: StreamSink) -> ModelResponse:
        raw = getattr(sink, "raw_event", None)
        for event in EVENTS:
            if raw is not None:
                raw(event)
            self.seen.append((event["type"], self.answered))
        return as_response("ok")


async def test_the_first_response_is_told_once_and_raw_events_still_reach_stream_json() -> None:
    inner = RawModel()
    got: list[dict[str, Any]] = []

    def answered() -> None:
        inner.answered += 1

    model = TappedModel(inner, got.append, on_answered=answered)
    sink = TurnSink(lambda _e: None, ev.NO_TURN)
    await model.respond(ModelRequest("m"), sink)
    await model.respond(ModelRequest("m"), sink)
    assert inner.answered == 1
    assert inner.seen[0] == ("message_start", 1)  # told at the first event, before the rest
    assert got == EVENTS * 2  # every raw event of both calls, in order


async def test_without_stream_json_only_the_first_response_is_tapped() -> None:
    inner = RawModel()
    told: list[int] = []
    model = TappedModel(inner, None, on_answered=lambda: told.append(1))
    for _ in range(2):
        await model.respond(ModelRequest("m"), TurnSink(lambda _e: None, ev.NO_TURN))
    assert told == [1]
