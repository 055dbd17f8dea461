"""``session/cancel`` is Esc, and a prompt sent while a turn runs is a queued correction."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from acp import text_block

from agent.messages import check_invariant, message_from_param
from tests.acp_agent.client import TIMEOUT, RecordingClient, eddy_acp
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use


def bash(call_id: str, command: str) -> Reply:
    return Reply([tool_use(call_id, "Bash", {"command": command})], "tool_use")


def statuses(client: RecordingClient, call_id: str) -> list[str]:
    return [
        u.status
        for u in client.of("tool_call_update")
        if u.tool_call_id == call_id and u.status in ("completed", "failed")
    ]


def valid(body: dict[str, Any]) -> bool:
    return not check_invariant([message_from_param(m) for m in body["messages"]])


def in_progress(client: RecordingClient, call_id: str) -> bool:
    return any(
        u.tool_call_id == call_id and u.status == "in_progress"
        for u in client.of("tool_call_update")
    )


async def test_cancel_withdraws_the_pending_question_and_the_prompt_answers_cancelled(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    fake_api.push(
        Reply([tool_use("toolu_1", "Write", {"file_path": "b.py", "content": "x"})], "tool_use"),
        Reply([text("continuing")]),
    )
    async with eddy_acp(fake_api, cwd=ws) as (conn, client, _):
        client.answer = None  # the user does not answer
        sid = (await conn.new_session(cwd=str(ws), mcp_servers=[])).session_id
        running = asyncio.create_task(conn.prompt(session_id=sid, prompt=[text_block("write")]))
        await client.wait_for(lambda: client.asked)
        await conn.cancel(session_id=sid)
        client.cancel_pending()  # what ACP asks of the editor after session/cancel
        answer = await asyncio.wait_for(running, TIMEOUT)
        assert answer.stop_reason == "cancelled"
        assert statuses(client, "toolu_1") == ["failed"]
        assert not (ws / "b.py").exists()

        again = await asyncio.wait_for(
            conn.prompt(session_id=sid, prompt=[text_block("go on")]), TIMEOUT
        )
        assert again.stop_reason == "end_turn"
    last = fake_api.requests[-1]["messages"][-1]["content"]
    assert last[0]["tool_use_id"] == "toolu_1" and last[0]["is_error"] is True
    assert last[-1]["text"] == "go on"
    assert len(fake_api.requests) == 2 and valid(fake_api.requests[-1])
    assert fake_api.violations == []


async def test_cancel_mid_command_stops_it_and_the_history_stays_valid(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    fake_api.push(bash("toolu_1", "sleep 120; touch late"), Reply([text("ok")]))
    async with eddy_acp(fake_api, "--permission-mode", "bypassPermissions", cwd=ws) as (
        conn,
        client,
        _,
    ):
        sid = (await conn.new_session(cwd=str(ws), mcp_servers=[])).session_id
        running = asyncio.create_task(conn.prompt(session_id=sid, prompt=[text_block("wait")]))
        await client.wait_for(lambda: in_progress(client, "toolu_1"))
        await conn.cancel(session_id=sid)
        answer = await asyncio.wait_for(running, TIMEOUT)  # well before the sleep ends
        assert answer.stop_reason == "cancelled"
        assert statuses(client, "toolu_1") == ["failed"]
        again = await asyncio.wait_for(
            conn.prompt(session_id=sid, prompt=[text_block("next")]), TIMEOUT
        )
        assert again.stop_reason == "end_turn"
    assert not (ws / "late").exists()
    result = fake_api.requests[-1]["messages"][-1]["content"][0]
    assert result["tool_use_id"] == "toolu_1" and result["is_error"] is True
    assert valid(fake_api.requests[-1]) and fake_api.violations == []


async def test_a_prompt_during_a_turn_is_a_correction_delivered_after_the_running_tool(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    wait = "while [ ! -f go ]; do sleep 0.05; done; echo waited"
    fake_api.push(bash("toolu_1", wait), Reply([text("done, and bye")]))
    async with eddy_acp(fake_api, "--permission-mode", "bypassPermissions", cwd=ws) as (
        conn,
        client,
        _,
    ):
        sid = (await conn.new_session(cwd=str(ws), mcp_servers=[])).session_id
        first = asyncio.create_task(conn.prompt(session_id=sid, prompt=[text_block("wait")]))
        await client.wait_for(lambda: in_progress(client, "toolu_1"))
        second = asyncio.create_task(
            conn.prompt(session_id=sid, prompt=[text_block("also say bye")])
        )
        await client.wait_for(lambda: ["also say bye"] in client.queues)
        (ws / "go").touch()  # the command ends only now: the correction is queued
        answers = await asyncio.wait_for(asyncio.gather(first, second), TIMEOUT)
        assert [a.stop_reason for a in answers] == ["end_turn", "end_turn"]
        assert client.queues[-1] == []
    assert len(fake_api.requests) == 2  # the same turn: no extra model call
    content = fake_api.requests[1]["messages"][-1]["content"]
    assert content[0]["tool_use_id"] == "toolu_1" and "waited" in str(content[0]["content"])
    assert [b["text"] for b in content[1:]] == ["also say bye"]
    assert fake_api.violations == []
