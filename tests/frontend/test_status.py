"""The status model both UIs draw (frontend/status.py) follows the engine's events."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from agent import events as ev
from agent.session.status import SessionStatus
from frontend.status import StatusModel as Status


def resumed(context_tokens: int) -> SessionStatus:
    return SessionStatus(
        session_id="s",
        title=None,
        saved=True,
        workspace=Path("."),
        model="claude-sonnet-5-5",
        mode="default",
        save_rules=True,
        busy=False,
        queue=(),
        total_cost=0.8,
        run_cost=0.0,
        turns=3,
        messages=6,
        context_tokens=context_tokens,
        context_window=1_000_000,
        max_turns=None,
        max_budget_usd=None,
    )


def test_a_resumed_sessions_context_survives_the_first_call_of_a_turn() -> None:
    status = Status("", "")
    status.take_session(resumed(50_000))
    assert status.context_tokens == 50_000 and status.context_percent == 5  # of a 1M window
    status.follow(ev.TurnStarted(1, "go on"))
    status.follow(ev.ModelCallStarted(1, 1, 0))  # the turn knows nothing yet
    assert status.context_tokens == 50_000
    status.follow(ev.ModelCallStarted(1, 2, 61_000))
    assert status.context_tokens == 61_000


def rewound(mode: str, context_tokens: int | None) -> ev.RewindFinished:
    return ev.RewindFinished(mode, "x", (), (), (), (), "Rewound.", context_tokens)


def test_a_conversation_rewind_shows_the_estimate_of_what_was_kept() -> None:
    status = Status("", "")
    status.take_session(resumed(90_000))
    status.follow(rewound("code", None))
    assert status.context_tokens == 90_000  # code only: the conversation is unchanged
    status.follow(rewound("conversation", 12_000))  # the engine's estimate after the rewind
    assert status.context_tokens == 12_000


def test_a_turns_cost_adds_to_what_the_session_had_spent() -> None:
    status = Status("", "")
    status.take_session(dataclasses.replace(resumed(0), total_cost=0.5))
    status.follow(ev.TurnStarted(1, "go on"))
    status.follow(ev.UsageUpdated(1, {}, 0.1, 0.1, 10, 100))
    status.follow(ev.UsageUpdated(1, {}, 0.2, 0.3, 20, 100))  # the turn's total so far
    assert round(status.cost, 6) == 0.8
    status.follow(ev.TurnFinished(1, "success", 1, 2, 0.3, 0.8, 5))  # the session's total
    assert round(status.cost, 6) == 0.8
    status.follow(ev.PermissionModeChanged("plan"))
    assert status.mode == "plan"


def test_the_activity_follows_the_turn_and_a_command_that_runs_after_a_question() -> None:
    status = Status("", "")
    status.take_session(resumed(0))
    assert status.turns == 3 and not status.busy
    status.follow(ev.TurnStarted(1, "go"))
    assert status.busy and status.activity == "thinking"
    status.follow(ev.ToolCallStarted(1, "c1", "Bash", {"command": "make"}, "make"))
    status.follow(ev.PermissionRequested(1, "r1", "c1", "Bash", {}, "make"))
    assert status.activity == "waiting for permission"
    status.follow(ev.PermissionResolved(1, "r1", "allow"))
    status.follow(ev.ToolCallRunning(1, "c1"))
    assert status.activity == "running Bash"  # not "waiting for your answer" while it runs
    status.follow(ev.TurnFinished(1, "success", 2, 3, 0.25, 1.05, 0))
    assert not status.busy and status.cost == 1.05 and status.turns == 4  # one prompt more


def test_a_retry_after_overload_shows_in_the_status_until_the_model_answers() -> None:
    from agent.model.retry import retry_notice

    status = Status("", "")
    status.take_session(resumed(0))
    status.follow(ev.TurnStarted(1, "go"))
    status.follow(ev.Notice(1, retry_notice("API overloaded", 3, 10, 4.0)))
    assert status.activity == "API overloaded, retrying (3/10) in 4 s"
    status.follow(ev.Notice(1, "something else"))
    assert status.activity == "API overloaded, retrying (3/10) in 4 s"
    status.follow(ev.TextDelta(1, "hi"))
    assert status.activity == "responding"


def test_a_subagents_spend_shows_as_it_happens_and_its_tool_as_the_activity() -> None:
    status = Status("", "")
    status.take_session(dataclasses.replace(resumed(0), total_cost=0.5))
    status.follow(ev.TurnStarted(1, "go"))
    status.follow(ev.UsageUpdated(1, {}, 0.1, 0.1, 10, 100))
    child = ev.to_json(ev.UsageUpdated(1, {}, 0.2, 0.2, 10, 100))
    status.follow(ev.SubagentEvent(1, "p1", "a1", "Explore", 1, child))
    assert round(status.cost, 6) == 0.8  # 0.5 before, 0.1 the parent's, 0.2 the child's
    started = ev.to_json(ev.ToolCallStarted(1, "c1", "Read", {}, "a.py"))
    status.follow(ev.SubagentEvent(1, "p1", "a1", "Explore", 1, started))
    assert status.activity == "Explore agent: Read"
    status.follow(ev.UsageUpdated(1, {}, 0.1, 0.4, 10, 100))  # the turn's total has the child
    assert round(status.cost, 6) == 0.9
