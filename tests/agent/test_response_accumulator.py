"""The stream accumulator keeps each block's deltas as they came and joins them once: the
blocks it returns are the same however the text was cut, also for a stream that ended early
and for a turn interrupted mid-block; a delta that does not add to a string is refused as it
was when each was added to the block at once."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent import events as ev
from agent.messages import Block, TextBlock, ThinkingBlock, ToolUseBlock
from agent.model.protocol import ModelError
from agent.model.stream import ResponseAccumulator
from agent.turn.sink import TurnSink


class Sink:
    def __init__(self) -> None:
        self.texts: list[str] = []
        self.done: list[Block] = []

    def text(self, delta: str) -> None:
        self.texts.append(delta)

    def thinking(self, delta: str) -> None:
        pass

    def block_done(self, block: Block) -> None:
        self.done.append(block)

    def retrying(self, notice: str) -> None:
        pass


def feed(acc: ResponseAccumulator, *events: dict[str, Any]) -> None:
    for event in events:
        acc.feed(event["type"], json.dumps(event))


START = {"type": "message_start", "message": {"usage": {"input_tokens": 1}}}


def start(index: int, block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_start", "index": index, "content_block": block}


def delta(index: int, **fields: Any) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": fields}


def stop(index: int) -> dict[str, Any]:
    return {"type": "content_block_stop", "index": index}


cuts = st.lists(st.text(max_size=12), max_size=30)


@given(texts=cuts, thoughts=cuts, inputs=st.lists(st.integers(0, 9), max_size=8))
def test_blocks_are_the_joined_deltas_however_they_were_cut(
    texts: list[str], thoughts: list[str], inputs: list[int]
) -> None:
    raw = json.dumps({"values": inputs})
    pieces = [raw[i : i + 3] for i in range(0, len(raw), 3)]
    acc = ResponseAccumulator(sink := Sink())
    feed(
        acc,
        START,
        start(0, {"type": "thinking", "thinking": "", "signature": ""}),
        *(delta(0, type="thinking_delta", thinking=t) for t in thoughts),
        delta(0, type="signature_delta", signature="sig"),
        stop(0),
        start(1, {"type": "text", "text": "A"}),
        *(delta(1, type="text_delta", text=t) for t in texts),
        stop(1),
        start(2, {"type": "tool_use", "id": "t1", "name": "Read", "input": {}}),
        *(delta(2, type="input_json_delta", partial_json=p) for p in pieces),
        stop(2),
    )
    blocks = acc.response().message.content
    assert blocks[0] == ThinkingBlock("".join(thoughts), "sig")
    assert blocks[1] == TextBlock("A" + "".join(texts))
    assert blocks[2] == ToolUseBlock("t1", "Read", {"values": inputs})
    assert sink.texts == texts


@given(texts=cuts)
def test_a_stream_that_ends_mid_block_keeps_its_text(texts: list[str]) -> None:
    acc = ResponseAccumulator(Sink())
    feed(
        acc,
        START,
        start(0, {"type": "text", "text": ""}),
        *(delta(0, type="text_delta", text=t) for t in texts),
    )
    response = acc.response()
    assert response.stop_reason is None
    assert response.message.content == (TextBlock("".join(texts)),)


def test_an_interrupted_turn_keeps_the_text_streamed_of_its_block() -> None:
    sink = TurnSink(lambda _event: None, ev.NO_TURN)
    sink.block_done(TextBlock("done"))
    for part in ("Half ", "an ", "answer"):
        sink.text(part)
    assert sink.partial().content == (TextBlock("done"), TextBlock("Half an answer"))
    sink.block_done(TextBlock("Half an answer"))
    assert sink.partial().content == (TextBlock("done"), TextBlock("Half an answer"))


@pytest.mark.parametrize(
    "block, bad",
    [
        ({"type": "text", "text": ""}, {"type": "text_delta", "text": 5}),
        ({"type": "text", "text": 5}, {"type": "text_delta", "text": "x"}),
        ({"type": "thinking", "thinking": ""}, {"type": "thinking_delta", "thinking": None}),
        (
            {"type": "tool_use", "id": "t", "name": "Read", "input": {}},
            {"type": "input_json_delta", "partial_json": ["{"]},
        ),
    ],
)
def test_a_delta_that_does_not_add_to_a_string_is_a_bad_response(
    block: dict[str, Any], bad: dict[str, Any]
) -> None:
    acc = ResponseAccumulator(Sink())
    feed(acc, START, start(0, block))
    with pytest.raises(ModelError) as caught:
        feed(acc, delta(0, **bad))
    assert caught.value.kind == "bad_response"
