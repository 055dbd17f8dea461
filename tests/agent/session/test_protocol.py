"""The protocol, closed: what front ends used to do behind the session's back is an op now,
answered by an event; the session owns its resources and tells what it is (``status()``)."""

from __future__ import annotations

import dataclasses
import errno
import json
from pathlib import Path

import pytest

from agent import events as ev
from agent import ops
from agent.checkpoints import engine
from agent.checkpoints.engine import CheckpointStore
from agent.messages import assistant
from agent.session.config import SessionConfig
from agent.session.core import Session
from agent.store.load import load
from agent.store.transcript import Transcript
from tests.fakes.scripted import ScriptedModel, tool_call
from tests.helpers.events import Events
from tools import default_tools

MODEL = "claude-sonnet-5-5"


def saved_session(tmp_path: Path, script: list | None = None) -> tuple[Session, Events]:
    """A session recorded in a transcript under ``tmp_path``, working in ``tmp_path/ws``."""
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    events = Events()
    session = Session(
        SessionConfig(workspace=ws, model=MODEL),
        ScriptedModel(script or ["ok"]),
        default_tools(),
        events,
    )
    session.attach_transcript(Transcript.create(ws, model=MODEL, directory=tmp_path / "s"))
    return session, events


def test_setting_the_permission_mode_is_applied_recorded_and_announced(tmp_path: Path) -> None:
    session, events = saved_session(tmp_path)
    session.submit(ops.SetPermissionMode("plan"))
    assert events.of(ev.PermissionModeChanged) == [ev.PermissionModeChanged("plan")]
    assert session.config.policy.mode == "plan" == session.status().mode
    transcript = session.transcript
    assert transcript is not None
    assert load(transcript.path).permission_mode == "plan"  # a resume comes back in plan mode


def test_an_unknown_permission_mode_is_an_error_and_changes_nothing(tmp_path: Path) -> None:
    session, events = saved_session(tmp_path)
    session.submit(ops.SetPermissionMode("yolo"))
    assert not events.of(ev.PermissionModeChanged)
    assert events.of(ev.Error)[-1].kind == "mode"
    assert session.status().mode == "default"


def test_rename_writes_the_title_and_answers_with_an_event(tmp_path: Path) -> None:
    session, events = saved_session(tmp_path)
    session.submit(ops.Rename("fix the parser"))
    assert events.of(ev.SessionRenamed) == [ev.SessionRenamed("fix the parser")]
    assert session.status().title == "fix the parser"
    transcript = session.transcript
    assert transcript is not None
    assert load(transcript.path).title == "fix the parser"


def test_renaming_an_unsaved_session_is_an_error(tmp_path: Path) -> None:
    events = Events()
    session = Session(SessionConfig(workspace=tmp_path, model=MODEL), ScriptedModel([]), [], events)
    session.submit(ops.Rename("title"))
    assert not events.of(ev.SessionRenamed)
    assert events.of(ev.Error)[-1].kind == "rename"
    assert session.status().title is None and not session.status().saved


async def test_the_permission_request_carries_the_diff_preview(tmp_path: Path) -> None:
    read = tool_call("r1", "Read", file_path="a.py")  # an edit of an unread file never asks
    edit = tool_call("e1", "Edit", file_path="a.py", old_string="bug", new_string="fixed")
    session, events = saved_session(tmp_path, [assistant(read), assistant(edit), "done"])
    (tmp_path / "ws" / "a.py").write_text("x = bug\n")
    session.submit(ops.SubmitPrompt("fix a.py"))
    asked = await events.wait_for(ev.PermissionRequested)
    assert asked.preview is not None
    assert "-x = bug\n" in asked.preview and "+x = fixed\n" in asked.preview
    assert ev.to_json(asked)["preview"] == asked.preview  # eddy-events shows it too
    session.submit(ops.AnswerPermission(asked.request_id, "deny"))
    await session.wait_idle()
    assert (tmp_path / "ws" / "a.py").read_text() == "x = bug\n"


async def test_a_bash_permission_request_has_no_preview(tmp_path: Path) -> None:
    touch = tool_call("b1", "Bash", command="touch b.txt")
    session, events = saved_session(tmp_path, [assistant(touch), "ok"])
    session.submit(ops.SubmitPrompt("list"))
    asked = await events.wait_for(ev.PermissionRequested)
    assert asked.preview is None
    session.submit(ops.Interrupt())
    await session.wait_idle()


