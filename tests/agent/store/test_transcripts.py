"""Transcripts (issue 6): round trip, crash repair, queue restore, fork, listing, rewind."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent import events as ev
from agent import ops
from agent.messages import (
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    assistant,
    check_invariant,
    user,
)
from agent.session.config import SessionConfig
from agent.session.core import Session
from agent.store.format import encode, timestamp
from agent.store.listing import find_session, latest_session, list_sessions, sessions_dir
from agent.store.load import TranscriptError, load
from agent.store.repair import INTERRUPTED_RESULT, LOST_START, repair_history
from agent.store.transcript import SessionInUse, Transcript, fork
from agent.turn.loop import INTERRUPT_NOTE
from tests.fakes.scripted import ScriptedModel, tool_call
from tests.fakes.tools import FnTool
from tests.helpers.events import Events

MODEL = "claude-sonnet-5-5"


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "data"
    monkeypatch.setenv("EDDY_DATA_DIR", str(path))
    return path


@pytest.fixture
def cwd(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    return path


def add_prompt(history: list[Message], text: str) -> None:
    """What Session.add_prompt does: a prompt after an interruption joins the last user message."""
    if history and history[-1].role == "user":
        history[-1] = history[-1].with_blocks(TextBlock(text))
    else:
        history.append(user(text))


def valid_with_next_prompt(history: list[Message]) -> None:
    """The invariant a repaired history must satisfy: valid once the user writes again."""
    h = list(history)
    add_prompt(h, "next prompt")
    check_invariant(h)


def write_realistic(cwd: Path) -> tuple[Transcript, list[Message]]:
    """Prompts, thinking, tool calls and results, a delivered correction, an interrupt, a
    prompt joining the interrupted turn's last message, usage, todos, settings, a title."""
    t = Transcript.create(cwd, model=MODEL)
    h: list[Message] = []
    add_prompt(h, "fix the failing test in a.py")
    t.record_history(h, prompt="fix the failing test in a.py")
    h.append(
        assistant(
            ThinkingBlock("Let me look at the files.", "sig-1"),
            "Reading both files.",
            ToolUseBlock("t1", "Read", {"file_path": "a.py"}),
            ToolUseBlock("t2", "Read", {"file_path": "t.py"}),
        )
    )
    t.record_history(h)
    t.usage({"input_tokens": 100, "output_tokens": 40}, 0.25)
    t.queued("use pytest -x")
    h.append(
        user(
            ToolResultBlock("t1", "def f():\n    return 1\n"),
            ToolResultBlock("t2", "assert f() == 2  # ünïcødé ✓"),
            "use pytest -x",
        )
    )
    t.record_history(h, delivered=["use pytest -x"])
    h.append(assistant("Fixing.", ToolUseBlock("t3", "Edit", {"file_path": "a.py"})))
    t.record_history(h)
    t.usage({"input_tokens": 300, "output_tokens": 20}, 0.5)
    t.todos([{"content": "fix a.py", "status": "in_progress"}])
    h.append(user(ToolResultBlock("t3", "permission denied", is_error=True)))
    t.record_history(h)
    h.append(assistant("Done: f returns 2."))
    t.record_history(h)
    t.sync()
    add_prompt(h, "now run the whole suite")
    t.record_history(h, prompt="now run the whole suite")
    h.append(assistant(ToolUseBlock("t4", "Bash", {"command": "pytest"})))
    t.record_history(h)
    # Esc while the tool runs: the loop answers the call and adds the note.
    h.append(user(ToolResultBlock("t4", "The user interrupted", is_error=True), INTERRUPT_NOTE))
    t.record_history(h)
    t.interrupt()
    add_prompt(h, "only the fast tests")  # joins the interrupted turn's user message
    t.record_history(h, prompt="only the fast tests")
    h.append(assistant("12 passed."))
    t.record_history(h)
    t.usage({"input_tokens": 50, "output_tokens": 5}, 0.125)
    t.settings(model="claude-opus-5-5", permission_mode="acceptEdits")
    t.rename("fix f")
    t.sync()
    return t, h


# -- round trip ------------------------------------------------------------------------------
def test_round_trip_of_a_realistic_session(cwd: Path) -> None:
    t, h = write_realistic(cwd)
    t.close()
    s = load(t.path)
    assert s.history == h
    assert s.problems == []
    assert s.session_id == t.session_id and t.path.parent == sessions_dir(cwd)
    assert s.header["cwd"] == str(cwd) and s.header["model"] == MODEL
    assert s.model == "claude-opus-5-5" and s.permission_mode == "acceptEdits"
    assert s.total_cost_usd == pytest.approx(0.875)
    assert s.usage == {"input_tokens": 450, "output_tokens": 65}
    assert s.todos == [{"content": "fix a.py", "status": "in_progress"}]
    assert s.title == "fix f"
    assert s.queue == []
    assert s.turns == 3 and s.first_prompt == "fix the failing test in a.py"
    assert s.prompts == [
        (0, "fix the failing test in a.py"),
        (6, "now run the whole suite"),
        (8, "only the fast tests"),  # the replaced message keeps nothing it did not carry
    ]
    assert s.rewinds == 0 and s.last_activity is not None
    valid_with_next_prompt(s.history)


