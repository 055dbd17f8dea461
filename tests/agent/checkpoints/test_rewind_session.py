"""Rewind through the session: code (tools and shell), conversation, both, redo, conflicts."""

from __future__ import annotations

from pathlib import Path

from agent import events as ev
from agent import ops
from agent.checkpoints.engine import CheckpointStore
from agent.messages import TextBlock, assistant, check_invariant
from agent.session.config import SessionConfig
from agent.session.core import Session
from tests.fakes.scripted import ScriptedModel, tool_call
from tests.helpers.events import Events
from tools import default_tools


def scripted(tmp_path: Path) -> tuple[Session, Events, ScriptedModel]:
    script = [
        # prompt 1: a tool write and a shell command that creates and deletes files
        assistant(tool_call("w1", "Write", file_path="a.txt", content="one\n")),
        assistant(tool_call("b1", "Bash", command="echo made > b.txt && rm c.txt")),
        "first done",
        # prompt 2: an edit
        assistant(tool_call("r2", "Read", file_path="a.txt")),
        assistant(tool_call("e2", "Edit", file_path="a.txt", old_string="one", new_string="two")),
        "second done",
        "after the rewind",
    ]
    model = ScriptedModel(script)
    events = Events()
    config = SessionConfig(workspace=tmp_path / "ws", model="claude-sonnet-5-5")
    config.policy.mode = "bypassPermissions"
    session = Session(config, model, default_tools(), events)
    session.attach_checkpoints(CheckpointStore(tmp_path / "ws", tmp_path / "store"))
    return session, events, model


async def two_prompts(session: Session) -> None:
    for prompt in ("make files", "change a"):
        session.submit(ops.SubmitPrompt(prompt))
        await session.wait_idle()


async def test_rewind_code_and_conversation_then_redo(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "c.txt").write_text("precious\n")
    (ws / "untouched.txt").write_text("leave me\n")
    session, events, model = scripted(tmp_path)
    await two_prompts(session)
    assert (ws / "a.txt").read_text() == "two\n"
    entries = session.checkpoints()
    assert [e.prompt for e in entries] == ["make files", "change a"]
    assert entries[0].summary == "3 files +2 -1"
    assert entries[1].summary == "a.txt +1 -1"

    session.submit(ops.Rewind(2, "both"))
    done = events.of(ev.RewindFinished)[-1]
    assert done.prompt == "change a"  # goes back into the input
    assert (ws / "a.txt").read_text() == "one\n"
    assert session.history[-1].text == "first done"
    assert [e.prompt for e in session.checkpoints() if not e.redo] == ["make files"]

    session.submit(ops.Rewind(1, "both"))
    assert not (ws / "a.txt").exists() and not (ws / "b.txt").exists()
    assert (ws / "c.txt").read_text() == "precious\n"  # what the shell deleted is back
    assert (ws / "untouched.txt").read_text() == "leave me\n"
    assert session.history == []

    redo = [e for e in session.checkpoints() if e.redo][-1]
    session.submit(ops.Rewind(redo.number))
    assert (ws / "a.txt").read_text() == "one\n" and (ws / "b.txt").exists()
    assert not (ws / "c.txt").exists()
    assert session.history[-1].text == "first done"

    session.submit(ops.SubmitPrompt("again"))
    await session.wait_idle()
    sent = model.requests[-1].messages
    check_invariant(sent)
    assert sent[-1].content[-1] == TextBlock("again")
    assert len(sent) == 7  # the conversation before "change a", then the new prompt


async def test_code_only_and_conversation_only(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "c.txt").write_text("x\n")
    session, events, model = scripted(tmp_path)
    await two_prompts(session)
    length = len(session.history)
    session.submit(ops.Rewind(2, "code"))
    assert (ws / "a.txt").read_text() == "one\n" and len(session.history) == length
    assert events.of(ev.RewindFinished)[-1].prompt == ""
    session.submit(ops.Rewind(2, "conversation"))
    assert session.history[-1].text == "first done"


async def test_user_edit_since_is_a_conflict_left_alone(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "c.txt").write_text("x\n")
    session, events, model = scripted(tmp_path)
    await two_prompts(session)
    (ws / "a.txt").write_text("the user's own edit\n")
    assert session.rewind_conflicts(2) == ["a.txt"]
    session.submit(ops.Rewind(2, "code"))
    done = events.of(ev.RewindFinished)[-1]
    assert done.conflicts == ("a.txt",)
    assert (ws / "a.txt").read_text() == "the user's own edit\n"
    session.submit(ops.Rewind(2, "code", overwrite_conflicts=True))
    assert (ws / "a.txt").read_text() == "one\n"


async def test_rewind_while_busy_is_refused(tmp_path: Path) -> None:
    import asyncio

    gate = asyncio.Event()

    async def script(history):
        await gate.wait()
        return "ok"

    events = Events()
    session = Session(
        SessionConfig(workspace=tmp_path, model="claude-sonnet-5-5"),
        ScriptedModel(script),
        [],
        events,
    )
    session.submit(ops.SubmitPrompt("one"))
    await events.wait_for(ev.ModelCallStarted)
    session.submit(ops.Rewind(1))
    assert "Stop the running turn" in events.of(ev.Error)[-1].message
    gate.set()
    await session.wait_idle()
    session.submit(ops.Rewind(5))
    assert "no checkpoint 5" in events.of(ev.Error)[-1].message
