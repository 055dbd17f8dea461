"""Slash commands over ACP: the one command table, advertised and run without the model."""

from __future__ import annotations

import asyncio
from pathlib import Path

from acp import text_block

from tests.acp_agent.client import TIMEOUT, eddy_acp
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use


async def test_commands_answer_as_agent_text_and_init_is_sent_as_a_prompt(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    (ws / ".eddy" / "commands").mkdir(parents=True)
    (ws / ".eddy" / "commands" / "review.md").write_text("Review the diff.\n")
    fake_api.push(Reply([text("surveyed")]))
    async with eddy_acp(fake_api, cwd=ws) as (conn, client, _):
        sid = (await conn.new_session(cwd=str(ws), mcp_servers=[])).session_id
        offered = await client.wait_for(lambda: client.of("available_commands_update"))
        names = [c.name for c in offered[0].available_commands]
        assert names[:3] == ["compact", "init", "cost"] and names[-1] == "review"

        for line in ("/cost", "/theme dark", "/nosuch"):
            done = conn.prompt(session_id=sid, prompt=[text_block(line)])
            assert (await asyncio.wait_for(done, TIMEOUT)).stop_reason == "end_turn"
        said = client.text()
        assert "$" in said  # /cost
        assert "theme" not in names and "Unknown command /theme" not in said
        assert "Unknown command /nosuch" in said
        assert fake_api.requests == []  # none of them reached the model

        done = conn.prompt(session_id=sid, prompt=[text_block("/init")])
        assert (await asyncio.wait_for(done, TIMEOUT)).stop_reason == "end_turn"
    assert len(fake_api.requests) == 1
    assert "AGENTS.md" in fake_api.requests[0]["messages"][0]["content"][0]["text"]
    assert fake_api.violations == []


async def test_a_command_during_a_turn_runs_now_or_says_to_wait_and_is_not_queued(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    wait = "while [ ! -f go ]; do sleep 0.05; done"
    fake_api.push(
        Reply([tool_use("toolu_1", "Bash", {"command": wait})], "tool_use"), Reply([text("ok")])
    )
    args = ("--permission-mode", "bypassPermissions")
    async with eddy_acp(fake_api, *args, cwd=ws) as (conn, client, _):
        sid = (await conn.new_session(cwd=str(ws), mcp_servers=[])).session_id
        turn = asyncio.create_task(conn.prompt(session_id=sid, prompt=[text_block("wait")]))
        await client.wait_for(
            lambda: any(u.status == "in_progress" for u in client.of("tool_call_update"))
        )
        cost = conn.prompt(session_id=sid, prompt=[text_block("/cost")])
        assert (await asyncio.wait_for(cost, TIMEOUT)).stop_reason == "end_turn"
        assert "$" in client.text()  # answered while the turn still runs
        init = conn.prompt(session_id=sid, prompt=[text_block("/memory")])
        assert (await asyncio.wait_for(init, TIMEOUT)).stop_reason == "end_turn"
        assert "press Esc" in client.text()
        (ws / "go").touch()
        assert (await asyncio.wait_for(turn, TIMEOUT)).stop_reason == "end_turn"
        assert client.queues == []  # nothing was queued for the model
    assert len(fake_api.requests) == 2
    assert fake_api.violations == []


async def test_mcp_over_acp_lists_the_servers_and_its_subcommands_change_the_tools(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    import json
    import os
    import sys

    from tests.agent.mcp.servers import FAKE

    ws = tmp_path / "ws"
    ws.mkdir()
    servers = {n: {"command": sys.executable, "args": [str(FAKE), "--name", n]} for n in "ab"}
    claude = Path(os.environ["CLAUDE_CONFIG_DIR"]) / ".claude.json"
    claude.parent.mkdir(parents=True, exist_ok=True)
    claude.write_text(json.dumps({"mcpServers": servers}))
    fake_api.push(Reply([text("one")]), Reply([text("two")]))
    async with eddy_acp(fake_api, cwd=ws) as (conn, client, _):
        sid = (await conn.new_session(cwd=str(ws), mcp_servers=[])).session_id
        for line in ("/mcp reconnect b", "/mcp disable a", "/mcp", "one", "/mcp enable a", "two"):
            done = conn.prompt(session_id=sid, prompt=[text_block(line)])
            assert (await asyncio.wait_for(done, TIMEOUT)).stop_reason == "end_turn"
        said = client.text()
        assert "MCP server b reconnected" in said and "MCP server a disabled" in said
        assert "a  [user, stdio:" in said and "disabled for this project" in said
        assert "MCP server a enabled: " in said
    first, second = ({t["name"] for t in r["tools"]} for r in fake_api.requests)
    assert "mcp__b__echo" in first and "mcp__a__echo" not in first
    assert "mcp__a__echo" in second
    assert fake_api.violations == []
