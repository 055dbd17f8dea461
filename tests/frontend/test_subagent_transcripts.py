"""A session's child transcripts read back for the user: one summary per child, and one
child's whole transcript as lines; a damaged, missing or foreign file says so in a line."""

from __future__ import annotations

import json
from pathlib import Path

from agent.messages import Message, TextBlock, assistant
from agent.store.children import child_transcripts, subagents_dir
from agent.store.transcript import Transcript
from frontend.subagent_transcripts import (
    NO_RESULT,
    RESULT_LINES,
    child_summaries,
    summarize_child,
    transcript_lines,
)
from tests.fakes.scripted import tool_call
from tests.helpers.recorded_children import session_with_child


async def test_a_summary_says_who_the_child_was_what_it_was_asked_and_how_it_ended(
    tmp_path: Path,
) -> None:
    session = await session_with_child(tmp_path)
    (child,) = child_summaries(session)
    assert child.agent_type == "Explore" and child.path == child_transcripts(session)[0]
    assert child.path.name == f"agent-{child.agent_id}.jsonl"
    assert child.prompt == "find the callers"  # the first line of its prompt
    assert (child.turns, child.cost_usd, child.ended) == (1, 0.02, "success")
    assert child.last_activity is not None and not child.problem
    assert child.line() == (
        f"Explore {child.agent_id[:6]}: find the callers · 1 turn · $0.0200 · success"
    )


async def test_the_whole_transcript_shows_prompt_text_calls_cut_results_and_the_end(
    tmp_path: Path,
) -> None:
    session = await session_with_child(tmp_path)
    (path,) = child_transcripts(session)
    lines = transcript_lines(path)
    assert lines[0].startswith("Explore agent ")
    assert "› find the callers" in lines and "  of x, everywhere" in lines
    call = lines.index("● Read(a.py)")
    assert lines.index("Looking.") < call
    result = lines[call + 1 : call + 1 + RESULT_LINES + 1]
    assert result[0].startswith("  ⎿ ") and "x1 = 1" in result[0]
    assert "x4 = 4" in result[RESULT_LINES - 1] and result[RESULT_LINES] == "    … 2 more lines"
    assert not any("x5 = 5" in line for line in lines)  # cut to a few lines
    assert lines.index("x is in a.py") > call
    assert lines[-1].startswith("— success · 1 turn · $0.0200 · ")


async def test_a_torn_last_line_is_noted_and_the_rest_still_reads(tmp_path: Path) -> None:
    session = await session_with_child(tmp_path)
    (path,) = child_transcripts(session)
    with path.open("ab") as f:
        f.write(b'{"type":"message","ts":"2026-')  # eddy killed mid-write
    lines = transcript_lines(path)
    assert "● Read(a.py)" in lines and "x is in a.py" in lines
    assert any(line.startswith("(note: ignored a torn last line") for line in lines)
    assert summarize_child(path).ended == "success"


def test_a_missing_file_gives_one_clear_line(tmp_path: Path) -> None:
    gone = tmp_path / "agent-abc123.jsonl"
    assert transcript_lines(gone) == ["(the transcript agent-abc123.jsonl is missing)"]
    summary = summarize_child(gone)
    assert summary.problem and summary.agent_id == "abc123"
    assert summary.line() == "agent abc123: the transcript agent-abc123.jsonl is missing"


def test_an_unreadable_file_gives_one_clear_line(tmp_path: Path) -> None:
    unreadable = tmp_path / "agent-dir.jsonl"
    unreadable.mkdir()  # reading it fails with an OSError, as a permission problem would
    (line,) = transcript_lines(unreadable)
    assert line.startswith("(the transcript agent-dir.jsonl cannot be read: IsADirectoryError")


def test_a_file_of_another_format_says_it_is_not_an_eddy_transcript(tmp_path: Path) -> None:
    text = tmp_path / "agent-text.jsonl"
    text.write_text("hello\nworld\n")
    other = tmp_path / "agent-other.jsonl"
    other.write_text(json.dumps({"type": "user", "message": {"content": "hi"}}) + "\n")
    binary = tmp_path / "agent-bin.jsonl"
    binary.write_bytes(b"\xff\xfe\x00garbage\n")
    for path in (text, other, binary):
        assert transcript_lines(path) == [f"({path.name} is not an eddy transcript)"]
        assert summarize_child(path).problem == f"{path.name} is not an eddy transcript"


async def test_an_older_file_without_the_subagent_records_still_reads(tmp_path: Path) -> None:
    session = await session_with_child(tmp_path)
    (path,) = child_transcripts(session)
    kept = [ln for ln in path.read_text().splitlines() if '"type":"subagent' not in ln]
    path.write_text("\n".join(kept) + "\n")
    child = summarize_child(path)
    assert (child.agent_type, child.prompt, child.turns) == ("agent", "find the callers", 1)
    assert child.cost_usd == 0.02 and child.ended == ""  # cost from its usage records
    assert "no end recorded" in child.line()
    lines = transcript_lines(path)
    assert lines[0] == f"agent agent {child.agent_id} · claude-sonnet-5-5"
    assert lines[-1].startswith("— no end recorded")


def running_child(tmp_path: Path) -> Path:
    """A child recorded up to a tool call that has not finished (no result, no end)."""
    folder = subagents_dir(tmp_path / "s.jsonl")
    with Transcript.create(tmp_path, model="m", session_id="agent-run1", directory=folder) as t:
        t.append({"type": "subagent", "agent_id": "run1", "agent_type": "Plan", "depth": 2})
        history = [
            Message("user", (TextBlock("plan it"),)),
            assistant("Reading \x1b]52;c;ZXZpbA==\x07first\x1b[2J.", tool_call("c1", "Bash",
                                                                                command="ls")),
        ]  # fmt: skip
        t.record_history(history[:1], prompt="plan it")
        t.record_history(history)
        return t.path


def test_a_running_childs_unfinished_call_is_not_shown_as_interrupted(tmp_path: Path) -> None:
    path = running_child(tmp_path)
    lines = transcript_lines(path)
    assert lines[0] == "Plan agent run1 (depth 2) · m"
    call = lines.index("● Bash(ls)")
    assert lines[call + 1] == NO_RESULT
    assert not any(line.startswith("(note:") for line in lines)
    assert lines[-1].startswith("— no end recorded")
    (child,) = child_summaries(tmp_path / "s.jsonl")
    assert (child.agent_id, child.agent_type, child.turns, child.ended) == ("run1", "Plan", 1, "")
    assert child.cost_usd is None  # no usage recorded: unknown, not $0


def test_what_the_child_wrote_is_sanitised(tmp_path: Path) -> None:
    lines = transcript_lines(running_child(tmp_path))
    assert "Reading first." in lines
    assert not any("\x1b" in line or "\x07" in line for line in lines)
