"""The connection manager against real stdio servers: our fake one and mcp-server-time.

Each test waits on the manager's own conditions (a start finished, a call returned), never on
a clock, except where a timeout is what is tested (then the timeout is short and the server
would otherwise never answer).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace

import pytest

from agent.mcp import early, hosted
from agent.mcp.manager import McpManager
from tests.agent.mcp.servers import command, config_of, fake, time_server


@pytest.fixture(
    params=[{"background": True}, {"background": False}, {"background": False, "hosted": True}],
    ids=["spawned-by-the-sdk", "spawned-early", "in-the-host"],
)
def background(request: pytest.FixtureRequest) -> dict[str, bool]:
    """Each test runs with the SDK's ``stdio_client`` spawning the server (the TUI's way),
    with the process spawned before the SDK's import (agent/mcp/prespawn.py), and connected
    from the MCP host process (``-p``'s, agent/mcp/hosted.py): the manager's keywords."""
    return dict(request.param)


@pytest.fixture
async def manager(tmp_path: Path, background: dict[str, bool]) -> AsyncIterator[McpManager]:
    config = config_of(fake("fake", log=tmp_path / "fake.log"))
    mgr = McpManager(config, log_dir=tmp_path / "logs", **background)
    mgr.start()
    await mgr.wait_started()
    yield mgr
    await mgr.aclose()


async def test_a_stdio_server_connects_and_its_tools_are_named_for_the_model(
    manager: McpManager,
) -> None:
    conn = manager.connections["fake"]
    assert conn.state == "connected", conn.reason
    names = [t.name for t in manager.tools()]
    assert names == sorted(names)
    assert "mcp__fake__echo" in names and "mcp__fake__hang" in names
    echo = next(t for t in manager.tools() if t.name == "mcp__fake__echo")
    assert echo.description == "Echo the text back."
    assert echo.input_schema["properties"]["text"]["type"] == "string"
    assert echo.concurrent is True and echo.read_only is False
    hang = next(t for t in manager.tools() if t.name == "mcp__fake__hang")
    assert hang.concurrent is False


async def test_a_call_returns_its_text(manager: McpManager) -> None:
    result = await manager.call("fake", "echo", {"text": "hi"})
    assert (result.content, result.is_error) == ("echo: hi", False)


async def test_a_tool_error_is_an_error_result(manager: McpManager) -> None:
    result = await manager.call("fake", "fail", {"message": "nope"})
    assert result.is_error
    assert "fail" in str(result.content)


async def test_an_unknown_server_is_an_error_result(manager: McpManager) -> None:
    result = await manager.call("nobody", "echo", {})
    assert result.is_error and "nobody" in str(result.content)


async def test_images_come_back_as_image_blocks(manager: McpManager) -> None:
    result = await manager.call("fake", "picture", {})
    assert isinstance(result.content, list)
    kinds = [b["type"] for b in result.content]
    assert kinds == ["text", "image"]
    assert result.content[1]["source"]["media_type"] == "image/png"


async def test_big_output_is_cut_with_a_note(
    manager: McpManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MAX_MCP_OUTPUT_TOKENS", "100")
    result = await manager.call("fake", "big", {"n": 5000})
    text = str(result.content)
    assert text.startswith("x" * 400) and "x" * 401 not in text
    assert "MAX_MCP_OUTPUT_TOKENS" in text
    small = await manager.call("fake", "big", {"n": 300})
    assert small.content == "x" * 300


async def test_a_call_past_mcp_tool_timeout_is_an_error(
    manager: McpManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCP_TOOL_TIMEOUT", "300")  # ms; the tool would sleep an hour
    result = await manager.call("fake", "hang", {})
    assert result.is_error
    assert "MCP_TOOL_TIMEOUT" in str(result.content)
    after = await manager.call("fake", "echo", {"text": "still here"})
    assert after.content == "echo: still here"


async def test_a_crash_is_reported_the_next_call_says_down_and_reconnect_heals(
    manager: McpManager,
) -> None:
    crashed = await manager.call("fake", "crash", {})
    assert crashed.is_error
    assert "fake" in str(crashed.content) and "/mcp" in str(crashed.content)
    await manager.wait_started()
    conn = manager.connections["fake"]
    assert conn.state == "failed"
    assert "exited" in conn.reason
    down = await manager.call("fake", "echo", {"text": "x"})
    assert down.is_error
    assert "is failed" in str(down.content) and "/mcp" in str(down.content)
    assert manager.tools() == []  # a failed server offers nothing
    await manager.reconnect("fake")
    assert conn.state == "connected"
    again = await manager.call("fake", "echo", {"text": "back"})
    assert again.content == "echo: back"


async def test_a_missing_command_fails_with_the_reason(
    tmp_path: Path, background: dict[str, bool]
) -> None:
    ghost = command("ghost", str(tmp_path / "no-such-program"))
    mgr = McpManager(config_of(ghost), **background)
    mgr.start()
    await mgr.wait_started()
    try:
        conn = mgr.connections["ghost"]
        assert conn.state == "failed"
        assert conn.reason
        assert mgr.status() == "MCP 0/1, 1 failed"
    finally:
        await mgr.aclose()


async def test_a_server_slower_than_mcp_timeout_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, background: dict[str, bool]
) -> None:
    import sys

    monkeypatch.setenv("MCP_TIMEOUT", "300")
    silent = command("mute", sys.executable, "-c", "import time; time.sleep(600)")
    mgr = McpManager(config_of(silent), **background)
    mgr.start()
    await mgr.wait_started()
    try:
        conn = mgr.connections["mute"]
        assert conn.state == "failed"
        assert "MCP_TIMEOUT" in conn.reason
    finally:
        await mgr.aclose()


async def test_mcp_server_time_from_pypi_works_as_a_real_stdio_server(
    background: dict[str, bool],
) -> None:
    mgr = McpManager(config_of(time_server()), **background)
    mgr.start()
    await mgr.wait_started()
    try:
        conn = mgr.connections["time"]
        assert conn.state == "connected", conn.reason
        names = [t.name for t in mgr.tools()]
        assert "mcp__time__get_current_time" in names
        result = await mgr.call("time", "get_current_time", {"timezone": "UTC"})
        assert not result.is_error, result.content
        assert "UTC" in str(result.content)
    finally:
        await mgr.aclose()


async def test_the_hosts_death_ends_the_call_in_flight_and_fails_its_servers(
    tmp_path: Path,
) -> None:
    mgr = McpManager(config_of(fake("fake")), log_dir=tmp_path / "logs", hosted=True)
    mgr.start()
    await mgr.wait_started()
    assert mgr.host is not None and mgr.connections["fake"].state == "connected"
    under_way = asyncio.Event()  # the server says so (progress shown as the call's output)
    ctx = SimpleNamespace(output=lambda _text: under_way.set(), dialogs=None, call_id="c1")
    call = asyncio.ensure_future(mgr.call("fake", "hang", {"report": True}, ctx))  # type: ignore[arg-type]
    await asyncio.wait_for(under_way.wait(), 30)  # a call that never ends, in the server
    mgr.host.kill()  # as a crash would
    result = await asyncio.wait_for(call, 30)  # at once, not after MCP_TOOL_TIMEOUT
    assert result.is_error and "MCP host process ended" in str(result.content)
    conn = mgr.connections["fake"]
    assert conn.state == "failed" and "MCP host process ended" in conn.reason
    await mgr.reconnect("fake")  # /mcp: a new host
    assert conn.state == "connected", conn.reason
    assert (await mgr.call("fake", "echo", {"text": "back"})).content == "echo: back"
    await mgr.aclose()


async def test_an_early_host_no_session_took_exits(tmp_path: Path) -> None:
    early.start_early(tmp_path, ["servers.json"])  # --mcp-config: servers are likely
    started = early._early
    assert started is not None and started.poll() is None
    early.end_early()
    assert started.wait(30) == 0 and early.take() is None  # it ends of itself


async def test_the_host_never_runs_an_agent_package_of_the_workspace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The host runs in the workspace (its servers' working directory): a cloned repository
    with an ``agent`` package at its root must not be what ``python -m agent.mcp`` runs."""
    marker = tmp_path / "ran"
    evil = tmp_path / "repo" / "agent" / "mcp"
    evil.mkdir(parents=True)
    code = f"open({str(marker)!r}, 'w').write('the repository ran')\n"
    for name in ("../__init__.py", "__init__.py", "__main__.py"):
        (evil / name).write_text(code, encoding="utf-8")
    monkeypatch.chdir(tmp_path / "repo")
    mgr = McpManager(config_of(fake("fake")), log_dir=tmp_path / "logs", hosted=True)
    mgr.start()
    await mgr.wait_started()
    try:
        assert mgr.connections["fake"].state == "connected", mgr.connections["fake"].reason
        assert not marker.exists()
    finally:
        await mgr.aclose()


def test_an_early_host_starts_only_where_servers_are_likely(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Claude Code writes ``"mcpServers": {}`` for every project it opened: that is no
    reason to start a host (the SDK's import on the other core) for a run without servers."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    claude_json = tmp_path / ".claude.json"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))
    entry = {"projects": {str(workspace.resolve()): {"mcpServers": {}}}, "mcpServers": {}}
    claude_json.write_text(json.dumps(entry), encoding="utf-8")
    early.start_early(workspace, [])
    assert early.take() is None
    entry["projects"][str(workspace.resolve())]["mcpServers"] = {"s": {"command": "x"}}
    claude_json.write_text(json.dumps(entry), encoding="utf-8")
    early.start_early(workspace, [])
    started = early.take()
    assert started is not None
    assert started.stdin is not None
    started.stdin.close()
    assert started.wait(30) == 0
    monkeypatch.setenv("EDDY_MCP_HOST", "0")  # the escape hatch: never
    early.start_early(workspace, ["servers.json"])
    assert early.take() is None


async def test_a_host_that_cannot_start_fails_its_servers_with_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def cannot(_log: object) -> None:
        raise OSError("no interpreter here")

    monkeypatch.setattr(hosted, "popen_host", cannot)
    mgr = McpManager(
        config_of(fake("fake")), log_dir=tmp_path / "logs", hosted=True, background=False
    )
    mgr.start()  # (-p: the host would start here, as the session is built: no exception)
    await mgr.wait_started()
    conn = mgr.connections["fake"]
    assert conn.state == "failed" and "no interpreter here" in conn.reason
    result = await mgr.call("fake", "echo", {"text": "x"})
    assert result.is_error and "failed" in str(result.content)
    await mgr.aclose()
