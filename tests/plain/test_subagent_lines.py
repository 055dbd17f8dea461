"""Line mode prints a subagent's events as lines prefixed by the agent (type and id)."""

from __future__ import annotations

from pathlib import Path

from agent import events as ev
from plain.render import Renderer
from plain.style import Painter
from tests.helpers.subagent_events import one_child_events


async def test_child_lines_are_prefixed_by_the_agent(tmp_path: Path) -> None:
    events = await one_child_events(tmp_path)
    agent_id = next(e.agent_id for e in events if isinstance(e, ev.SubagentEvent))
    renderer = Renderer(Painter(False))
    lines: list[str] = []
    for e in events:
        lines += renderer.render(e)
    prefix = f"[Explore {agent_id[:6]}]"
    child = [line for line in lines if line.startswith(prefix)]
    assert child == [
        f"{prefix} started: find x",
        f"{prefix} Read a.py",
        f"{prefix} x is in a.py",
        f"{prefix} success: 1 turn, $0.0200",
    ]
    assert lines.index(child[0]) < lines.index(next(ln for ln in lines if "found it" in ln))
