"""MCP servers that misbehave (issue 34), against a raw stdio server that answers anything
(tests/fakes/mcp_odd_server.py): an answer that is not an MCP answer ends the call at once
with an is_error result naming the server; every call has a deadline; what the SDK and the
server say goes to the server's log, never eddy's stderr; a server that cannot start fails
with a reason that names what went wrong.

Calls set ``MCP_TOOL_TIMEOUT`` to 60 s where an unreadable answer is tested: without the fix
such a call waits for that deadline and the test fails on its wording, not by hanging.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent.mcp.config import ServerConfig
from agent.mcp.connection import DEFAULT_TOOL_TIMEOUT_MS, tool_timeout
from agent.mcp.manager import McpManager
from tests.agent.mcp.servers import config_of

ODD = Path(__file__).resolve().parents[2] / "fakes" / "mcp_odd_server.py"


def odd(name: str = "odd", start: str = "ok") -> ServerConfig:
    """The misbehaving server, starting as ``start`` says."""
    return ServerConfig(name, "user", "test", "stdio", sys.executable, (str(ODD), "--start", start))


@pytest.fixture
async def manager(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[McpManager]:
    monkeypatch.setenv("MCP_TOOL_TIMEOUT", "60000")
    mgr = McpManager(config_of(odd()), log_dir=tmp_path / "logs")
    mgr.start()
    await mgr.wait_started()
    assert mgr.connections["odd"].state == "connected", mgr.connections["odd"].reason
    yield mgr
    await mgr.aclose()


def answer(*lines: str, newline: bool = True) -> dict:
    return {"lines": list(lines), "newline": newline}


UNREADABLE = {
    "a result that is not an object": answer('{"jsonrpc": "2.0", "id": {id}, "result": 42}'),
    "an error that is not an object": answer('{"jsonrpc": "2.0", "id": {id}, "error": "no"}'),
    "a response with neither result nor error": answer('{"jsonrpc": "2.0", "id": {id}}'),
    "a half line": answer('{"jsonrpc": "2.0", "id": {id}, "result": {"content": [{"ty'),
    "a line of garbage": answer("Traceback (most recent call last): oops"),
    "a JSON string": answer('"done"'),
    "a JSON array": answer("[1, 2, 3]"),
    "a number": answer("42"),
}


@pytest.mark.parametrize("case", list(UNREADABLE))
async def test_an_answer_that_is_not_an_mcp_answer_ends_the_call_at_once_naming_the_server(
    manager: McpManager, case: str
) -> None:
    result = await manager.call("odd", "answer", UNREADABLE[case])
    assert result.is_error
    text = str(result.content)
    assert "MCP server odd" in text and "cannot read" in text, text
    assert "MCP_TOOL_TIMEOUT" not in text
    after = await manager.call("odd", "echo", {"text": "still here"})
    assert (after.content, after.is_error) == ("echo: still here", False)


async def test_a_result_that_fails_the_call_tool_schema_is_an_error_result(
    manager: McpManager,
) -> None:
    bad = answer('{"jsonrpc": "2.0", "id": {id}, "result": {"content": "not a list"}}')
    result = await manager.call("odd", "answer", bad)
    assert result.is_error and "MCP server odd" in str(result.content)
    assert "does not follow MCP's schema: content" in str(result.content), result.content


async def test_a_malformed_notification_during_a_call_does_not_end_it(
    manager: McpManager,
) -> None:
    lines = answer(
        '{"jsonrpc": "2.0", "method": "notifications/message", "params": 5}',
        '{"jsonrpc": "2.0", "id": {id}, "result": {"content": [{"type": "text", "text": "ok"}]}}',
    )
    result = await manager.call("odd", "answer", lines)
    assert (result.content, result.is_error) == ("ok", False)


async def test_a_call_has_a_deadline_by_default_and_progress_does_not_extend_it(
    manager: McpManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MCP_TOOL_TIMEOUT")
    assert tool_timeout() == DEFAULT_TOOL_TIMEOUT_MS / 1000 == 600
    monkeypatch.setenv("MCP_TOOL_TIMEOUT", "800")  # ms; the server reports progress forever
    result = await manager.call("odd", "tick", {})
    assert result.is_error
    assert "odd did not answer within 0.8 s (MCP_TOOL_TIMEOUT)" in str(result.content)


async def test_a_half_line_that_never_ends_is_stopped_by_the_deadline(
    manager: McpManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCP_TOOL_TIMEOUT", "800")
    half = answer('{"jsonrpc": "2.0", "id": {id}, "result": {"cont', newline=False)
    result = await manager.call("odd", "answer", half)
    assert result.is_error and "MCP_TOOL_TIMEOUT" in str(result.content)


async def test_the_sdks_complaints_and_the_servers_stderr_go_to_its_log_not_eddys_stderr(
    manager: McpManager, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    await manager.call("odd", "answer", answer("garbage, not json"))
    await manager.call("odd", "answer", answer('{"jsonrpc": "2.0", "id": {id}, "result": 42}'))
    await manager.call("odd", "noise", {"text": "hello"})
    # a log notification without its fields: the SDK's client session complains under the
    # logger name "client", not under "mcp" (the MCP SDK 2.x; a long fuzz run found it)
    empty = '{"jsonrpc": "2.0", "method": "notifications/message", "params": {}}'
    done = '{"jsonrpc": "2.0", "id": {id}, "result": {"content": [{"type": "text", "text": "ok"}]}}'
    result = await manager.call("odd", "answer", answer(empty, done))
    assert (result.content, result.is_error) == ("ok", False)
    err = capfd.readouterr().err
    assert "Traceback" not in err and "Failed to" not in err and "noise" not in err, err
    log = (tmp_path / "logs" / "odd.log").read_text()
    assert "noise on stderr: hello" in log
    assert "the MCP SDK says" in log and "Failed to parse" in log
    assert "Failed to validate notification: notifications/message" in log


START_FAILURES = {
    "exit": ("exited", "cannot start, no config"),
    "hang": ("did not start within 4 s (MCP_TIMEOUT", ""),
    "garbage": ("did not start within 4 s (MCP_TIMEOUT", "this is not json"),
}


@pytest.mark.parametrize("start", list(START_FAILURES))
async def test_a_server_that_cannot_start_fails_with_a_reason_naming_what_went_wrong(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str], start: str
) -> None:
    monkeypatch.setenv("MCP_TIMEOUT", "4000")
    mgr = McpManager(config_of(odd("bad", start), odd("good")), log_dir=tmp_path / "logs")
    mgr.start()
    await mgr.wait_started()
    try:
        conn = mgr.connections["bad"]
        assert conn.state == "failed"
        for part in START_FAILURES[start]:
            assert part in conn.reason, conn.reason
        assert mgr.connections["good"].state == "connected"
        assert "Traceback" not in capfd.readouterr().err
    finally:
        await mgr.aclose()


async def test_a_banner_on_stdout_before_the_handshake_is_tolerated(tmp_path: Path) -> None:
    mgr = McpManager(config_of(odd("chatty", "banner")), log_dir=tmp_path / "logs")
    mgr.start()
    await mgr.wait_started()
    try:
        assert mgr.connections["chatty"].state == "connected"
        result = await mgr.call("chatty", "echo", {"text": "hi"})
        assert result.content == "echo: hi"
    finally:
        await mgr.aclose()


def test_the_odd_servers_answer_lines_carry_the_request_id() -> None:
    line = UNREADABLE["a result that is not an object"]["lines"][0]
    assert json.loads(line.replace("{id}", "7"))["id"] == 7
