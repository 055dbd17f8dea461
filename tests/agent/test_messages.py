"""check_invariant names the violated rule and the message index; params round-trip."""

from __future__ import annotations

import pytest

from agent.messages import (
    InvariantViolation,
    Message,
    OtherBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    assistant,
    check_invariant,
    message_from_param,
    user,
)
from agent.turn.normalise import normalise_assistant

USE = ToolUseBlock("u1", "Read", {"file_path": "a"})
USE2 = ToolUseBlock("u2", "Read", {"file_path": "b"})
RES = ToolResultBlock("u1", "x")
RES2 = ToolResultBlock("u2", "y")


@pytest.mark.parametrize(
    ("history", "rule", "index"),
    [
        ([], "P1", 0),
        ([assistant("hi")], "P1", 0),
        ([user("a"), assistant("b")], "P1", 1),
        ([user("a"), assistant(USE), user("no results")], "P2", 2),
        ([user("a"), assistant(USE, USE2), user(RES2, RES)], "P2", 2),  # wrong order
        ([user("a"), assistant(USE, USE2), user(RES)], "P2", 2),  # one missing
        ([user("a"), assistant(USE), user("text first", RES)], "P2", 2),
        ([user("a"), assistant(USE), assistant("b"), user("c")], "P2", 2),
        ([user(RES)], "P3", 0),  # a result that answers nothing
        ([user("a"), assistant(USE), user(RES, RES)], "P3", 2),
        ([user("a"), assistant("b"), user("c", RES)], "P3", 2),
        ([user("a"), Message("assistant", ()), user("b")], "empty", 1),
        ([user("a"), assistant(USE, USE), user(RES, RES)], "ids", 1),  # one response
        ([user("a"), assistant(USE), user(RES), assistant(USE), user(RES)], "ids", 3),
        ([user("a"), assistant("", USE2), user(RES2)], "text", 1),
        ([user("a"), assistant(" \n\n", USE2), user(RES2)], "text", 1),
        ([user("a"), assistant(ToolUseBlock("u1", "Read", [1])), user(RES)], "input", 1),  # type: ignore[arg-type]
        (
            [
                user("a"),
                assistant(
                    OtherBlock({"type": "redacted_thinking", "data": "x", "cache_control": {}})
                ),
                user("b"),
            ],
            "thinking",
            1,
        ),
    ],
)
def test_violations_name_rule_and_index(history, rule, index) -> None:
    with pytest.raises(InvariantViolation) as err:
        check_invariant(history)
    assert (err.value.rule, err.value.index) == (rule, index)


def test_ids_before_start_are_still_compared() -> None:
    history = [user("a"), assistant(USE), user(RES), assistant(USE), user(RES)]
    with pytest.raises(InvariantViolation) as err:
        check_invariant(history, start=3)
    assert err.value.rule == "ids"


def test_normaliser_drops_blank_text_and_gives_a_repeated_id_a_fresh_one() -> None:
    raw = assistant("", "\n\n", "ok", USE, ToolUseBlock("u1", "Read", {"file_path": "c"}))
    msg = normalise_assistant(raw, set())
    assert msg is not None
    ids = [u.id for u in msg.tool_uses]
    assert ids == ["u1", "u1_repeat2"] and msg.text == "ok"
    assert msg.tool_uses[0].input_error is None and msg.tool_uses[1].input_error
    again = normalise_assistant(assistant(USE), {"u1", "u1_repeat2"})
    assert again is not None and again.tool_uses[0].id == "u1_repeat3"


def test_normaliser_of_a_final_answer_drops_calls_and_lone_thinking() -> None:
    assert (
        normalise_assistant(assistant(ThinkingBlock("t", "s"), USE), set(), keep_tools=False)
        is None
    )
    assert normalise_assistant(assistant(" "), set()) is None
    kept = normalise_assistant(assistant("x", USE), set(), keep_tools=False)
    assert kept is not None and kept.tool_uses == [] and kept.text == "x"


def test_normaliser_keeps_a_valid_message_as_it_is() -> None:
    msg = assistant("ok", USE)
    assert normalise_assistant(msg, set()) is msg


def test_valid_histories() -> None:
    check_invariant([user("a")])
    check_invariant([user("a"), assistant(USE, USE2), user(RES, RES2, "correction")])
    check_invariant([user("a"), assistant("b")], at_rest=True)
    with pytest.raises(InvariantViolation):
        check_invariant([user("a"), assistant(USE)], at_rest=True)


def test_param_round_trip() -> None:
    msg = Message(
        "assistant",
        (ThinkingBlock("think", "sig=="), TextBlock("hi"), USE),
    )
    again = message_from_param(msg.to_param())
    assert again == msg
    assert again.to_param()["content"][0] == {
        "type": "thinking",
        "thinking": "think",
        "signature": "sig==",
    }
    res = Message("user", (ToolResultBlock("u1", ({"type": "text", "text": "t"},), True),))
    assert message_from_param(res.to_param()) == res
    assert message_from_param({"role": "user", "content": "plain"}) == user("plain")


def test_blank_text_inside_a_tool_result_is_a_violation() -> None:
    blank = ToolResultBlock("u1", ({"type": "text", "text": " \n"},))
    with pytest.raises(InvariantViolation) as err:
        check_invariant([user("a"), assistant(USE), user(blank)])
    assert err.value.rule == "text"