class ClosingModel(ScriptedModel):
    closed = 0

    async def aclose(self) -> None:
        self.closed += 1


async def test_close_releases_the_model_the_transcript_and_the_checkpoint_store(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    write = tool_call("w1", "Write", file_path="a.txt", content="1")
    model = ClosingModel([assistant(write), "ok"])
    config = SessionConfig(workspace=ws, model=MODEL)
    config.policy.mode = "bypassPermissions"
    session = Session(config, model, default_tools(), Events())
    transcript = Transcript.create(ws, model=MODEL, directory=tmp_path / "s")
    session.attach_transcript(transcript)
    session.attach_checkpoints(CheckpointStore(ws, tmp_path / "store"))
    session.submit(ops.SubmitPrompt("write a"))
    await session.wait_idle()
    await session.close()
    await session.close()  # twice is harmless
    assert model.closed == 1
    assert transcript._fd is None
    saved = json.loads((tmp_path / "store" / engine.LOG_NAME).read_text())
    assert saved  # the store settled and saved its log on close
    again = CheckpointStore(ws, tmp_path / "store")
    assert again.load_problem is None and again.entries


async def test_a_failed_checkpoint_save_reaches_the_user_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    writes = [
        assistant(tool_call("w1", "Write", file_path="a.txt", content="1")),
        assistant(tool_call("w2", "Write", file_path="b.txt", content="2")),
        "ok",
    ]
    events = Events()
    config = SessionConfig(workspace=ws, model=MODEL)
    config.policy.mode = "bypassPermissions"
    session = Session(config, ScriptedModel(writes), default_tools(), events)
    session.attach_checkpoints(CheckpointStore(ws, tmp_path / "store"))

    def disk_full(*args: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(engine, "write_json", disk_full)
    session.submit(ops.SubmitPrompt("write two files"))
    await session.wait_idle()
    await session.close()
    told = [e for e in events.of(ev.Error) if e.kind == "checkpoints"]
    assert len(told) == 1  # every save failed; the user hears it once
    assert "No space left on device" in told[0].message
    assert told[0].turn_id == 1
    assert (ws / "a.txt").read_text() == "1" and (ws / "b.txt").read_text() == "2"


async def test_status_is_a_read_only_snapshot_of_the_session(tmp_path: Path) -> None:
    session, events = saved_session(tmp_path, ["one", "two"])
    session.submit(ops.SetLimits(max_turns=3, max_budget_usd=2.0))
    session.submit(ops.SubmitPrompt("hello"))
    before = session.status()
    assert before.busy
    await session.wait_idle()
    now = session.status()
    assert not now.busy and before.busy  # a snapshot: it does not follow the session
    assert now.session_id == session.config.session_id and now.saved
    assert now.model == MODEL and now.mode == "default"
    assert now.messages == 2 and now.queue == ()
    assert now.max_turns == 3 and now.max_budget_usd == 2.0
    assert now.context_tokens == session.context_tokens > 0
    assert now.context_window == 1_000_000
    finished = events.of(ev.TurnFinished)[-1]
    assert now.total_cost == finished.total_cost_usd == now.run_cost
    with pytest.raises(dataclasses.FrozenInstanceError):
        now.mode = "plan"  # type: ignore[misc]


async def test_turn_finished_carries_the_sessions_total_and_usage_the_turns(
    tmp_path: Path,
) -> None:
    script = [assistant(tool_call("r1", "Read", file_path="x")), "done", "again"]
    session, events = saved_session(tmp_path, script)
    session.config.policy.mode = "bypassPermissions"
    for prompt in ("first", "second"):
        session.submit(ops.SubmitPrompt(prompt))
        await session.wait_idle()
    first, second = events.of(ev.TurnFinished)
    usage_second = [u for u in events.of(ev.UsageUpdated) if u.turn_id == second.turn_id]
    assert usage_second[-1].total_cost_usd == pytest.approx(second.cost_usd)  # the turn's
    assert second.total_cost_usd == pytest.approx(first.cost_usd + second.cost_usd)
