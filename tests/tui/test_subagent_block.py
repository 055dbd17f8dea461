"""The TUI shows a subagent as a live block under its Agent call (current tool, turns, cost),
expandable into the child's own lines; fed a real session's events, no engine running."""

from __future__ import annotations

from pathlib import Path

from textual.app import App, ComposeResult

from agent import events as ev
from tests.helpers.subagent_events import one_child_events
from tui.widgets.conversation.conversation import Conversation
from tui.widgets.conversation.subagent_block import SubagentBlock
from tui.widgets.conversation.tool_call import ToolCallBlock


class Harness(App[None]):
    def compose(self) -> ComposeResult:
        yield Conversation(lambda: 0.0, id="conversation")


async def test_a_childs_block_sits_under_its_agent_call_and_follows_it(tmp_path: Path) -> None:
    events = await one_child_events(tmp_path)
    app = Harness()
    async with app.run_test(size=(100, 40)) as pilot:
        conversation = app.query_one(Conversation)
        first_child_tool = next(
            i for i, e in enumerate(events)
            if isinstance(e, ev.SubagentEvent) and e.event["type"] == "tool_call_started"
        )  # fmt: skip
        for event in events[: first_child_tool + 1]:
            conversation.apply(event)
        await pilot.pause()
        kinds = [type(c).__name__ for c in conversation.children]
        agent_call = kinds.index("ToolCallBlock")
        assert kinds[agent_call + 1] == "SubagentBlock"
        block = app.query_one(SubagentBlock)
        assert block.call_id == "p1" == app.query_one(ToolCallBlock).call_id
        (live,) = block.tracker.agents.values()
        assert live.agent_type == "Explore" and live.activity == "Read a.py" and not live.outcome
        assert "Explore" in str(block.agents_content()) and "Read a.py" in str(block.render())
        for event in events[first_child_tool + 1 :]:
            conversation.apply(event)
        await pilot.pause()
        assert live.outcome == "success" and live.turns == 1 and live.cost_usd == 0.02
        shown = str(block.render())
        assert "success · 1 turn · $0.0200" in shown and "x is in a.py" not in shown
        await pilot.click(SubagentBlock)
        assert "x is in a.py" in str(block.render())  # expanded: the child's own lines
