"""A saved session whose main agent ran one Explore child (Read a.py, then an answer): the
real engine writes the main transcript and the child's ``subagents/agent-<id>.jsonl``."""

from __future__ import annotations

from pathlib import Path

from agent import ops
from agent.messages import assistant
from agent.store.transcript import Transcript
from tests.fakes.scripted import tool_call
from tests.helpers.subagents import TreeModel, tree_session

CHILD_PROMPT = "find the callers\nof x, everywhere"
"""The child's prompt (two lines: a summary shows the first)."""


async def session_with_child(tmp_path: Path, directory: Path | None = None) -> Path:
    """Run main -> Agent(Explore) -> child Read a.py -> "x is in a.py"; return the session's
    transcript (in ``directory``, default ``tmp_path / "sessions"``)."""
    call = tool_call("p1", "Agent", description="callers", prompt=CHILD_PROMPT,
                     subagent_type="Explore")  # fmt: skip
    model = TreeModel(
        {
            "go": [assistant(call), "found it"],
            CHILD_PROMPT: [
                assistant("Looking.", tool_call("c1", "Read", file_path="a.py")),
                "x is in a.py",
            ],
        },
        cost=0.01,
    )
    session, _ = tree_session(tmp_path, model)
    ws = tmp_path / "ws"
    (ws / "a.py").write_text("".join(f"x{n} = {n}\n" for n in range(1, 7)))  # 6 lines
    transcript = Transcript.create(
        ws, model="claude-sonnet-5-5", directory=directory or tmp_path / "sessions"
    )
    session.attach_transcript(transcript)
    session.submit(ops.SubmitPrompt("go"))
    await session.wait_idle()
    await session.close()
    return transcript.path
