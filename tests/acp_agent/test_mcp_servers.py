"""The MCP servers an editor names in session/new and session/load start for that session
(no approval: the editor's user configured them); the model calls their tools through
``eddy --acp``, the real loop and the fake API, and every request is valid."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from acp import schema, text_block

from acp_agent.mcp_servers import mcp_config_text, server_name
from tests.acp_agent.client import TIMEOUT, eddy_acp
from tests.agent.mcp.servers import FAKE
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


def stdio(name: str, log: Path) -> schema.McpServerStdio:
    return schema.McpServerStdio(
        name=name,
        command=sys.executable,
        args=[str(FAKE), "--name", name],
        env=[schema.EnvVariable(name="FAKE_MCP_LOG", value=str(log))],
    )


def result_of(request: dict[str, Any], call_id: str) -> dict[str, Any]:
    for block in request["messages"][-1]["content"]:
        if block.get("type") == "tool_result" and block["tool_use_id"] == call_id:
            return block
    raise AssertionError(f"no result for {call_id}")


def echo_turn(call_id: str, server: str, said: str) -> list[Reply]:
    return [
        Reply([tool_use(call_id, f"mcp__{server}__echo", {"text": said})], "tool_use"),
        Reply([text(f"{server} said it")]),
    ]


async def test_new_and_load_start_the_editors_servers_and_the_model_calls_them(
    fake_api: FakeAnthropic, workspace: Path, tmp_path: Path
) -> None:
    log = tmp_path / "server.log"
    fake_api.push(*echo_turn("toolu_1", "editor", "hi"), *echo_turn("toolu_2", "editor", "again"))
    async with eddy_acp(fake_api, cwd=workspace) as (conn, client, _):
        new = await asyncio.wait_for(
            conn.new_session(cwd=str(workspace), mcp_servers=[stdio("editor", log)]), TIMEOUT
        )
        sid = new.session_id
        answer = await asyncio.wait_for(
            conn.prompt(session_id=sid, prompt=[text_block("use the editor's server")]), TIMEOUT
        )
        assert answer.stop_reason == "end_turn"
        assert [a.tool_call.tool_call_id for a in client.asked] == ["toolu_1"]  # the editor's yes
        loaded = conn.load_session(cwd=str(workspace), session_id=sid, mcp_servers=[])
        await asyncio.wait_for(loaded, TIMEOUT)
        loaded = conn.load_session(
            cwd=str(workspace), session_id=sid, mcp_servers=[stdio("editor", log)]
        )
        await asyncio.wait_for(loaded, TIMEOUT)
        answer = await asyncio.wait_for(
            conn.prompt(session_id=sid, prompt=[text_block("once more")]), TIMEOUT
        )
        assert answer.stop_reason == "end_turn"

    assert fake_api.violations == []
    first, second, third, fourth = fake_api.requests
    assert "mcp__editor__echo" in [t["name"] for t in first["tools"]]
    result = result_of(second, "toolu_1")
    assert not result.get("is_error") and "echo: hi" in json.dumps(result["content"])
    assert "mcp__editor__echo" in [t["name"] for t in third["tools"]]
    result = result_of(fourth, "toolu_2")
    assert not result.get("is_error") and "echo: again" in json.dumps(result["content"])
    assert log.read_text().count("call echo") == 2  # the env reached the server process


def test_the_editors_entries_as_mcp_config() -> None:
    http = schema.HttpMcpServer(
        type="http",
        name="My Docs",
        url="http://127.0.0.1:1/mcp",
        headers=[schema.HttpHeader(name="Authorization", value="Bearer x")],
    )
    sse = schema.SseMcpServer(type="sse", name="My Docs", url="http://127.0.0.1:1/sse", headers=[])
    acp_server = schema.AcpMcpServer(type="acp", name="inproc", server_id="1")
    given, problems = mcp_config_text([http, sse, acp_server])
    assert given is not None
    servers = json.loads(given)["mcpServers"]
    assert servers == {
        "My_Docs": {
            "type": "http",
            "url": "http://127.0.0.1:1/mcp",
            "headers": {"Authorization": "Bearer x"},
        },
        "My_Docs_2": {"type": "sse", "url": "http://127.0.0.1:1/sse", "headers": {}},
    }
    assert problems == ["MCP server inproc from the editor: acp servers are not supported."]
    assert mcp_config_text([]) == (None, [])
    assert server_name("", set()) == "server"
