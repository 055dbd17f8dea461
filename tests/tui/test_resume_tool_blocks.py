"""On resume, replayed tool calls keep their command or path, and interrupted ones show as
interrupted, as they did live (issue 25: they lost both)."""

from __future__ import annotations

from pathlib import Path

from agent.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from agent.turn.loop import INTERRUPT_NOTE
from tests.fakes.scripted import ScriptedModel
from tests.helpers.tui import resumed_app, save_session, settle, wait_ready

HISTORY = [
    Message("user", (TextBlock("run it"),)),
    Message(
        "assistant",
        (
            TextBlock("Running."),
            ToolUseBlock("toolu_1", "Bash", {"command": "sleep 100"}),
            ToolUseBlock("toolu_2", "Read", {"file_path": "src/a.py"}),
        ),
    ),
    Message(
        "user",
        (
            ToolResultBlock(
                "toolu_1", "The user interrupted this tool call; it did not finish.", True
            ),
            ToolResultBlock(
                "toolu_2",
                "The user interrupted before this tool call started; it did not run.",
                True,
            ),
            TextBlock(INTERRUPT_NOTE),
        ),
    ),
]


async def test_resumed_interrupted_calls_keep_their_command_and_path(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    save_session(workspace, HISTORY)
    app, _ = resumed_app(workspace, ScriptedModel([]))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(app, pilot)
        await settle(app, pilot)
        blocks = app.main.conversation.tool_blocks
        headers = {k: str(b._header.render()) for k, b in blocks.items()}
    assert "sleep 100" in headers["toolu_1"]
    assert "src/a.py" in headers["toolu_2"]
    for header in headers.values():
        assert "interrupted" in header and "failed" not in header
