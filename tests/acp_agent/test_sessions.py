"""Saved sessions over ACP: session/list, session/load (the history replayed as updates before
the answer), session/set_mode (eddy's permission modes)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from acp import RequestError, text_block

from tests.acp_agent.client import TIMEOUT, eddy_acp
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use


async def test_a_saved_session_is_listed_loaded_replayed_and_continued(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.py").write_text("print('a')\n")
    fake_api.push(
        Reply([text("Reading."), tool_use("toolu_1", "Read", {"file_path": "a.py"})], "tool_use"),
        Reply([text("It prints a.")]),
        Reply([text("Still a.")]),
    )
    async with eddy_acp(fake_api, cwd=ws) as (conn, client, _):
        sid = (await conn.new_session(cwd=str(ws), mcp_servers=[])).session_id
        await asyncio.wait_for(
            conn.prompt(session_id=sid, prompt=[text_block("read a.py")]), TIMEOUT
        )
        await asyncio.wait_for(
            conn.set_session_mode(session_id=sid, mode_id="acceptEdits"), TIMEOUT
        )
        modes = await client.wait_for(lambda: client.of("current_mode_update"))
        assert modes[-1].current_mode_id == "acceptEdits"
        with pytest.raises(RequestError):
            await conn.set_session_mode(session_id=sid, mode_id="yolo")

    async with eddy_acp(fake_api, cwd=ws) as (conn, client, _):
        listed = await asyncio.wait_for(conn.list_sessions(cwd=str(ws)), TIMEOUT)
        assert [(s.session_id, s.title) for s in listed.sessions] == [(sid, "read a.py")]
        assert listed.sessions[0].updated_at.endswith("Z")

        loaded = await asyncio.wait_for(
            conn.load_session(cwd=str(ws), session_id=sid, mcp_servers=[]), TIMEOUT
        )
        assert loaded.modes.current_mode_id == "acceptEdits"  # the session's own mode
        replayed = [
            (u.session_update, getattr(u, "tool_call_id", None))
            for s, u in client.updates
            if s == sid and u.session_update != "available_commands_update"
        ]
        assert replayed == [
            ("user_message_chunk", None),
            ("agent_message_chunk", None),
            ("tool_call", "toolu_1"),
            ("tool_call_update", "toolu_1"),
            ("agent_message_chunk", None),
        ]
        assert client.of("user_message_chunk")[0].content.text == "read a.py"
        assert client.text() == "Reading.It prints a."
        call = client.of("tool_call")[0]
        assert (call.kind, call.title) == ("read", "Read a.py")
        assert client.of("tool_call_update")[0].status == "completed"

        answer = await asyncio.wait_for(
            conn.prompt(session_id=sid, prompt=[text_block("and now?")]), TIMEOUT
        )
        assert answer.stop_reason == "end_turn"
    history = fake_api.requests[-1]["messages"]
    assert len(history) == 5 and history[0]["content"][0]["text"] == "read a.py"
    assert fake_api.violations == []


async def test_loading_an_unknown_session_is_an_error_not_a_new_session(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    async with eddy_acp(fake_api, cwd=ws) as (conn, _client, _):
        with pytest.raises(RequestError, match="Invalid params"):
            await conn.load_session(cwd=str(ws), session_id="nope", mcp_servers=[])
        with pytest.raises(RequestError):
            await conn.prompt(session_id="nope", prompt=[text_block("hi")])
    assert fake_api.requests == []
