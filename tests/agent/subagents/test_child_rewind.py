"""Checkpoints cover subagents: a child's file edits and shell changes are captured in the
checkpoint of the parent's prompt, so rewinding that prompt restores them too."""

from __future__ import annotations

from pathlib import Path

from agent import events as ev
from agent import ops
from agent.checkpoints.engine import CheckpointStore
from agent.messages import assistant
from tests.fakes.scripted import tool_call
from tests.helpers.subagents import TreeModel, tree_session


async def test_rewinding_the_parents_prompt_restores_what_its_child_changed(
    tmp_path: Path,
) -> None:
    call = tool_call("p1", "Agent", description="change", prompt="change files",
                     subagent_type="general-purpose")  # fmt: skip
    model = TreeModel(
        {
            "first": ["nothing to do", assistant(call), "delegated"],  # the main agent's
            "change files": [
                assistant(tool_call("w", "Write", file_path="new.txt", content="made\n")),
                assistant(tool_call("r", "Read", file_path="keep.txt")),
                assistant(
                    tool_call("e", "Edit", file_path="keep.txt", old_string="old", new_string="new")
                ),  # fmt: skip
                assistant(tool_call("b", "Bash", command="echo shell > sh.txt && rm gone.txt")),
                "changed",
            ],
        }
    )
    session, events = tree_session(tmp_path, model)
    ws = tmp_path / "ws"
    (ws / "keep.txt").write_text("old\n")
    (ws / "gone.txt").write_text("precious\n")
    session.attach_checkpoints(CheckpointStore(ws, tmp_path / "store"))
    for prompt in ("first", "delegate"):
        session.submit(ops.SubmitPrompt(prompt))
        await session.wait_idle()
    assert (ws / "new.txt").exists() and (ws / "sh.txt").exists()
    assert (ws / "keep.txt").read_text() == "new\n" and not (ws / "gone.txt").exists()
    entries = session.checkpoints()
    assert [e.prompt for e in entries] == ["first", "delegate"]
    assert entries[1].summary.startswith("4 files")

    session.submit(ops.Rewind(2, "code"))
    done = events.of(ev.RewindFinished)[-1]
    assert not done.conflicts, done
    assert not (ws / "new.txt").exists() and not (ws / "sh.txt").exists()
    assert (ws / "keep.txt").read_text() == "old\n"
    assert (ws / "gone.txt").read_text() == "precious\n"
    await session.close()
