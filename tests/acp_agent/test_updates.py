"""Engine events -> ACP updates, in process (the real process is driven in the other tests)."""

from __future__ import annotations

from pathlib import Path

from acp_agent.updates import AskPermission, QueueNotice, UpdateMapper
from agent import events as ev


def test_a_created_file_is_a_diff_without_old_text(tmp_path: Path) -> None:
    mapper = UpdateMapper(tmp_path)
    write = {"file_path": "new.py", "content": "x = 1\n"}
    [start] = mapper.updates(ev.ToolCallStarted(1, "c1", "Write", write, "new.py"))
    assert start.kind == "edit" and start.locations[0].path == str(tmp_path / "new.py")
    mapper.updates(ev.ToolCallRunning(1, "c1"))
    (tmp_path / "new.py").write_text("x = 1\n")  # what the tool did
    [end] = mapper.updates(ev.ToolCallFinished(1, "c1", "Write", "done", "Created new.py", False))
    assert end.status == "completed"
    assert (end.content[0].type, end.content[0].old_text, end.content[0].new_text) == (
        "diff",
        None,
        "x = 1\n",
    )


def test_refused_and_interrupted_calls_end_failed_with_their_result_text(tmp_path: Path) -> None:
    mapper = UpdateMapper(tmp_path)
    for status in ("refused", "interrupted"):
        mapper.updates(ev.ToolCallStarted(1, status, "Edit", {"file_path": "a"}, "a"))
        [end] = mapper.updates(ev.ToolCallFinished(1, status, "Edit", status, "why", True))
        assert end.status == "failed" and end.content[0].content.text == "why"
        assert end.raw_output == {"content": "why", "is_error": True, "status": status}


def test_command_output_streams_as_the_whole_output_so_far(tmp_path: Path) -> None:
    mapper = UpdateMapper(tmp_path)
    mapper.updates(ev.ToolCallStarted(1, "b", "Bash", {"command": "make"}, "make"))
    mapper.updates(ev.ToolOutputDelta(1, "b", "one\n"))
    [update] = mapper.updates(ev.ToolOutputDelta(1, "b", "two\n"))
    assert update.content[0].content.text == "one\ntwo\n"


def test_replay_shows_prompts_and_corrections_as_the_users_and_live_does_not(
    tmp_path: Path,
) -> None:
    live, replay = UpdateMapper(tmp_path), UpdateMapper(tmp_path, replay=True)
    prompt = ev.TurnStarted(0, "hello")
    correction = ev.CorrectionsDelivered(0, ("also this",))
    assert live.updates(prompt) == [] and live.updates(correction) == []
    assert [u.content.text for u in replay.updates(prompt)] == ["hello"]
    assert [u.content.text for u in replay.updates(correction)] == ["also this"]
    assert replay.updates(ev.QueueChanged(("x",))) == []
    assert live.updates(ev.QueueChanged(("x",))) == [QueueNotice(("x",))]


def test_a_permission_question_carries_the_preview_diff(tmp_path: Path) -> None:
    mapper = UpdateMapper(tmp_path)
    asked = ev.PermissionRequested(1, "r1", "c1", "Write", {"file_path": "a"}, "a", preview="+x")
    [item] = mapper.updates(asked)
    assert isinstance(item, AskPermission)
    assert item.tool_call.tool_call_id == "c1" and item.tool_call.title == "Write a"
    assert item.tool_call.content[0].content.text == "```diff\n+x\n```"


def test_a_background_report_is_an_agent_message_and_its_turn_replays_no_user_text(
    tmp_path: Path,
) -> None:
    summary = 'Background command "make" completed (exit code 0)'
    [update] = UpdateMapper(tmp_path).updates(
        ev.BackgroundReported(3, "bash_1", "shell", "completed", summary)
    )
    assert update.session_update == "agent_message_chunk"
    assert summary in update.content.text
    replay = UpdateMapper(tmp_path, replay=True)
    assert replay.updates(ev.TurnStarted(4, summary, origin="background")) == []
