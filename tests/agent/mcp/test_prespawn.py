"""``eddy -p``'s stdio servers are spawned before the MCP SDK is imported, and the first start
runs the SDK's session over that process's pipes (agent/mcp/prespawn.py).

The failures of a server spawned that way (a crash, a missing command, a server that never
answers) are tested through test_manager.py's tests, which run both ways, and through
``eddy -p`` itself (test_headless*.py).
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from pathlib import Path

from agent.mcp.config import ServerConfig
from agent.mcp.connection import ServerConnection
from agent.mcp.disabled import DisabledServers
from agent.mcp.manager import McpManager
from agent.mcp.prespawn import INHERITED_ENV, server_environment
from tests.agent.mcp.servers import command, config_of, fake


async def _lines(path: Path, line: str, count: int = 1) -> None:
    """Wait until ``path`` holds ``count`` lines ``line`` (the fake server's log)."""
    async with asyncio.timeout(60):
        while not path.exists() or path.read_text().splitlines().count(line) < count:
            await asyncio.sleep(0.02)


async def test_a_server_spawned_early_is_the_process_its_first_start_connects_to(
    tmp_path: Path,
) -> None:
    events = tmp_path / "fake.log"
    conn = ServerConnection(fake("fake", log=events), lambda _c: None, tmp_path / "logs")
    conn.spawn_early()
    await _lines(events, "start")  # running before any start: nothing else spawned it
    conn.start()
    await conn.wait_started()
    try:
        assert conn.state == "connected", conn.reason
        assert "echo" in [t.name for t in conn.tools]
        result = await conn.call_tool("echo", {"text": "hi"}, 30)
        assert result.content[0].text == "echo: hi"
        assert events.read_text().splitlines().count("start") == 1  # no second process
    finally:
        await conn.stop()


async def test_a_manager_for_p_spawns_its_servers_before_its_loop_starts_them(
    tmp_path: Path,
) -> None:
    events = tmp_path / "fake.log"
    mgr = McpManager(config_of(fake("fake", log=events)), background=False)
    hold = threading.Event()
    mgr._ensure_loop().call_soon_threadsafe(hold.wait, 60)  # the MCP loop can start nothing
    try:
        mgr.start()
        await _lines(events, "start")
    finally:
        hold.set()
    await mgr.wait_started()
    try:
        assert mgr.connections["fake"].state == "connected"
        result = await mgr.call("fake", "echo", {"text": "early"})
        assert result.content == "echo: early"
    finally:
        await mgr.aclose()


async def test_a_manager_for_p_spawns_no_process_for_a_server_switched_off(
    tmp_path: Path,
) -> None:
    off, on = tmp_path / "off.log", tmp_path / "on.log"
    store = DisabledServers(tmp_path, tmp_path / "claude.json")
    store.set("off", True)  # /mcp disable off, in an earlier session
    config = config_of(fake("off", log=off), fake("on", log=on))
    mgr = McpManager(config, background=False, disabled=store)
    mgr.start()
    await mgr.wait_started()
    try:
        assert mgr.connections["on"].state == "connected"
        assert mgr.connections["off"].state == "disabled"
        assert not off.exists()  # its command never ran, not even spawned early
    finally:
        await mgr.aclose()


def _idle_server(pid_file: Path) -> ServerConfig:
    """A server that writes its pid to ``pid_file`` and never answers."""
    script = f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); "
    return command("idle", sys.executable, "-c", script + "time.sleep(600)")


async def _pid_in(pid_file: Path) -> int:
    async with asyncio.timeout(60):
        while not pid_file.exists() or not pid_file.read_text():
            await asyncio.sleep(0.02)
    return int(pid_file.read_text())


