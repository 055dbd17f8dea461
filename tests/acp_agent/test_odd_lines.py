"""Odd lines and hang-ups over ACP (issue 34), against the real ``eddy --acp`` process: every
line that is not a JSON-RPC message gets the error response JSON-RPC 2.0 names and the server
goes on; a client that goes away mid-turn ends the server quietly (INFO, no traceback), with
the running tool killed and the transcript saved valid."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from acp_agent.wire import triage
from agent.messages import ToolResultBlock, check_invariant
from agent.store.listing import list_sessions
from agent.store.load import load
from tests.acp_agent.client import TIMEOUT
from tests.acp_agent.raw import RawAcp, raw_acp
from tests.agent.hooks.scripts import pid_alive
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.helpers.wait import until

PARSE_ERROR, INVALID_REQUEST = -32700, -32600
ODD_LINES = [
    ("not json at all", PARSE_ERROR, None),
    ('{"jsonrpc": "2.0", "id": 3, "method": "initialize"', PARSE_ERROR, None),  # a half line
    (b"\xff\xfe\x00 binary", PARSE_ERROR, None),
    ('"a string"', INVALID_REQUEST, None),
    ("42", INVALID_REQUEST, None),
    ("null", INVALID_REQUEST, None),
    ("true", INVALID_REQUEST, None),
    ("[]", INVALID_REQUEST, None),
    ('{"x": 1}', INVALID_REQUEST, None),
    ('{"jsonrpc": "2.0"}', INVALID_REQUEST, None),
    ('{"jsonrpc": "2.0", "id": 5}', INVALID_REQUEST, 5),
    ('{"jsonrpc": "2.0", "id": 6, "method": 7}', INVALID_REQUEST, 6),
    ('{"jsonrpc": "2.0", "id": [1], "method": "initialize"}', INVALID_REQUEST, None),
    ('{"jsonrpc": "2.0", "id": {"a": 1}, "result": 1}', INVALID_REQUEST, None),
    ('{"jsonrpc": "2.0", "id": true, "method": "initialize"}', INVALID_REQUEST, None),
    ('{"jsonrpc": "1.0", "id": 8, "method": "initialize"}', INVALID_REQUEST, 8),
    ('{"jsonrpc": "2.0", "id": 9, "method": "session/prompt", "params": "x"}', INVALID_REQUEST, 9),
    ('{"jsonrpc": "2.0", "id": 10, "result": 1, "error": {}}', INVALID_REQUEST, 10),
]
SILENT_LINES = [
    "",  # an empty line
    '{"jsonrpc": "2.0", "method": "no/such/notification"}',
    '{"jsonrpc": "2.0", "method": "session/cancel", "params": {"nope": 1}}',
    '{"jsonrpc": "2.0", "id": 77, "result": {}}',  # an answer to nothing eddy asked
    '{"jsonrpc": "2.0", "id": 78, "error": "not an error object"}',
    '[{"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "s"}}]',
]


def no_tracebacks(client: RawAcp) -> None:
    err = client.stderr_text()
    assert "Traceback" not in err and " ERROR " not in err, err


async def still_answers(client: RawAcp) -> None:
    answer = await client.request("session/list", {})
    assert "result" in answer, answer


async def test_each_line_that_is_not_json_rpc_gets_the_specs_error_and_the_server_goes_on(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    async with raw_acp(fake_api, cwd=ws) as client:
        assert "result" in await client.initialize()
        for line, code, expected_id in ODD_LINES:
            await client.send(line)
            answer = await client.read()
            assert isinstance(answer, dict), (line, answer)
            assert answer["jsonrpc"] == "2.0" and answer["error"]["code"] == code, (line, answer)
            assert answer["id"] == expected_id, (line, answer)
            await still_answers(client)
        for line in SILENT_LINES:
            await client.send(line)
            await still_answers(client)  # the very next line eddy writes is that answer
        client.proc.stdin.close()  # type: ignore[union-attr]
        assert await asyncio.wait_for(client.proc.wait(), TIMEOUT) == 0
    no_tracebacks(client)


async def test_a_batch_gets_an_error_per_request_in_one_array_and_the_server_goes_on(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    batch = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}},
        {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "s"}},
        {"jsonrpc": "2.0", "id": "two", "method": "session/list", "params": {}},
        42,
    ]
    async with raw_acp(fake_api, cwd=ws) as client:
        await client.send(json.dumps(batch))
        answer = await client.read()
        assert isinstance(answer, list)
        assert [(a["id"], a["error"]["code"]) for a in answer] == [
            (1, INVALID_REQUEST),
            ("two", INVALID_REQUEST),
            (None, INVALID_REQUEST),
        ]
        assert "batches" in answer[0]["error"]["data"]["details"]
        assert "result" in await client.initialize()
    no_tracebacks(client)


@pytest.mark.parametrize("how", ["closes its input", "stops reading eddy's output"])
async def test_a_client_that_goes_away_mid_tool_ends_the_server_quietly_with_the_tool_killed(
    fake_api: FakeAnthropic, tmp_path: Path, how: str
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    pid_file = ws / "sleeper.pid"
    fake_api.push(
        Reply(
            [tool_use("toolu_1", "Bash", {"command": f"sleep 300 & echo $! > {pid_file}; wait"})],
            "tool_use",
        ),
        Reply([text("never asked")]),
    )
    async with raw_acp(fake_api, "--permission-mode", "bypassPermissions", cwd=ws) as client:
        await client.initialize()
        sid = (await client.request("session/new", {"cwd": str(ws), "mcpServers": []}))["result"][
            "sessionId"
        ]
        prompt = {"sessionId": sid, "prompt": [{"type": "text", "text": "wait"}]}
        await client.send(
            json.dumps({"jsonrpc": "2.0", "id": 1, "method": "session/prompt", "params": prompt})
        )
        await until(lambda: pid_file.exists() and pid_file.read_text().strip(), TIMEOUT, "pid")
        sleeper = int(pid_file.read_text())
        if how == "closes its input":
            client.proc.stdin.close()  # type: ignore[union-attr]
        else:
            client.close_output()
        assert await asyncio.wait_for(client.proc.wait(), TIMEOUT) == 0
    assert not pid_alive(sleeper)
    err = client.stderr_text()
    assert "INFO eddy.acp: the client went away" in err
    no_tracebacks(client)
    (info,) = list_sessions(ws)
    saved = load(info.path)
    assert not check_invariant([*saved.history])  # the interrupted call has its one result
    results = [b for m in saved.history for b in m.content if isinstance(b, ToolResultBlock)]
    assert [r.tool_use_id for r in results] == ["toolu_1"] and results[0].is_error
    assert len(fake_api.requests) == 1


def test_triage_passes_requests_notifications_and_responses_unchanged() -> None:
    for message in (
        {"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": "/"}},
        {"jsonrpc": "2.0", "id": "x", "method": "initialize"},
        {"jsonrpc": "2.0", "id": None, "method": "initialize", "params": None},
        {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "s"}},
        {"jsonrpc": "2.0", "method": "_eddy/anything", "params": {}},
        {"jsonrpc": "2.0", "id": 3, "result": None},
        {"jsonrpc": "2.0", "id": 4, "error": {"code": -32000, "message": "no"}},
        {"id": 5, "method": "initialize"},  # jsonrpc left out: taken, as the package does
    ):
        verdict = triage(json.dumps(message).encode())
        assert verdict.message == message and verdict.answer is None and not verdict.warning
