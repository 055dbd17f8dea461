"""The status line's MCP entry: the servers' summary, and the last server that failed."""

from __future__ import annotations

import dataclasses

from agent import events as ev
from agent.mcp.manager import McpManager
from frontend.status import StatusModel
from plain.status import Status
from tests.agent.mcp.servers import command, config_of
from tests.frontend.test_status import resumed


def test_the_status_shows_the_summary_then_a_failure() -> None:
    status = StatusModel()
    status.take_session(dataclasses.replace(resumed(0), mcp="MCP 0/2"))
    assert status.mcp == "MCP 0/2"
    status.follow(ev.Error(ev.NO_TURN, "MCP server docs: failed: it exited. /mcp...", "mcp"))
    assert status.mcp == "MCP docs failed"
    status.follow(ev.Error(ev.NO_TURN, "MCP server: not about a server", "api"))
    assert status.mcp == "MCP docs failed"
    status.follow(ev.Notice(ev.NO_TURN, "MCP server web: needs-auth: log in. /mcp shows..."))
    assert status.mcp == "MCP web needs-auth"
    status.follow(ev.Notice(ev.NO_TURN, "Model set to x."))
    assert status.mcp == "MCP web needs-auth"


def test_line_mode_draws_it_and_nothing_without_servers() -> None:
    plain = Status()
    plain.take_session(resumed(0))
    assert "MCP" not in plain.line(False)
    plain.take_session(dataclasses.replace(resumed(0), mcp="MCP 1/1"))
    assert "MCP 1/1" in plain.line(False)


def test_the_summary_counts_connected_and_failed_servers() -> None:
    mgr = McpManager(config_of(command("a", "x"), command("b", "y")))
    assert mgr.status() == "MCP 0/2"
    mgr.connections["a"].state = "connected"
    mgr.connections["b"].state = "failed"
    assert mgr.status() == "MCP 1/2, 1 failed"
    assert McpManager(config_of()).status() == ""


def test_the_end_of_start_up_is_one_notice_the_status_line_follows() -> None:
    status = StatusModel()
    status.follow(ev.Notice(ev.NO_TURN, "MCP: 4/5 servers connected (1 failed), 23 tools."))
    assert status.mcp == "MCP 4/5, 1 failed"
    status.follow(ev.Notice(ev.NO_TURN, "MCP: 2/2 servers connected, 9 tools."))
    assert status.mcp == "MCP 2/2"


async def test_a_session_hears_when_its_servers_have_started(tmp_path) -> None:
    """The manager learns the session's loop from the first status() read on it (the TUI
    builds the session in a thread) and reports the end of start-up there."""
    from agent.session.config import SessionConfig
    from agent.session.core import Session
    from tests.agent.mcp.servers import fake
    from tests.helpers.events import Events

    events = Events()
    session = Session(SessionConfig(tmp_path, "claude-sonnet-5-5"), None, [], events)  # type: ignore[arg-type]
    mgr = McpManager(config_of(fake("a"), command("b", str(tmp_path / "missing"))))
    mgr.bind(session.tools, session.emit)
    session.add_extension(mgr)
    mgr.start()
    assert session.status().mcp.startswith("MCP ")
    try:
        await events.wait_until(
            lambda: any(n.text.startswith("MCP: ") for n in events.of(ev.Notice)), timeout=30
        )
        texts = [n.text for n in events.of(ev.Notice)]
        errors = [(e.message, e.kind) for e in events.of(ev.Error)]
        assert [k for m, k in errors if m.startswith("MCP server b: failed")] == ["mcp"]
        assert texts[-1].startswith("MCP: 1/2 servers connected (1 failed), ")
    finally:
        await session.close()
