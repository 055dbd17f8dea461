"""The permission question says why a protected file is sensitive, in both front ends."""

from __future__ import annotations

from pathlib import Path

from agent import events as ev
from agent.messages import assistant
from plain.render import Renderer
from plain.style import Painter
from tests.fakes.scripted import ScriptedModel, tool_call
from tests.helpers.tui import SIZE, make_app, type_and_send, wait_ready
from tools.write import WriteTool
from tui.widgets.conversation.permission_prompt import PermissionPrompt

WARNING = "config is a protected file: git runs programs this file names."


def test_line_mode_prints_the_warning_before_the_call() -> None:
    event = ev.PermissionRequested(
        1, "perm-1", "w", "Write", {"file_path": ".git/config", "content": "x"}, "", None, WARNING
    )
    lines = Renderer(Painter(False)).permission(event)
    assert any(WARNING in line for line in lines)
    plain = ev.PermissionRequested(1, "perm-2", "w", "Write", {"file_path": "a"}, "", None)
    assert not any("protected" in line for line in Renderer(Painter(False)).permission(plain))


async def test_the_tui_prompt_shows_why_the_file_is_protected(tmp_path: Path) -> None:
    workspace = tmp_path
    (workspace / ".git").mkdir()
    call = tool_call("w", "Write", file_path=".git/config", content="[core]\n")
    model = ScriptedModel([assistant(call), "done"])
    app, events = make_app(workspace, model, [WriteTool()], "--permission-mode", "acceptEdits")
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "configure git")
        request = await events.wait_for(ev.PermissionRequested)
        await pilot.pause()
        prompt = app.query_one(PermissionPrompt)
        shown = str(prompt.query_one(".perm-warning").render())
        assert "protected file" in shown and "git runs programs" in shown
        assert "protected file" in request.warning
        await pilot.press("3", "enter")
        await events.wait_for(ev.TurnFinished)
    assert not (workspace / ".git" / "config").exists()
