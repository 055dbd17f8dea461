"""A message's JSON is written once and read back with the transcript (issue 32): a resumed
message's ``to_json`` is always exactly what encoding its API form gives, whatever its text
holds, and the lines written are those the record's own encoding gives."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent.messages import Message, compact_json
from agent.store.format import decode_line, encode, encode_message_record, record_message

TEXT = st.lists(
    st.one_of(
        st.characters(codec="utf-8"),  # everything but lone surrogates
        st.sampled_from(['"', "\\", "\x1b", "\n", "\x00", "\u2028", "é", ',"message":', "\ud800"]),
    ),
    max_size=12,
).map("".join)
LEAF = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), TEXT
)
VALUE = st.recursive(
    LEAF,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(TEXT, inner, max_size=3)),
    max_leaves=8,
)
BLOCK = st.one_of(
    st.builds(lambda t: {"type": "text", "text": t}, TEXT),
    st.builds(
        lambda t, c: {"type": "text", "text": t, "citations": c}, TEXT, st.lists(VALUE, max_size=2)
    ),
    st.builds(  # the fields in another order than eddy writes them
        lambda t, c: {"type": "text", "citations": c, "text": t}, TEXT, st.lists(VALUE, max_size=2)
    ),
    st.builds(
        lambda i, x: {"type": "tool_use", "id": i, "name": "Read", "input": x},
        TEXT,
        st.dictionaries(TEXT, VALUE, max_size=3),
    ),
    st.builds(
        lambda i, c, e: {"type": "tool_result", "tool_use_id": i, "content": c, "is_error": e},
        TEXT,
        st.one_of(TEXT, st.lists(st.builds(lambda t: {"type": "text", "text": t}, TEXT))),
        st.sampled_from([True, 1]),
    ),
    st.builds(lambda t: {"type": "thinking", "thinking": t, "signature": "s+/="}, TEXT),
    # a block eddy does not model, kept verbatim: any fields, a nested "message" too
    st.builds(lambda x: {"type": "server_tool_use", **x}, st.dictionaries(TEXT, VALUE, max_size=3)),
)
MESSAGE = st.builds(
    lambda role, blocks: {"role": role, "content": blocks},
    st.sampled_from(["user", "assistant"]),
    st.lists(BLOCK, min_size=1, max_size=4),
)


def encoded_or_error(value: Any) -> bytes | type[Exception]:
    try:
        return compact_json(value)
    except ValueError as exc:  # a lone surrogate
        return type(exc)


def to_json_or_error(message: Message) -> bytes | type[Exception]:
    try:
        return message.to_json()
    except ValueError as exc:
        return type(exc)


@settings(max_examples=300, deadline=None)
@given(param=MESSAGE, prompts=st.lists(TEXT, max_size=2))
def test_a_message_read_back_encodes_exactly_as_its_api_form(
    param: dict[str, Any], prompts: list[str]
) -> None:
    written = Message.from_param(param)
    line = encode_message_record(3, written, prompts=prompts)
    record, encoded = decode_line(line.rstrip(b"\n"))
    assert record == json.loads(line)
    read = Message.from_param(record["message"], encoded)
    assert read == written
    assert to_json_or_error(read) == encoded_or_error(read.to_param())


@settings(max_examples=300, deadline=None)
@given(param=MESSAGE)
def test_a_line_holding_another_form_of_the_message_is_encoded_from_the_api_form(
    param: dict[str, Any],
) -> None:
    """A line that an older eddy or an editor wrote holds the message as it was (key order,
    ``is_error: 1``, fields eddy drops): the API form eddy sends is encoded, not those bytes."""
    line = encode({"type": "message", "index": 0, "message": param})
    record, encoded = decode_line(line.rstrip(b"\n"))
    read = Message.from_param(record["message"], encoded)
    assert to_json_or_error(read) == encoded_or_error(read.to_param())


@settings(max_examples=300, deadline=None)
@given(param=MESSAGE, prompts=st.lists(TEXT, max_size=2), delivered=st.lists(TEXT, max_size=2))
def test_a_message_line_is_the_line_its_record_encodes_to(
    param: dict[str, Any], prompts: list[str], delivered: list[str]
) -> None:
    message = Message.from_param(param)
    line = encode_message_record(0, message, prompts=prompts, delivered=delivered)
    record = record_message(0, message, prompts=prompts, delivered=delivered)
    expected = encode({**record, "ts": json.loads(line)["ts"]})
    if isinstance(encoded_or_error(message.to_param()), bytes):
        assert line == expected
    else:  # a lone surrogate in the message: the whole line in ASCII, as before
        assert line == expected and line.isascii()


@pytest.mark.parametrize(
    "line",
    [
        # written in ASCII because of a lone surrogate: é is escaped, which the API form is not
        b'{"type":"message","ts":"t","index":0,"message":{"role":"user","content":'
        b'[{"type":"text","text":"caf\\u00e9 \\ud800"}]}}',
        # a field after the message
        b'{"type":"message","ts":"t","index":0,"message":{"role":"user","content":'
        b'[{"type":"text","text":"x"}]},"extra":1}',
        # the message field twice
        b'{"type":"message","ts":"t","index":0,"message":{"role":"user","content":[]},'
        b'"message":{"role":"user","content":[{"type":"text","text":"x"}]}}',
    ],
    ids=["ascii-escaped", "field-after-message", "message-twice"],
)
def test_a_line_whose_message_bytes_are_not_its_encoding_keeps_none(line: bytes) -> None:
    record, encoded = decode_line(line)
    assert record == json.loads(line)
    assert encoded is None


def test_control_characters_escaped_as_json_escapes_them_are_kept() -> None:
    message = Message.from_param(
        {"role": "user", "content": [{"type": "text", "text": "\x1b[31mred\x1b[0m\ttab"}]}
    )
    _, encoded = decode_line(encode_message_record(0, message).rstrip(b"\n"))
    assert encoded == compact_json(message.to_param())
