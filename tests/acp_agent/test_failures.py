"""What goes wrong over ACP stays an answer: no API key, an API error, the editor going away
mid-turn (the session is saved valid and loads again)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from acp import RequestError, text_block

from agent.messages import check_invariant, message_from_param
from tests.acp_agent.client import TIMEOUT, eddy_acp
from tests.fakes.fake_api import FakeAnthropic, HttpError, Reply, text, tool_use


async def test_without_an_api_key_a_new_session_asks_for_authentication(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    async with eddy_acp(fake_api, cwd=ws, key=False) as (conn, _client, _):
        with pytest.raises(RequestError) as caught:
            await conn.new_session(cwd=str(ws), mcp_servers=[])
    assert caught.value.code == -32000
    assert "ANTHROPIC_API_KEY" in str(caught.value.data)
    assert fake_api.requests == []


async def test_an_api_error_is_said_in_the_answer_and_the_prompt_still_ends(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    fake_api.push(HttpError(401, message="invalid x-api-key"), Reply([text("fine now")]))
    async with eddy_acp(fake_api, cwd=ws) as (conn, client, _):
        sid = (await conn.new_session(cwd=str(ws), mcp_servers=[])).session_id
        answer = await asyncio.wait_for(
            conn.prompt(session_id=sid, prompt=[text_block("hi")]), TIMEOUT
        )
        assert answer.stop_reason == "end_turn"
        assert "eddy:" in client.text()
        again = await asyncio.wait_for(
            conn.prompt(session_id=sid, prompt=[text_block("again")]), TIMEOUT
        )
        assert again.stop_reason == "end_turn" and client.text().endswith("fine now")
    assert fake_api.violations == []


async def test_the_editor_going_away_mid_command_leaves_a_valid_saved_session(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    fake_api.push(
        Reply([tool_use("toolu_1", "Bash", {"command": "sleep 120"})], "tool_use"),
        Reply([text("resumed")]),
    )
    args = ("--permission-mode", "bypassPermissions")
    async with eddy_acp(fake_api, *args, cwd=ws) as (conn, client, process):
        sid = (await conn.new_session(cwd=str(ws), mcp_servers=[])).session_id
        asyncio.create_task(conn.prompt(session_id=sid, prompt=[text_block("wait")]))
        await client.wait_for(
            lambda: any(u.status == "in_progress" for u in client.of("tool_call_update"))
        )
        process.stdin.close()  # the editor quits: stdin ends
        assert await asyncio.wait_for(process.wait(), TIMEOUT) == 0

    async with eddy_acp(fake_api, cwd=ws) as (conn, client, _):
        await asyncio.wait_for(
            conn.load_session(cwd=str(ws), session_id=sid, mcp_servers=[]), TIMEOUT
        )
        ends = [u.status for u in client.of("tool_call_update")]
        assert ends == ["failed"]  # the interrupted call, replayed with its one result
        answer = await asyncio.wait_for(
            conn.prompt(session_id=sid, prompt=[text_block("go on")]), TIMEOUT
        )
        assert answer.stop_reason == "end_turn"
    sent = [message_from_param(m) for m in fake_api.requests[-1]["messages"]]
    assert not check_invariant(sent)
    assert fake_api.violations == []
