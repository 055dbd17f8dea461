"""``/mcp`` and ``/mcp__server__prompt`` through the one command table, with real servers;
approval of project servers, remembered per project."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from agent.mcp.approval import answer_of, may_start
from agent.mcp.disabled import DisabledServers
from agent.mcp.manager import McpManager
from frontend.commands import run_command
from tests.agent.mcp.servers import config_of, fake


class FE:
    """The little of a front end the commands use."""

    def __init__(self, workspace: Path, manager: McpManager | None) -> None:
        self.workspace = workspace
        self.session = SimpleNamespace(extension=lambda _kind: manager, busy=False)
        self.said: list[tuple[str, str]] = []
        self.sent: list[str] = []

    def say(self, text: str, kind: str = "hint") -> None:
        self.said.append((text, kind))

    def send(self, prompt: str) -> None:
        self.sent.append(prompt)

    def open_mcp(self, manager: McpManager) -> None:  # line mode's: the listing
        from agent.mcp.command import listing

        self.said.extend(listing(manager))

    def text(self) -> str:
        return "\n".join(t for t, _ in self.said)


@pytest.fixture
async def manager(tmp_path: Path) -> AsyncIterator[McpManager]:
    mgr = McpManager(config_of(fake("fake")))
    mgr.start()
    await mgr.wait_started()
    yield mgr
    await mgr.aclose()


async def test_mcp_lists_servers_state_tools_and_prompts(tmp_path: Path, manager: Any) -> None:
    fe = FE(tmp_path, manager)
    assert await run_command(fe, "/mcp")  # type: ignore[arg-type]
    text = fe.text()
    assert "fake  [user, stdio:" in text and "connected" in text
    assert "echo" in text and "hang" in text
    assert "/mcp__fake__review" in text
    assert "resources: 1" in text


async def test_mcp_reconnect_brings_a_crashed_server_back(tmp_path: Path, manager: Any) -> None:
    await manager.call("fake", "crash", {})
    fe = FE(tmp_path, manager)
    await run_command(fe, "/mcp")  # type: ignore[arg-type]
    assert "failed (the server process exited" in fe.text()
    await run_command(fe, "/mcp reconnect")  # type: ignore[arg-type]
    assert "MCP server fake reconnected" in fe.text()
    assert (await manager.call("fake", "echo", {"text": "ok"})).content == "echo: ok"


async def test_an_mcp_prompt_is_a_slash_command_sent_as_the_prompt(
    tmp_path: Path, manager: Any
) -> None:
    fe = FE(tmp_path, manager)
    assert await run_command(fe, "/mcp__fake__review src/app.py")  # type: ignore[arg-type]
    assert fe.sent == ["Please review src/app.py."]


async def test_an_unknown_mcp_prompt_is_an_unknown_command(tmp_path: Path, manager: Any) -> None:
    fe = FE(tmp_path, manager)
    await run_command(fe, "/mcp__fake__nothing")  # type: ignore[arg-type]
    assert fe.sent == [] and "Unknown command" in fe.text()


async def test_without_servers_mcp_says_how_to_add_one(tmp_path: Path) -> None:
    fe = FE(tmp_path, None)
    await run_command(fe, "/mcp")  # type: ignore[arg-type]
    assert ".mcp.json" in fe.text()


async def test_a_project_server_waits_for_approval_which_is_remembered(tmp_path: Path) -> None:
    project = fake("proj", scope="project")
    workspace = tmp_path / "w"
    workspace.mkdir()
    assert not may_start(project, workspace, headless=False)
    assert may_start(project, workspace, headless=True)  # eddy -p starts it without asking
    mgr = McpManager(config_of(project), approved=lambda c: may_start(c, workspace, headless=False))
    mgr.start()
    try:
        conn = mgr.connections["proj"]
        assert conn.state == "needs-approval"
        assert mgr.tools() == []
        fe = FE(workspace, mgr)
        await run_command(fe, "/mcp approve proj")  # type: ignore[arg-type]
        assert "approved" in fe.text()
        await mgr.wait_started()
        assert conn.state == "connected"
        assert answer_of(workspace, "proj") is True
        assert may_start(project, workspace, headless=False)  # the next start asks no more
    finally:
        await mgr.aclose()


async def test_a_denied_project_server_stays_off(tmp_path: Path) -> None:
    project = fake("proj", scope="project")
    mgr = McpManager(config_of(project), approved=lambda c: False)
    mgr.start()
    try:
        fe = FE(tmp_path, mgr)
        await run_command(fe, "/mcp deny proj")  # type: ignore[arg-type]
        assert answer_of(tmp_path, "proj") is False
        assert mgr.connections["proj"].state == "needs-approval"
    finally:
        await mgr.aclose()


def test_all_future_servers_keep_those_denied_by_name(tmp_path: Path) -> None:
    from agent.mcp.approval import answer_of, remember, remember_all

    remember(tmp_path, "no", False)
    assert answer_of(tmp_path, "new") is None
    remember_all(tmp_path)
    assert answer_of(tmp_path, "new") is True and answer_of(tmp_path, "no") is False
    assert answer_of(tmp_path / "elsewhere", "new") is None  # per project


async def test_disable_and_enable_switch_a_server_for_the_project_and_its_tools(
    tmp_path: Path,
) -> None:
    from agent.turn.toolset import ToolSet

    store = DisabledServers(tmp_path, tmp_path / "claude.json")
    mgr = McpManager(config_of(fake("alpha"), fake("beta")), disabled=store)
    tools = ToolSet([])
    mgr.bind(tools, lambda _e: None)
    mgr.start()
    await mgr.wait_started()
    try:
        mgr.sync_tools()
        assert "mcp__alpha__echo" in tools.offered_names()
        fe = FE(tmp_path, mgr)
        await run_command(fe, "/mcp disable alpha")  # type: ignore[arg-type]
        assert "alpha disabled for this project" in fe.text()
        assert "mcp__alpha__echo" not in tools.offered_names()  # gone at once
        assert "mcp__beta__echo" in tools.offered_names()
        assert store.names() == {"alpha"}
        called = await mgr.call("alpha", "echo", {"text": "hi"})
        assert called.is_error and "disabled" in str(called.content)
        await run_command(fe, "/mcp")  # type: ignore[arg-type]
        assert "alpha  [user, stdio:" in fe.text() and "disabled for this project" in fe.text()
        await run_command(fe, "/mcp reconnect alpha")  # type: ignore[arg-type]
        assert mgr.connections["alpha"].state == "disabled"  # off means off
        await run_command(fe, "/mcp enable alpha")  # type: ignore[arg-type]
        assert "alpha enabled: " in fe.text()
        assert "mcp__alpha__echo" in tools.offered_names() and store.names() == frozenset()
        await run_command(fe, "/mcp disable all")  # type: ignore[arg-type]
        assert store.names() == {"alpha", "beta"}
        assert not [n for n in tools.offered_names() if n.startswith("mcp__")]
        await run_command(fe, "/mcp enable nobody")  # type: ignore[arg-type]
        assert fe.said[-1] == ("/mcp enable NAME|all: no MCP server named nobody.", "error")
    finally:
        await mgr.aclose()


async def test_a_server_disabled_for_the_project_does_not_start(tmp_path: Path) -> None:
    store = DisabledServers(tmp_path, tmp_path / "claude.json")
    store.set("alpha", True)
    mgr = McpManager(config_of(fake("alpha"), fake("beta")), disabled=store)
    mgr.start()
    await mgr.wait_started()
    try:
        assert mgr.connections["alpha"].state == "disabled"
        assert mgr.connections["beta"].state == "connected"
        assert [t.name for t in mgr.tools() if t.name.startswith("mcp__alpha")] == []
        assert mgr.status() == "MCP 1/1"
    finally:
        await mgr.aclose()


def test_the_disabled_list_keeps_the_rest_of_claude_codes_file(tmp_path: Path) -> None:
    import json

    path = tmp_path / "claude.json"
    other = str((tmp_path / "other").resolve())
    path.write_text(json.dumps({"numStartups": 3, "projects": {other: {"x": 1}}}))
    store = DisabledServers(tmp_path, path)
    store.set("alpha", True)
    store.set("alpha", True)
    data = json.loads(path.read_text())
    assert data["numStartups"] == 3 and data["projects"][other] == {"x": 1}
    assert data["projects"][str(tmp_path.resolve())]["disabledMcpServers"] == ["alpha"]
    path.write_text("{not json")
    assert store.names() == frozenset()
    with pytest.raises(OSError, match="not valid JSON"):
        store.set("beta", True)
    assert path.read_text() == "{not json"  # Claude Code's file is never overwritten blindly
