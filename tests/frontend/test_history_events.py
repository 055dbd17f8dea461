"""A saved history replays as the events a live turn would have emitted (history_events)."""

from __future__ import annotations

from typing import Any

from agent import events as ev
from agent.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from agent.turn.compact import SUMMARY_PREFIX
from frontend.history_events import history_events


def user(*blocks: Any) -> Message:
    return Message("user", tuple(blocks))


def assistant(*blocks: Any) -> Message:
    return Message("assistant", tuple(blocks))


def kinds(events: list[ev.Event]) -> list[str]:
    return [type(e).__name__ for e in events]


def test_a_prompt_its_tool_call_and_its_answer_replay_in_order_with_the_calls_summary() -> None:
    history = [
        user(TextBlock("list the files")),
        assistant(TextBlock("Looking."), ToolUseBlock("c1", "Bash", {"command": "ls"})),
        user(ToolResultBlock("c1", "a.py\nb.py")),
        assistant(TextBlock("Two files.")),
    ]
    events = list(history_events(history, lambda name, args: f"{name}: {args['command']}"))
    assert kinds(events) == [
        "TurnStarted",
        "TextDelta",
        "ToolCallStarted",
        "AssistantMessage",
        "ToolCallFinished",
        "TextDelta",
        "AssistantMessage",
        "TurnFinished",
    ]
    started, finished = events[2], events[4]
    assert isinstance(started, ev.ToolCallStarted) and started.summary == "Bash: ls"
    assert isinstance(finished, ev.ToolCallFinished)
    assert (finished.name, finished.status, finished.content) == ("Bash", "done", "a.py\nb.py")
    assert all(e.turn_id == 0 for e in events)


def test_a_summary_that_fails_leaves_the_call_without_a_line() -> None:
    def broken(name: str, args: dict[str, Any]) -> str:
        raise KeyError(name)

    events = list(history_events([assistant(ToolUseBlock("c1", "Read", {}))], broken))
    started = events[0]
    assert isinstance(started, ev.ToolCallStarted) and started.summary == ""


def test_interrupted_and_failed_results_replay_as_they_showed_live() -> None:
    history = [
        assistant(ToolUseBlock("c1", "Bash", {}), ToolUseBlock("c2", "Read", {})),
        user(
            ToolResultBlock("c1", "The user interrupted the command.", is_error=True),
            ToolResultBlock("c2", "no such file", is_error=True),
            ToolResultBlock("c9", ({"type": "text", "text": "x"},)),
        ),
    ]
    finished = [e for e in history_events(history) if isinstance(e, ev.ToolCallFinished)]
    assert [(e.name, e.status) for e in finished] == [
        ("Bash", "interrupted"),
        ("Read", "failed"),
        ("tool", "done"),  # a result whose call is not in the replayed tail
    ]
    assert finished[2].content == [{"type": "text", "text": "x"}]


def test_text_after_results_is_a_correction_and_hidden_text_is_not_shown() -> None:
    history = [
        user(TextBlock("<system-reminder>plan mode</system-reminder>"), TextBlock("go")),
        assistant(ToolUseBlock("c1", "Read", {})),
        user(ToolResultBlock("c1", "ok"), TextBlock("  "), TextBlock("use tabs")),
    ]
    events = list(history_events(history))
    prompts = [e.prompt for e in events if isinstance(e, ev.TurnStarted)]
    corrections = [e.texts for e in events if isinstance(e, ev.CorrectionsDelivered)]
    assert prompts == ["go"] and corrections == [("use tabs",)]


def test_a_compaction_summary_is_one_notice_and_shell_commands_are_bash_calls() -> None:
    history = [
        user(TextBlock(SUMMARY_PREFIX + "we did things")),
        user(TextBlock("<bash-input>ls</bash-input><bash-stdout>a.py</bash-stdout>")),
        user(TextBlock("<bash-input>pwd</bash-input><bash-stdout>/w</bash-stdout>")),
    ]
    events = list(history_events(history))
    notices = [e.text for e in events if isinstance(e, ev.Notice)]
    assert notices == ["Earlier messages were compacted into a summary."]
    calls = [(e.call_id, e.content) for e in events if isinstance(e, ev.ToolCallFinished)]
    assert calls == [("replayed-shell-1", "a.py"), ("replayed-shell-2", "/w")]
    assert not any(isinstance(e, ev.TurnStarted) for e in events)
