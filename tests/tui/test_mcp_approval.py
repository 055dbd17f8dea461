"""At start-up the TUI asks once about the project's new MCP servers (.mcp.json), over the
ready screen; the answer is remembered as /mcp approve|deny remembers it, approved servers
start at once."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from agent.mcp.approval import answer_of
from agent.mcp.manager import McpManager
from tests.agent.mcp.servers import FAKE
from tests.fakes.scripted import ScriptedModel
from tests.helpers.events import Events
from tests.helpers.tui import SIZE, make_args, wait_ready
from tui.screens.mcp_approval import McpApprovalScreen
from tui.widgets.conversation.message_line import MessageLine


def make_app(workspace: Path, model: ScriptedModel) -> tuple[Any, Events]:
    """The app with the session eddy opens (its MCP servers attached), over ``model``."""
    from tui.app import EddyApp

    events = Events()
    app = EddyApp(
        make_args(workspace), model=model, tools=None, frozen_clock=True, event_hook=events
    )
    return app, events


def project_servers(workspace: Path, *names: str) -> None:
    servers = {n: {"command": sys.executable, "args": [str(FAKE), "--name", n]} for n in names}
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))


async def until_asked(app, pilot) -> McpApprovalScreen:  # type: ignore[no-untyped-def]
    await wait_ready(app, pilot)  # the question comes over the ready screen, not before it
    for _ in range(200):
        if isinstance(app.screen, McpApprovalScreen):
            return app.screen
        await pilot.pause()
    raise AssertionError(f"no MCP question (screen: {app.screen})")


def shown(screen: McpApprovalScreen) -> str:
    return " ".join(str(s.render()) for s in screen.query("Static")) + " ".join(
        str(o.prompt) for o in screen.query_one("OptionList")._options
    )


async def test_use_these_approves_and_starts_them_at_once(workspace: Path) -> None:
    project_servers(workspace, "alpha", "beta")
    app, _ = make_app(workspace, ScriptedModel(["unused"]))
    async with app.run_test(size=SIZE) as pilot:
        screen = await until_asked(app, pilot)
        text = shown(screen)
        assert "New MCP servers found in .mcp.json: alpha, beta" in text
        said = [line.text for line in app.main.query(MessageLine)]
        assert not any("alpha" in t for t in said), said  # asked, not also an error line
        assert "Use this and all future MCP servers in this project" in text
        assert "Use these MCP servers" in text and "Continue without" in text
        manager = app.session.extension(McpManager)
        assert manager.connections["alpha"].state == "needs-approval"
        await pilot.press("2")
        await pilot.pause()
        assert not isinstance(app.screen, McpApprovalScreen)
        await manager.wait_started()
        assert {c.state for c in manager.connections.values()} == {"connected"}
        assert answer_of(workspace, "alpha") is True and answer_of(workspace, "beta") is True
        assert answer_of(workspace, "gamma") is None  # only these, not future ones
    app, _ = make_app(workspace, ScriptedModel(["unused"]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await app.session.extension(McpManager).wait_started()
        assert not isinstance(app.screen, McpApprovalScreen)  # asked once per project


async def test_all_future_servers_and_continue_without(workspace: Path) -> None:
    project_servers(workspace, "alpha")
    app, _ = make_app(workspace, ScriptedModel(["unused"]))
    async with app.run_test(size=SIZE) as pilot:
        text = shown(await until_asked(app, pilot))
        assert "New MCP server found in .mcp.json: alpha" in text
        assert "Use this MCP server" in text
        await pilot.press("enter")  # the first choice: this and all future servers
        await app.session.extension(McpManager).wait_started()
        assert app.session.extension(McpManager).connections["alpha"].state == "connected"
    assert answer_of(workspace, "later") is True  # a server added later needs no question

    other = workspace / "other"
    other.mkdir()
    project_servers(other, "delta")
    app, _ = make_app(other, ScriptedModel(["unused"]))
    async with app.run_test(size=SIZE) as pilot:
        await until_asked(app, pilot)
        await pilot.press("3")
        await pilot.pause()
        assert app.session.extension(McpManager).connections["delta"].state == "needs-approval"
    assert answer_of(other, "delta") is False  # remembered as /mcp deny


async def test_escape_continues_without_remembering(workspace: Path) -> None:
    project_servers(workspace, "alpha")
    app, _ = make_app(workspace, ScriptedModel(["unused"]))
    async with app.run_test(size=SIZE) as pilot:
        await until_asked(app, pilot)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, McpApprovalScreen)
        assert app.session.extension(McpManager).connections["alpha"].state == "needs-approval"
    assert answer_of(workspace, "alpha") is None
