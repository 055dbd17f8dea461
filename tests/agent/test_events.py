"""Events survive the eddy-events round trip: ``from_json(json(to_json(e))) == e``."""

from __future__ import annotations

import json

import pytest

from agent import events as ev

DIFF = {"kind": "diff", "path": "a.py", "diff": "-a\n+b\n", "added": 1, "removed": 1}
ONE_OF_EACH: list[ev.Event] = [
    ev.TurnStarted(1, "fix it"),
    ev.ModelCallStarted(1, 1, 120),
    ev.TextDelta(1, "Hello"),
    ev.ThinkingDelta(1, "hmm"),
    ev.AssistantMessage(1, {"role": "assistant", "content": [{"type": "text", "text": "x"}]}, None),
    ev.ToolCallStarted(1, "t1", "Read", {"file_path": "a.py"}, "a.py"),
    ev.ToolCallRunning(1, "t1"),
    ev.ToolOutputDelta(1, "t1", "line\n"),
    ev.ToolCallFinished(1, "t1", "Edit", "done", [{"type": "text", "text": "ok"}], False, DIFF),
    ev.PermissionRequested(
        1, "r1", "t1", "Bash", {"command": "ls"}, "ls", "Bash(ls)", "no sandbox"
    ),
    ev.PermissionResolved(1, "r1", "allow"),
    ev.QuestionsAsked(1, "ask-1", "t2", ({"question": "Which?", "header": "Pick"},)),
    ev.QuestionsAnswered(1, "ask-1", {"Which?": "That one"}),
    ev.PlanReviewRequested(1, "plan-1", "t3", "1. do it"),
    ev.PlanReviewed(1, "plan-1", False, "plan", "not yet"),
    ev.CorrectionsDelivered(1, ("also the docs", "and tests")),
    ev.QueueChanged(("one", "two")),
    ev.UsageUpdated(1, {"input_tokens": 3}, 0.01, 0.02, 300, 1_000_000),
    ev.TodosUpdated(1, ({"content": "Read", "status": "completed"},)),
    ev.Notice(1, "cut off"),
    ev.Error(1, "overloaded", "overloaded"),
    ev.Interrupted(1),
    ev.HookStarted(1, "PreToolUse", "./check.sh", "s.json", "h-1"),
    ev.HookRan(1, "PreToolUse", "./check.sh", "s.json", 2, "blocked", "deny", "no", "", "no", 4),
    ev.PromptBlocked("the prompt", "no secrets", 1),
    ev.Compacted(1, "summary", 10, 4, True, 1_200),
    ev.RewindFinished("both", "p", ("a.py",), ("b.py",), (), ("db: not a file",), "Rewound.", 900),
    ev.PermissionModeChanged("plan"),
    ev.SessionRenamed("the title"),
    ev.TurnFinished(
        1, "success", 2, 3, 0.1, 0.2, 1500, {"output_tokens": 9}, "done", None, "end_turn", 1
    ),
    ev.SubagentEvent(1, "t1", "a1b2c3", "Explore", 1, ev.to_json(ev.Notice(1, "child says"))),
    ev.BackgroundChanged(1, 2, 1),
    ev.BackgroundReported(
        1, "bash_1", "shell", "completed", 'Background command "make" completed (exit code 0)'
    ),
]


def test_every_event_type_has_a_sample_here() -> None:
    assert {e.type for e in ONE_OF_EACH} == set(ev.EVENT_TYPES)


@pytest.mark.parametrize("event", ONE_OF_EACH, ids=lambda e: e.type)
def test_round_trip_through_a_json_line(event: ev.Event) -> None:
    line = json.dumps(ev.to_json(event))
    assert ev.from_json(json.loads(line)) == event


def test_unknown_keys_are_ignored_and_missing_fields_refused() -> None:
    assert ev.from_json({"type": "interrupted", "turn_id": 2, "new_field": 1}) == ev.Interrupted(2)
    with pytest.raises(ValueError, match="not an event"):
        ev.from_json({"type": "result", "subtype": "success"})
    with pytest.raises(ValueError, match="TextDelta"):
        ev.from_json({"type": "text_delta", "turn_id": 1})
