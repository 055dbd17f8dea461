"""An expanded tool block shows its whole command (issue 25: cut with … even expanded)."""

from __future__ import annotations

from pathlib import Path

from agent import events as ev
from agent.messages import assistant
from tests.fakes.scripted import ScriptedModel, tool_call
from tests.helpers.tui import SIZE, make_app, settle, type_and_send, wait_ready
from tests.tui.test_control_sequences import painted_text
from tools.bash import BashTool


async def test_an_expanded_block_shows_its_whole_command(workspace: Path) -> None:
    command = "echo " + " ".join(f"word{i}" for i in range(60)) + " && echo THE-END"
    model = ScriptedModel([assistant(tool_call("c1", "Bash", command=command)), "ok"])
    app, events = make_app(workspace, model, [BashTool()], "--permission-mode", "bypassPermissions")
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "run it")
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
        block = app.main.conversation.tool_blocks["c1"]
        assert "THE-END" not in painted_text(app)  # collapsed: one line, cut with …
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert "THE-END" in painted_text(app).replace("\n", "")
        assert block.query_one(".tool-header").region.height > 1
