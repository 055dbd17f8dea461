"""A recorded event stream of a real session whose main agent starts one Explore child
(which reads a file, then answers): what the front-end tests of subagents render."""

from __future__ import annotations

from pathlib import Path

from agent import events as ev
from agent import ops
from agent.messages import assistant
from tests.fakes.scripted import tool_call
from tests.helpers.subagents import TreeModel, tree_session


async def one_child_events(tmp_path: Path) -> list[ev.Event]:
    """The events of: main -> Agent(Explore, "find x") -> child Read a.py -> "x is in a.py"."""
    call = tool_call("p1", "Agent", description="find x", prompt="find x",
                     subagent_type="Explore")  # fmt: skip
    model = TreeModel(
        {
            "go": [assistant(call), "found it"],
            "find x": [assistant(tool_call("c1", "Read", file_path="a.py")), "x is in a.py"],
        },
        cost=0.01,
    )
    session, events = tree_session(tmp_path, model)
    (tmp_path / "ws" / "a.py").write_text("x = 1\n")
    session.submit(ops.SubmitPrompt("go"))
    await session.wait_idle()
    await session.close()
    return events.all