def test_the_file_is_jsonl_that_jq_reads(cwd: Path) -> None:
    t, _ = write_realistic(cwd)
    t.close()
    data = t.path.read_bytes()
    lines = data.split(b"\n")
    assert lines[-1] == b"" and all(lines[:-1])
    records = [json.loads(line) for line in lines[:-1]]
    assert records[0]["type"] == "header" and records[0]["version"] == 1
    assert {"session_id", "cwd", "model", "created"} <= records[0].keys()
    assert all(list(r)[:2] == ["type", "ts"] for r in records[1:])
    assert "ünïcødé ✓" in data.decode("utf-8")  # readable, not \\u-escaped
    if shutil.which("jq") is None:
        pytest.skip("jq is not installed")
    out = subprocess.run(
        ["jq", "-r", ".prompts[]?", str(t.path)], capture_output=True, text=True, check=True
    )
    assert out.stdout.splitlines() == [
        "fix the failing test in a.py",
        "now run the whole suite",
        "only the fast tests",
    ]
    cost = subprocess.run(
        ["jq", "-s", 'map(select(.type == "usage") | .cost_usd) | add', str(t.path)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert float(cost.stdout) == pytest.approx(0.875)


def test_each_record_is_one_write_of_a_whole_line(
    cwd: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = Transcript.create(cwd, model=MODEL)
    writes: list[bytes] = []
    real_write = os.write

    def spy(fd: int, data: Any) -> int:
        writes.append(bytes(data))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", spy)
    h = [user("x" * 100_000)]
    t.record_history(h, prompt="x" * 100_000)
    t.usage({"output_tokens": 1}, 0.0)
    monkeypatch.undo()
    t.close()
    assert len(writes) == 2 and all(w.endswith(b"\n") and w.count(b"\n") == 1 for w in writes)


def test_a_failed_write_does_not_glue_the_next_record_to_a_torn_line(
    cwd: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = Transcript.create(cwd, model=MODEL)
    real_write = os.write

    def half_then_fail(fd: int, data: Any) -> int:
        real_write(fd, bytes(data)[: len(data) // 2])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "write", half_then_fail)
    with pytest.raises(OSError):
        t.queued("lost")
    monkeypatch.undo()
    t.queued("kept")
    t.close()
    s = load(t.path)
    assert s.queue == ["kept"]
    assert any("unreadable line" in p for p in s.problems)


async def test_recording_a_real_session_round_trips(cwd: Path) -> None:
    """The wiring pattern: record the history after every event; prompts and corrections
    are marked; the loaded history is exactly the session's, and it can go on."""
    hang = asyncio.Event()
    gate = asyncio.Event()

    async def slow(args: dict[str, Any], ctx: Any) -> str:
        if args.get("hang"):
            await hang.wait()
        await gate.wait()
        return "worked " * 50

    model = ScriptedModel(
        [
            assistant(ThinkingBlock("hmm", "sig"), tool_call("w1", "Work")),
            "first done",
            assistant(tool_call("w2", "Work", hang=True)),
            "second done",
        ]
    )
    t = Transcript.create(cwd, model=MODEL)
    box: dict[str, Session] = {}
    seen: list[ev.Event] = []
    changed = asyncio.Event()

    def emit(event: ev.Event) -> None:
        seen.append(event)
        changed.set()
        history = box["s"].history
        if isinstance(event, ev.TurnStarted):
            t.record_history(history, prompt=event.prompt)
        elif isinstance(event, ev.CorrectionsDelivered):
            t.record_history(history, delivered=event.texts)
        else:
            t.record_history(history)
        if isinstance(event, ev.UsageUpdated):
            t.usage(event.usage, event.cost_usd)
        if isinstance(event, ev.Interrupted):
            t.interrupt()

    config = SessionConfig(workspace=cwd, model=MODEL)
    session = Session(config, model, [FnTool("Work", slow, read_only=True)], emit)
    box["s"] = session

    async def until(cond: Any) -> None:
        while not cond():
            changed.clear()
            await asyncio.wait_for(changed.wait(), 10)

    session.submit(ops.SubmitPrompt("first"))
    await until(lambda: any(isinstance(e, ev.ToolCallRunning) for e in seen))
    session.submit(ops.QueueCorrection("also this"))
    t.queued("also this")
    gate.set()
    await session.wait_idle()
    session.submit(ops.SubmitPrompt("second"))
    await until(lambda: sum(isinstance(e, ev.ToolCallRunning) for e in seen) == 2)
    session.submit(ops.Interrupt())
    await session.wait_idle()
    session.submit(ops.SubmitPrompt("third"))
    await session.wait_idle()
    t.close()

    s = load(t.path)
    assert s.history == session.history
    assert s.problems == [] and s.queue == []
    assert [p for _, p in s.prompts] == ["first", "second", "third"]
    third_at = s.prompts[2][0]  # "third" joined the interrupted turn's last message
    assert TextBlock(INTERRUPT_NOTE) in s.history[third_at].content
    assert s.history[third_at - 1].tool_uses
    valid_with_next_prompt(s.history)


# -- crashes ---------------------------------------------------------------------------------
def test_torn_last_line_at_every_byte_offset(cwd: Path, tmp_path: Path) -> None:
    t, h = write_realistic(cwd)
    h.append(assistant("Running it.", ToolUseBlock("t9", "Bash", {"command": "make"})))
    t.record_history(h)
    t.close()
    data = t.path.read_bytes()
    start = data.rstrip(b"\n").rfind(b"\n") + 1
    last = data[start:]
    before = h[:-1]
    broken = tmp_path / "broken.jsonl"
    for cut in range(len(last) + 1):
        broken.write_bytes(data[: start + cut])
        s = load(broken)
        if cut < len(last) - 1:  # the record is not all there: as if never written
            assert s.history == before, cut
            torn = [p for p in s.problems if "torn" in p]
            assert torn == ([f"ignored a torn last line ({cut} bytes)"] if cut else []), cut
        else:  # all of it, with or without its newline
            assert s.history[: len(h)] == h, cut
            assert not any("torn" in p for p in s.problems), cut
        valid_with_next_prompt(s.history)
        if cut % 7 == 0 or cut >= len(last) - 2:
            # Resuming it acknowledges the repair: the next load is clean and consistent.
            with Transcript.open(broken) as resumed:
                assert resumed.loaded is not None
                hist = list(resumed.loaded.history)
                add_prompt(hist, "go on")
                resumed.record_history(hist, prompt="go on")
            again = load(broken)
            assert again.problems == [], (cut, again.problems)
            assert again.history == hist
            check_invariant(again.history)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(fraction=st.floats(0, 1))
def test_a_kill_at_any_byte_leaves_a_resumable_session(cwd: Path, fraction: float) -> None:
    path = sessions_dir(cwd) / "source.jsonl"
    if not path.exists():
        t, _ = write_realistic(cwd)
        t.close()
        t.path.rename(path)
    data = path.read_bytes()
    cut = round(fraction * len(data))
    target = path.with_name("cut.jsonl")
    target.write_bytes(data[:cut])
    s = load(target)
    valid_with_next_prompt(s.history)
    # every prompt whose line was written whole is in the history
    whole = data[:cut]
    whole = whole[: whole.rfind(b"\n") + 1]
    for line in whole.splitlines():
        rec = json.loads(line)
        for prompt in rec.get("prompts", ()):
            assert any(
                isinstance(b, TextBlock) and b.text == prompt for m in s.history for b in m.content
            )
    with Transcript.open(target) as resumed:
        assert resumed.loaded is not None
        hist = list(resumed.loaded.history)
        add_prompt(hist, "continue")
        resumed.record_history(hist, prompt="continue")
    again = load(target)
    assert again.history == hist
    assert all("queued" in p for p in again.problems)  # a correction that was never sent


WRITER = """
import sys
from pathlib import Path
from agent.messages import ToolResultBlock, ToolUseBlock, assistant, user
from agent.store.transcript import Transcript

t = Transcript.create(Path(sys.argv[1]), model="m")
print(t.path, flush=True)
h = []
for i in range(10_000):
    h.append(user(f"prompt {i}"))
    t.record_history(h, prompt=f"prompt {i}")
    h.append(assistant(f"step {i}", ToolUseBlock(f"t{i}", "Read", {"n": i})))
    t.record_history(h)
    t.queued(f"correction {i}")
    h.append(user(ToolResultBlock(f"t{i}", "x" * 200_000), f"correction {i}"))
    t.record_history(h, delivered=[f"correction {i}"])
    h.append(assistant(f"done {i}"))
    t.record_history(h)
    t.sync()
    print(i, flush=True)
"""


@pytest.mark.parametrize("turns_before_kill", [0, 1, 2, 3, 5, 8])
def test_sigkill_while_writing_leaves_a_resumable_session(
    cwd: Path, data_dir: Path, turns_before_kill: int
) -> None:
    root = Path(__file__).resolve().parents[3]
    env = dict(os.environ, EDDY_DATA_DIR=str(data_dir), PYTHONPATH=str(root))
    child = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(cwd)], stdout=subprocess.PIPE, env=env, text=True
    )
    assert child.stdout is not None
    path = Path(child.stdout.readline().strip())
    for _ in range(turns_before_kill):
        child.stdout.readline()
    child.kill()  # SIGKILL, somewhere in the next turn's writes
    child.wait()
    child.stdout.close()
    s = load(path)
    valid_with_next_prompt(s.history)
    data = path.read_bytes()
    written = [json.loads(x) for x in data[: data.rfind(b"\n") + 1].splitlines()]
    prompts = [p for r in written for p in r.get("prompts", ())]
    assert len(prompts) >= turns_before_kill
    assert [p for _, p in s.prompts] == prompts
    with Transcript.open(path) as resumed:
        assert resumed.loaded is not None
        hist = list(resumed.loaded.history)
        add_prompt(hist, "after the crash")
        resumed.record_history(hist, prompt="after the crash")
    again = load(path)
    assert again.history == hist
    assert all("queued" in p for p in again.problems)
    check_invariant(again.history)


def test_tool_use_without_results_gets_interrupted_results(cwd: Path) -> None:
    t = Transcript.create(cwd, model=MODEL)
    h = [user("go")]
    t.record_history(h, prompt="go")
    h.append(assistant("Two things.", tool_call("a", "Read"), tool_call("b", "Bash")))
    t.record_history(h)
    t.close()  # killed while the tools ran

    s = load(t.path)
    assert s.history[:2] == h
    results = s.history[2].content
    assert [r.tool_use_id for r in results] == ["a", "b"]  # type: ignore[union-attr]
    assert all(isinstance(r, ToolResultBlock) and r.is_error for r in results)
    assert results[0].content == INTERRUPTED_RESULT  # type: ignore[union-attr]
    assert s.problems == ["added interrupted results for 2 tool calls"]
    valid_with_next_prompt(s.history)

    with Transcript.open(t.path) as resumed:
        assert resumed.loaded is not None
        hist = list(resumed.loaded.history)
        add_prompt(hist, "what happened?")
        resumed.record_history(hist, prompt="what happened?")
    again = load(t.path)
    assert again.problems == [] and again.history == hist
    check_invariant(again.history)
    assert [p for _, p in again.prompts] == ["go", "what happened?"]


def test_partial_and_orphan_results_are_repaired(cwd: Path) -> None:
    t = Transcript.create(cwd, model=MODEL)
    h = [
        user("go"),
        assistant(tool_call("a", "Read"), tool_call("b", "Read")),
        user(ToolResultBlock("zz", "answers nothing"), ToolResultBlock("b", "b ok"), "note"),
        assistant(TextBlock(""), ToolResultBlock("q", "misplaced")),  # empty after repair
        user(ToolResultBlock("a", "late")),
    ]
    for i, m in enumerate(h):
        t.append({"type": "message", "index": i, "message": m.to_param()})
    t.close()
    s = load(t.path)
    assert [m.role for m in s.history] == ["user", "assistant", "user"]
    assert s.history[2].content == (
        ToolResultBlock("a", INTERRUPTED_RESULT, True),
        ToolResultBlock("b", "b ok"),
        TextBlock("note"),
    )
    assert s.problems == [
        "added interrupted results for 1 tool call",
        "dropped 3 tool results that answered no tool call",
        "dropped 2 empty messages",
        "dropped 1 empty text block",
    ]
    valid_with_next_prompt(s.history)


def test_unreadable_middle_line_is_skipped_and_reported_once(cwd: Path) -> None:
    t, h = write_realistic(cwd)
    t.close()
    lines = t.path.read_bytes().split(b"\n")
    bad = next(i for i, line in enumerate(lines) if b'"index":3,' in line)
    lines[bad] = lines[bad][:40] + b"\x00garbage"
    t.path.write_bytes(b"\n".join(lines))
    s = load(t.path)
    assert s.problems[0] == f"skipped 1 unreadable line ({bad + 1})"
    assert "lost 1 message with the unreadable lines" in s.problems
    valid_with_next_prompt(s.history)
    Transcript.open(t.path).close()
    again = load(t.path)
    assert again.problems == [] and again.history == s.history


def test_lost_first_message_gets_a_note(cwd: Path) -> None:
    t = Transcript.create(cwd, model=MODEL)
    t.append({"type": "message", "index": 1, "message": assistant("hello").to_param()})
    t.close()
    s = load(t.path)
    assert s.history == [user(LOST_START), assistant("hello")]
    valid_with_next_prompt(s.history)


def test_an_absurd_index_is_treated_as_damage(cwd: Path) -> None:
    with Transcript.create(cwd, model=MODEL) as t:
        t.record_history([user("hi")], prompt="hi")
        t.append({"type": "message", "index": 10**9, "message": assistant("x").to_param()})
    s = load(t.path)
    assert s.history == [user("hi")] and s.problems == ["skipped 1 unreadable line (3)"]


def test_unreadable_header_and_newer_version(cwd: Path) -> None:
    t = Transcript.create(cwd, model=MODEL)
    t.record_history([user("hi")], prompt="hi")
    t.close()
    data = t.path.read_bytes()
    t.path.write_bytes(b"{not json" + data[data.index(b"\n") :])
    s = load(t.path)
    assert s.session_id == t.session_id and s.history == [user("hi")]
    assert "the header line is unreadable" in s.problems
    t.path.write_bytes(b'{"type":"header","version":2}\n')
    with pytest.raises(TranscriptError, match="version 2"):
        load(t.path)


def test_queue_replay_restores_what_was_never_sent(cwd: Path) -> None:
    t = Transcript.create(cwd, model=MODEL)
    h = [user("go")]
    t.record_history(h, prompt="go")
    h.append(assistant(tool_call("a", "Read")))
    t.record_history(h)
    t.queued("first")
    t.queued("typo")
    t.unqueued(-1, "typo")  # taken back to edit
    t.queued("second")
    h.append(user(ToolResultBlock("a", "ok"), "first", "second"))
    t.record_history(h, delivered=["first", "second"])
    h.append(assistant("done"))
    t.record_history(h)
    t.queued("third")
    t.queued("fourth")
    t.sync()
    s = load(t.path)
    assert s.queue == ["third", "fourth"]
    assert "restored 2 queued messages that were never sent" in s.problems
    # the queue became the next prompt: delivered with it
    add_prompt(h, "third\n\nfourth")
    t.record_history(h, prompt="third\n\nfourth", delivered=["third", "fourth"])
    t.queued("fifth")
    t.record_history(h, delivered=["fifth"])  # nothing changed: a delivered record
    t.close()
    s = load(t.path)
    assert s.queue == [] and s.problems == []
    assert s.history == h


def test_session_in_use(cwd: Path) -> None:
    t = Transcript.create(cwd, model=MODEL)
    with pytest.raises(SessionInUse):
        Transcript.open(t.path)
    t.close()
    Transcript.open(t.path).close()


def test_closing_releases_the_lock_a_forked_process_still_shares(cwd: Path) -> None:
    """A git or shell forked by another thread shares the open file until its exec closes it:
    closing the transcript releases the lock anyway, so the session can be resumed at once."""
    t = Transcript.create(cwd, model=MODEL)
    fds = Path("/proc/self/fd")
    mine = [int(f.name) for f in fds.iterdir() if os.path.realpath(f) == str(t.path)]
    assert len(mine) == 1
    shared = os.dup(mine[0])  # what the forked child holds
    try:
        t.close()
        Transcript.open(t.path).close()
    finally:
        os.close(shared)


def test_bad_session_ids_are_refused(cwd: Path) -> None:
    for bad in ("../x", "a/b", ".hidden", ""):
        with pytest.raises(TranscriptError):
            Transcript.create(cwd, model=MODEL, session_id=bad)
    with Transcript.create(cwd, model=MODEL, session_id="my-id_1.2") as t:
        assert t.path.name == "my-id_1.2.jsonl"
    with pytest.raises(FileExistsError):
        Transcript.create(cwd, model=MODEL, session_id="my-id_1.2")


def test_lone_surrogates_are_escaped(cwd: Path) -> None:
    h = [user("bad bytes: \udcff end")]
    with Transcript.create(cwd, model=MODEL) as t:
        t.record_history(h, prompt=h[0].text)
    t.path.read_bytes().decode("utf-8")  # still valid UTF-8
    assert load(t.path).history == h


# -- rewind and compaction -------------------------------------------------------------------
def conversation(n: int) -> list[Message]:
    out: list[Message] = []
    for i in range(n):
        out.append(user(f"prompt {i}") if i % 2 == 0 else assistant(f"answer {i}"))
    return out


def test_rewind_truncates_and_keeps_the_old_branch(cwd: Path) -> None:
    t = Transcript.create(cwd, model=MODEL)
    h = conversation(6)
    for i in range(0, 6, 2):
        t.record_history(h[: i + 1], prompt=h[i].text)
        t.record_history(h[: i + 2])
    t.rewind(2, restored_code=True)
    h = h[:2] + [user("other way"), assistant("ok")]
    t.record_history(h[:3], prompt="other way")
    t.record_history(h)
    t.close()
    s = load(t.path)
    assert s.history == h
    assert s.rewinds == 1 and s.turns == 2
    assert [p for _, p in s.prompts] == ["prompt 0", "other way"]
    assert b"answer 5" in t.path.read_bytes()  # the old branch is still readable
    rewind = [json.loads(x) for x in t.path.read_bytes().splitlines() if b'"rewind"' in x]
    assert rewind[0]["to_index"] == 2 and rewind[0]["restored_code"] is True


def test_a_shorter_history_is_recorded_as_a_rewind(cwd: Path) -> None:
    t = Transcript.create(cwd, model=MODEL)
    h = conversation(4)
    t.record_history(h)
    t.record_history(h[:1])  # the session truncated its history itself
    h2 = h[:1] + [assistant("different")]
    t.record_history(h2)
    h3 = [*h2[:1], h2[0].with_blocks(TextBlock("x"))]  # not an extension of message 1
    t.record_history(h3)
    t.close()
    s = load(t.path)
    assert s.history == h3 and s.rewinds == 2


def test_compaction_replaces_the_history(cwd: Path) -> None:
    t = Transcript.create(cwd, model=MODEL)
    h = conversation(4)
    t.record_history(h[:1], prompt="prompt 0")
    t.record_history(h[:3], prompt="prompt 2")
    t.record_history(h)
    compacted = [user("Summary of the conversation so far."), assistant("Understood.")]
    t.compaction(compacted, "summary text", messages_before=4)
    compacted.append(user("after"))
    t.record_history(compacted, prompt="after")
    t.close()
    s = load(t.path)
    assert s.history == compacted
    assert s.turns == 3 and s.prompts == [(2, "after")] and s.rewinds == 0


def test_checkpoints_are_kept_in_order(cwd: Path) -> None:
    with Transcript.create(cwd, model=MODEL) as t:
        t.checkpoint(0, id="cp-1", files=["a.py"])
        t.checkpoint(2, id="cp-2", files=[])
    s = load(t.path)
    assert [c["id"] for c in s.checkpoints] == ["cp-1", "cp-2"]


def test_bypass_permission_mode_is_not_restored(cwd: Path) -> None:
    with Transcript.create(cwd, model=MODEL) as t:
        t.settings(permission_mode="bypassPermissions")
    assert load(t.path).permission_mode is None


# -- fork ------------------------------------------------------------------------------------
def test_fork_leaves_the_original_byte_identical_and_forks_diverge(cwd: Path) -> None:
    t, h = write_realistic(cwd)
    t.queued("pending")
    t.close()
    original = t.path.read_bytes()
    a = fork(t.path)
    b = fork(t.path, "fork-b")
    assert t.path.read_bytes() == original
    assert a != b and b.name == "fork-b.jsonl" and a.parent == t.path.parent
    for path in (a, b):
        s = load(path)
        assert s.history == h and s.problems == ["restored 1 queued message that was never sent"]
        assert s.header["forked_from"] == {"session_id": t.session_id, "messages": len(h)}
        assert s.session_id != t.session_id
        assert s.prompts == load(t.path).prompts and s.turns == 3
        assert s.todos and s.model == "claude-opus-5-5" and s.total_cost_usd == 0
    for path, word in ((a, "left"), (b, "right")):
        with Transcript.open(path) as fork_t:
            assert fork_t.loaded is not None
            hist = list(fork_t.loaded.history)
            add_prompt(hist, f"go {word}")
            fork_t.record_history(hist, prompt=f"go {word}")
            hist.append(assistant(f"went {word}"))
            fork_t.record_history(hist)
    left, right = load(a), load(b)
    assert left.history[: len(h)] == right.history[: len(h)] == h
    assert left.history[-1] == assistant("went left")
    assert right.history[-1] == assistant("went right")
    assert t.path.read_bytes() == original
    assert load(t.path).history == h


def test_fork_of_a_damaged_session_is_repaired(cwd: Path) -> None:
    t = Transcript.create(cwd, model=MODEL)
    t.record_history([user("go"), assistant(tool_call("a", "Read"))], prompt="go")
    t.close()
    original = t.path.read_bytes()
    s = load(fork(t.path))
    assert s.problems == [] and len(s.history) == 3
    assert t.path.read_bytes() == original


# -- listing ---------------------------------------------------------------------------------
def make_session(cwd: Path, prompt: str, at: float, *, cost: float = 0.0) -> Transcript:
    t = Transcript.create(cwd, model=MODEL)
    h = [user(prompt)]
    t.append(
        {
            "type": "message",
            "ts": timestamp(at),
            "index": 0,
            "prompts": [prompt],
            "message": h[0].to_param(),
        }
    )
    t._recorded = list(h)
    if cost:
        t.append({"type": "usage", "ts": timestamp(at), "usage": {}, "cost_usd": cost})
    return t


def test_list_sessions_newest_first_with_fields(cwd: Path) -> None:
    assert list_sessions(cwd) == [] and latest_session(cwd) is None
    old = make_session(cwd, "oldest", 1_000_000, cost=0.5)
    mid = make_session(cwd, "middle", 2_000_000)
    new = make_session(cwd, "newest", 3_000_000, cost=1.25)
    empty = Transcript.create(cwd, model=MODEL)  # no messages: not offered
    h = [user("middle"), assistant("hi"), user("again"), assistant("yes")]
    mid.record_history(h[:2])
    mid.append({"type": "rewind", "ts": timestamp(4_000_000), "to_index": 1})
    mid.append({"type": "rename", "ts": timestamp(4_000_001), "title": "the middle one"})
    for t in (old, mid, new, empty):
        t.close()
    infos = list_sessions(cwd)
    assert [i.first_prompt for i in infos] == ["middle", "newest", "oldest"]
    m = infos[0]
    assert m.session_id == mid.session_id and m.path == mid.path
    assert m.title == "the middle one" and m.rewinds == 1 and m.messages == 1 and m.turns == 1
    assert m.last_activity == pytest.approx(4_000_001, abs=0.01)
    assert infos[1].total_cost_usd == 1.25 and infos[2].total_cost_usd == 0.5
    assert infos[1].model == MODEL and infos[1].size == new.path.stat().st_size
    assert len(list_sessions(cwd, include_empty=True)) == 4
    assert latest_session(cwd) == mid.path
    assert find_session(cwd, mid.session_id) == mid.path
    assert find_session(cwd, "nope") is None


def test_listing_reads_only_new_bytes_and_waits_for_torn_lines(cwd: Path) -> None:
    t = make_session(cwd, "first", 1_000_000, cost=1.0)
    t.close()
    assert list_sessions(cwd)[0].total_cost_usd == 1.0
    index = sessions_dir(cwd) / ".index.json"
    assert index.exists()
    line = (
        json.dumps(
            {"type": "usage", "ts": timestamp(5_000_000), "usage": {}, "cost_usd": 2.0},
            separators=(",", ":"),
        )
        + "\n"
    ).encode()
    with t.path.open("ab") as f:
        f.write(line[:20])  # a line being written
    info = list_sessions(cwd)[0]
    assert info.total_cost_usd == 1.0 and info.last_activity == pytest.approx(1_000_000, abs=0.01)
    with t.path.open("ab") as f:
        f.write(line[20:])
    info = list_sessions(cwd)[0]
    assert info.total_cost_usd == 3.0 and info.last_activity == pytest.approx(5_000_000, abs=0.01)
    # a rewritten file is read again from the start
    t.path.write_bytes(t.path.read_bytes().replace(b'"cost_usd":2.0', b'"cost_usd":7.0'))
    assert list_sessions(cwd)[0].total_cost_usd == 8.0  # the end changed
    t.path.write_bytes(t.path.read_bytes().replace(b'"cost_usd":1.0', b'"cost_usd":5.0'))
    os.utime(t.path, ns=(0, t.path.stat().st_mtime_ns + 10**9))
    assert list_sessions(cwd)[0].total_cost_usd == 12.0  # same size, touched
    index.write_text("{corrupt")
    assert list_sessions(cwd)[0].total_cost_usd == 12.0
    index.write_text(json.dumps({"version": 1, "files": {t.path.name: {"offset": 3}}}))
    assert list_sessions(cwd)[0].total_cost_usd == 12.0


def test_listing_agrees_with_load(cwd: Path) -> None:
    t, _ = write_realistic(cwd)
    t.rewind(2)
    t.record_history([*load(t.path).history[:2], user("x")], prompt="x")
    t.close()
    info, s = list_sessions(cwd)[0], load(t.path)
    assert (info.turns, info.rewinds, info.title, info.first_prompt) == (
        s.turns,
        s.rewinds,
        s.title,
        s.first_prompt,
    )
    assert info.messages == len(s.history) and info.model == s.model
    assert info.total_cost_usd == pytest.approx(s.total_cost_usd)


# -- repair properties -----------------------------------------------------------------------
ids = st.sampled_from(["a", "b", "c"])
block_st = st.one_of(
    st.builds(TextBlock, st.sampled_from(["", "hi"])),
    st.builds(ToolUseBlock, ids, st.just("Read"), st.just({})),
    st.builds(ToolResultBlock, ids, st.just("ok"), st.booleans()),
    st.builds(ThinkingBlock, st.just("t"), st.just("s")),
)
message_st = st.builds(
    Message, st.sampled_from(["user", "assistant"]), st.lists(block_st, max_size=4).map(tuple)
)


@given(st.lists(message_st, max_size=8))
def test_repair_makes_any_history_valid_and_is_idempotent(history: list[Message]) -> None:
    repaired = repair_history(history)
    valid_with_next_prompt(repaired.history)
    again = repair_history(repaired.history)
    assert again.history == repaired.history and again.problems == []
    assert len(repaired.origin) == len(repaired.history)
    for message, origin in zip(repaired.history, repaired.origin, strict=True):
        assert origin is None or message.role == history[origin].role
    if not repaired.problems:
        assert repaired.history == history


async def test_a_crash_mid_batch_keeps_the_results_of_the_calls_that_finished(tmp_path) -> None:
    """kill -9 while the second call of a batch runs: the file as it is then (every record is
    one unbuffered write) resumes with the first call's real result."""
    hang = asyncio.Event()

    async def slow(args, ctx):
        await hang.wait()
        return "never"

    model = ScriptedModel(
        [Message("assistant", (tool_call("t1", "Quick"), tool_call("t2", "Slow"))), "done"]
    )
    events = Events()
    config = SessionConfig(workspace=tmp_path, model=MODEL)
    config.policy.mode = "bypassPermissions"
    tools = [FnTool("Quick", lambda a, c: "the real result"), FnTool("Slow", slow)]
    session = Session(config, model, tools, events)
    transcript = Transcript.create(tmp_path, model=MODEL)
    session.attach_transcript(transcript)
    session.submit(ops.SubmitPrompt("go"))
    running = await events.wait_for(ev.ToolCallRunning, 2)
    assert running.call_id == "t2"
    crashed = tmp_path / "crashed.jsonl"
    shutil.copy(transcript.path, crashed)
    await session.close()
    transcript.close()
    loaded = load(crashed)
    results = loaded.history[2].content
    assert isinstance(results[0], ToolResultBlock) and results[0].content == "the real result"
    assert isinstance(results[1], ToolResultBlock) and results[1].is_error
    assert "kept the saved results of 1 tool call" in loaded.problems
    check_invariant(loaded.history)


def test_continue_finds_a_session_whose_first_message_record_was_torn(cwd: Path) -> None:
    older = make_session(cwd, "an older session", 1_000_000)
    older.close()
    torn = Transcript.create(cwd, model=MODEL)
    prompt = "please fix the failing build " * 20
    record = {
        "type": "message",
        "index": 0,
        "prompts": [prompt],
        "message": user(prompt).to_param(),
    }
    line = encode(record)
    torn.close()
    with torn.path.open("ab") as f:
        f.write(line[: len(line) - 40])  # the crash: the prompt is written, the message is not
    assert latest_session(cwd) == torn.path
    assert list_sessions(cwd)[0].first_prompt == prompt
    loaded = load(torn.path)
    assert [m.text for m in loaded.history] == [prompt]
    assert loaded.first_prompt == prompt
    assert "recovered the prompt of a torn last line" in loaded.problems
    reopened = Transcript.open(torn.path, loaded)  # resuming writes the repair: then it is whole
    reopened.close()
    again = load(torn.path)
    assert [m.text for m in again.history] == [prompt] and again.problems == []


def test_a_transcript_torn_inside_its_header_is_continued_at_every_byte(cwd: Path) -> None:
    """A crash while the header was written (issue 34): the torn header is repaired like any
    torn line; the id comes from the file name, ``--continue`` finds the session, and
    resuming it writes a header that stands in for the torn one."""
    header = Transcript.create(cwd, model=MODEL)
    header.close()
    data = header.path.read_bytes()
    session_id = header.path.name.removesuffix(".jsonl")
    for cut in range(1, len(data) - 1, 9):
        header.path.write_bytes(data[:cut])
        assert latest_session(cwd) == header.path, cut
        (info,) = list_sessions(cwd)
        assert info.session_id == session_id
        loaded = load(header.path)
        assert loaded.session_id == session_id and loaded.history == []
        assert "the header line is unreadable" in loaded.problems
        with Transcript.open(header.path) as resumed:
            hist: list[Message] = []
            add_prompt(hist, "go on")
            resumed.record_history(hist, prompt="go on")
        again = load(header.path)
        assert again.problems == [] and again.session_id == session_id, (cut, again.problems)
        assert [p for _, p in again.prompts] == ["go on"]
        assert list_sessions(cwd)[0].first_prompt == "go on"


def test_repair_drops_blank_text_a_resumed_history_may_hold() -> None:
    use = ToolUseBlock("u1", "Read", {})
    blank_result = ToolResultBlock("u1", ({"type": "text", "text": "  "},))
    history = [user("go", " "), assistant("\n\n", use), user(blank_result)]
    repaired = repair_history(history)
    check_invariant(repaired.history)
    assert repaired.history[2].content[0] == ToolResultBlock("u1", "(no output)")
    assert repair_history(repaired.history).problems == []