def _runs(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def test_a_server_spawned_early_and_stopped_before_its_start_is_ended(
    tmp_path: Path,
) -> None:
    events = tmp_path / "fake.log"
    conn = ServerConnection(_idle_server(tmp_path / "pid"), lambda _c: None)
    conn.spawn_early()
    pid = await _pid_in(tmp_path / "pid")
    await conn.stop()
    assert not events.exists()
    assert not _runs(pid), "the early process still runs after stop()"


async def test_a_missing_command_spawned_early_fails_with_the_reason(tmp_path: Path) -> None:
    ghost = command("ghost", str(tmp_path / "no-such-program"))
    conn = ServerConnection(ghost, lambda _c: None)
    conn.spawn_early()
    conn.start()
    await conn.wait_started()
    assert conn.state == "failed"
    assert "no-such-program" in conn.reason


def test_an_early_server_inherits_what_the_sdks_stdio_client_passes_on() -> None:
    from mcp.client.stdio import DEFAULT_INHERITED_ENV_VARS, get_default_environment

    assert tuple(DEFAULT_INHERITED_ENV_VARS) == INHERITED_ENV
    config = fake("fake", log=Path("/tmp/x.log"))
    assert server_environment(config) == get_default_environment() | dict(config.env)


def _mcp_threads() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name == "eddy-mcp"}


async def test_held_servers_spawn_at_once_and_connect_only_when_told(tmp_path: Path) -> None:
    """``-p`` with MCP_CONNECTION_NONBLOCKING: the processes start with the session, the
    connections (and the MCP SDK's import) only at ``connect_held``: before it there is no
    MCP loop to send a server anything, and the server says it is pending."""
    events = tmp_path / "fake.log"
    config = config_of(fake("fake", log=events))
    mgr = McpManager(config, background=False, connect_after_first_call=True)
    before = _mcp_threads()
    try:
        mgr.start()
        await _lines(events, "start")  # the process runs
        assert _mcp_threads() == before
        assert mgr.server_states() == [{"name": "fake", "status": "pending"}]
        mgr.connect_held()
        await mgr.wait_started()
        assert mgr.connections["fake"].state == "connected"
        assert events.read_text().splitlines().count("start") == 1  # the early process
    finally:
        await mgr.aclose()


async def test_a_question_to_a_held_server_connects_it_first(tmp_path: Path) -> None:
    """Whatever asks a held server for something (an Agent SDK's ``mcp_reconnect``, a
    resource a prompt names) starts the held connections before it: nothing waits for a
    first response that is not coming."""
    mgr = McpManager(config_of(fake("fake")), background=False, connect_after_first_call=True)
    mgr.start()
    try:
        async with asyncio.timeout(60):
            await mgr.wait_started()
        assert mgr.connections["fake"].state == "connected"
    finally:
        await mgr.aclose()


async def test_a_held_server_closed_before_it_connected_is_ended(tmp_path: Path) -> None:
    idle = _idle_server(tmp_path / "pid")
    mgr = McpManager(config_of(idle), background=False, connect_after_first_call=True)
    mgr.start()
    pid = await _pid_in(tmp_path / "pid")
    await mgr.aclose()
    assert not _runs(pid), "the held server's process still runs after the session closed"


async def test_a_held_server_started_by_name_connects_at_once(tmp_path: Path) -> None:
    """``start_server`` (a project server approved meanwhile, an Agent SDK's in-process
    server) starts that one now and takes it out of the held ones, so the later release does
    not start it a second time."""
    events = tmp_path / "fake.log"
    config = config_of(fake("fake", log=events), fake("other"))
    mgr = McpManager(config, background=False, connect_after_first_call=True)
    try:
        mgr.start()
        mgr.start_server("fake")
        # the state the MCP loop's thread sets, polled: ``wait_started`` would release the
        # held server this test checks is still held (load can only make the poll longer)
        async with asyncio.timeout(60):
            while mgr.connections["fake"].state != "connected":
                await asyncio.sleep(0.02)
        assert mgr.connections["other"].state == "connecting"  # still held (pending)
        mgr.connect_held()
        await mgr.wait_started()
        assert [c.state for c in mgr.connections.values()] == ["connected", "connected"]
        assert events.read_text().splitlines().count("start") == 1  # started once
    finally:
        await mgr.aclose()
