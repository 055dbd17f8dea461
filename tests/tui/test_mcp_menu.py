"""The /mcp menu of the full-screen app, with the real app, real stdio servers (our fake MCP
server) and a real OAuth-protected HTTP server: the list with each server's state, a server's
tools and actions, and each action seen in what the model is sent next."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent.mcp.manager import McpManager
from tests.agent.mcp.servers import FAKE
from tests.agent.mcp.test_http import free_port
from tests.agent.mcp.test_oauth import Browser, OAuthServer
from tests.fakes.scripted import ScriptedModel
from tests.helpers.tui import SIZE, make_args, type_and_send, wait_ready
from tui.screens.mcp import McpScreen


def claude_json() -> Path:
    return Path(os.environ["CLAUDE_CONFIG_DIR"]) / ".claude.json"


def user_servers(**servers: dict[str, Any]) -> None:
    """Servers in Claude Code's user file (user scope: they start without a question), next
    to a key of Claude Code's own that must survive eddy's writes."""
    path = claude_json()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"numStartups": 7, "mcpServers": servers}))


def stdio(name: str) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(FAKE), "--name", name]}


def make_app(workspace: Path, model: ScriptedModel) -> Any:
    from tui.app import EddyApp

    return EddyApp(make_args(workspace), model=model, tools=None, frozen_clock=True)


async def started(app: Any, pilot: Any) -> McpManager:
    await wait_ready(app, pilot)
    manager: McpManager = app.session.extension(McpManager)
    await manager.wait_started()
    return manager


async def offered(app: Any, pilot: Any, model: ScriptedModel, prompt: str) -> set[str]:
    """Send ``prompt``; the MCP tools its request offered the model."""
    before = len(model.requests)
    await type_and_send(pilot, prompt)
    for _ in range(500):
        if len(model.requests) > before:
            break
        await pilot.pause()
    await app.session.wait_idle()
    return {t["name"] for t in model.requests[-1].tools if t["name"].startswith("mcp__")}


async def open_menu(app: Any, pilot: Any) -> McpScreen:
    await type_and_send(pilot, "/mcp")
    for _ in range(200):
        if isinstance(app.screen, McpScreen):
            return app.screen
        await pilot.pause()
    raise AssertionError(f"no /mcp menu (screen: {app.screen})")


def options(screen: McpScreen) -> list[str]:
    from textual.widgets import OptionList

    listed = screen.query_one("#mcp-options", OptionList)
    return [str(listed.get_option_at_index(i).prompt) for i in range(listed.option_count)]


def text_of(screen: McpScreen, widget: str) -> str:
    from textual.widgets import Static

    return str(screen.query_one(widget, Static).render())


async def choose(pilot: Any, screen: McpScreen, label: str) -> None:
    """Highlight the option that starts with ``label`` and press Enter."""
    from textual.widgets import OptionList

    (index,) = [i for i, o in enumerate(options(screen)) if o.startswith(label)]
    screen.query_one("#mcp-options", OptionList).highlighted = index
    await pilot.press("enter")
    await pilot.pause()


async def action_done(pilot: Any, screen: McpScreen) -> None:
    await pilot.pause()
    for _ in range(2000):
        if not screen.busy and not screen.workers:
            return
        await pilot.pause()
    raise AssertionError("the action never ended")


async def closed(pilot: Any, app: Any) -> None:
    while isinstance(app.screen, McpScreen):
        await pilot.press("escape")
        await pilot.pause()


async def test_disable_takes_the_tools_out_of_the_next_request_and_enable_brings_them_back(
    workspace: Path,
) -> None:
    user_servers(alpha=stdio("alpha"), beta=stdio("beta"))
    model = ScriptedModel(["one", "two"])
    app = make_app(workspace, model)
    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        first = await offered(app, pilot, model, "first")
        assert "mcp__alpha__echo" in first and "mcp__beta__echo" in first
        screen = await open_menu(app, pilot)
        listed = options(screen)
        assert listed[0].startswith("alpha  ✔ connected ·") and "tools" in listed[0], listed
        await choose(pilot, screen, "alpha")
        detail = text_of(screen, "#mcp-detail")
        assert "Tools (" in detail and "  echo" in detail and "Prompts: 1" in detail, detail
        assert options(screen) == ["Reconnect", "Disable"]
        await choose(pilot, screen, "Disable")
        await action_done(pilot, screen)
        assert "alpha disabled for this project" in text_of(screen, "#mcp-message")
        assert options(screen) == ["Enable"]
        await pilot.press("escape")
        assert options(screen)[0].startswith("alpha  ○ disabled")
        await closed(pilot, app)
        second = await offered(app, pilot, model, "second")
        assert not any(n.startswith("mcp__alpha__") for n in second), second
        assert "mcp__beta__echo" in second
    saved = json.loads(claude_json().read_text())
    assert saved["projects"][str(workspace.resolve())]["disabledMcpServers"] == ["alpha"]
    assert saved["numStartups"] == 7 and "beta" in saved["mcpServers"]  # the rest is kept

    model = ScriptedModel(["three", "four"])
    app = make_app(workspace, model)
    async with app.run_test(size=SIZE) as pilot:
        manager = await started(app, pilot)
        assert manager.connections["alpha"].state == "disabled"  # not started at all
        third = await offered(app, pilot, model, "third")
        assert not any(n.startswith("mcp__alpha__") for n in third), third
        screen = await open_menu(app, pilot)
        await choose(pilot, screen, "alpha")
        await choose(pilot, screen, "Enable")
        await action_done(pilot, screen)
        assert manager.connections["alpha"].state == "connected"
        await closed(pilot, app)
        fourth = await offered(app, pilot, model, "fourth")
        assert "mcp__alpha__echo" in fourth
    saved = json.loads(claude_json().read_text())
    assert saved["projects"][str(workspace.resolve())]["disabledMcpServers"] == []


async def test_a_crashed_server_shows_its_reason_and_reconnect_brings_its_tools_back(
    workspace: Path,
) -> None:
    user_servers(alpha=stdio("alpha"))
    model = ScriptedModel(["one", "two"])
    app = make_app(workspace, model)
    async with app.run_test(size=SIZE) as pilot:
        manager = await started(app, pilot)
        crashed = await manager.call("alpha", "crash", {})
        assert crashed.is_error
        assert manager.connections["alpha"].state == "failed"
        first = await offered(app, pilot, model, "first")
        assert not any(n.startswith("mcp__alpha__") for n in first), first
        screen = await open_menu(app, pilot)
        assert options(screen)[0].startswith("alpha  ✘ failed: "), options(screen)
        await choose(pilot, screen, "alpha")
        await choose(pilot, screen, "Reconnect")
        await action_done(pilot, screen)
        assert "alpha reconnected" in text_of(screen, "#mcp-message")
        await closed(pilot, app)
        second = await offered(app, pilot, model, "second")
        assert "mcp__alpha__echo" in second


@pytest.fixture
def oauth_server(tmp_path: Path) -> Iterator[OAuthServer]:
    srv = OAuthServer(free_port(), tmp_path / "grants.log")
    yield srv
    srv.stop()


async def test_authenticate_runs_the_oauth_login_and_its_tools_reach_the_model(
    workspace: Path, oauth_server: OAuthServer
) -> None:
    await oauth_server.ready()
    user_servers(secure={"type": "http", "url": f"http://127.0.0.1:{oauth_server.port}/mcp"})
    model = ScriptedModel(["one", "two"])
    app = make_app(workspace, model)
    async with app.run_test(size=SIZE) as pilot:
        manager = await started(app, pilot)
        browser = Browser()
        manager.opener = browser
        screen = await open_menu(app, pilot)
        assert options(screen)[0].startswith("secure  △ needs authentication"), options(screen)
        await closed(pilot, app)
        first = await offered(app, pilot, model, "first")
        assert not any(n.startswith("mcp__secure__") for n in first), first
        screen = await open_menu(app, pilot)
        await choose(pilot, screen, "secure")
        assert options(screen) == ["Reconnect", "Authenticate", "Disable"]
        await choose(pilot, screen, "Authenticate")
        await action_done(pilot, screen)
        assert manager.connections["secure"].state == "connected", text_of(screen, "#mcp-message")
        assert len(browser.opened) == 1
        assert "Clear authentication" in options(screen)
        await closed(pilot, app)
        second = await offered(app, pilot, model, "second")
        assert "mcp__secure__echo" in second
