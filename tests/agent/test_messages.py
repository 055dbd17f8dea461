"""check_invariant names the violated rule and the message index; params round-trip."""

from __future__ import annotations

import pytest

from agent.messages import (
    InvariantViolation,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    assistant,
    check_invariant,
    message_from_param,
    user,
)

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
        ([user("a"), Message("assistant", ()), user("b")], "P1", 1),
    ],
)
def test_violations_name_rule_and_index(history, rule, index) -> None:
    with pytest.raises(InvariantViolation) as err:
        check_invariant(history)
    assert (err.value.rule, err.value.index) == (rule, index)


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
