"""Plain mode's toolbar figures follow the engine's events."""

from __future__ import annotations

from types import SimpleNamespace

from agent import events as ev
from plain.status import Status


def resumed(context_tokens: int) -> SimpleNamespace:
    config = SimpleNamespace(model="claude-sonnet-5-5", policy=SimpleNamespace(mode="default"))
    return SimpleNamespace(config=config, total_cost=0.8, queue=[], context_tokens=context_tokens)


def test_a_resumed_sessions_context_survives_the_first_call_of_a_turn() -> None:
    session = resumed(50_000)
    status = Status("", "")
    status.take_session(session)
    assert status.context_tokens == 50_000 and status.context_percent == 5  # of a 1M window
    status.follow(ev.TurnStarted(1, "go on"), session)
    status.follow(ev.ModelCallStarted(1, 1, 0), session)  # the turn knows nothing yet
    assert status.context_tokens == 50_000
    status.follow(ev.ModelCallStarted(1, 2, 61_000), session)
    assert status.context_tokens == 61_000


def rewound(mode: str) -> ev.RewindFinished:
    return ev.RewindFinished(mode, "x", (), (), (), (), "Rewound.")


def test_a_conversation_rewind_shows_the_estimate_of_what_was_kept() -> None:
    session = resumed(90_000)
    status = Status("", "")
    status.take_session(session)
    session.context_tokens = 12_000  # the engine's estimate after the rewind
    status.follow(rewound("code"), session)
    assert status.context_tokens == 90_000  # code only: the conversation is unchanged
    status.follow(rewound("conversation"), session)
    assert status.context_tokens == 12_000


def test_an_answered_question_says_the_command_runs_not_waiting_for_an_answer() -> None:
    session = resumed(0)
    status = Status("", "")
    status.follow(ev.TurnStarted(1, "build"), session)
    status.follow(ev.ToolCallStarted(1, "c1", "Bash", {"command": "make"}, "make"), session)
    status.follow(ev.PermissionRequested(1, "r1", "c1", "Bash", {}, "make", None), session)
    assert status.activity == "waiting for your answer"
    status.follow(ev.PermissionResolved(1, "r1", "allow"), session)
    status.follow(ev.ToolCallRunning(1, "c1"), session)
    assert status.activity == "running Bash"  # issue 25: it said "waiting for your answer"
