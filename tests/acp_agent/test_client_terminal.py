"""With the client's ``terminal`` capability, Bash's commands run in the editor's terminals:
the same command line (cwd kept between calls), the output streamed, Esc kills it."""

from __future__ import annotations

import asyncio
from pathlib import Path

from acp import schema, text_block

from tests.acp_agent.client import TIMEOUT, RecordingClient, eddy_acp
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use

TERMINAL = schema.ClientCapabilities(terminal=True)
ARGS = ("--permission-mode", "bypassPermissions")


def bash(call_id: str, command: str) -> Reply:
    return Reply([tool_use(call_id, "Bash", {"command": command})], "tool_use")


def result(body: dict) -> tuple[str, bool]:
    block = body["messages"][-1]["content"][0]
    content = block["content"]
    text_ = content if isinstance(content, str) else "".join(b.get("text", "") for b in content)
    return text_, bool(block.get("is_error"))


def final(client: RecordingClient, call_id: str) -> str:
    return [
        u.status
        for u in client.of("tool_call_update")
        if u.tool_call_id == call_id and u.status in ("completed", "failed")
    ][0]


async def test_commands_run_in_the_editors_terminal_and_keep_their_cwd(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    (ws / "sub").mkdir(parents=True)
    fake_api.push(
        bash("toolu_1", "cd sub && echo in-terminal; exit 3"),
        bash("toolu_2", "pwd; echo $PAGER"),
        Reply([text("done")]),
    )
    async with eddy_acp(fake_api, *ARGS, cwd=ws, capabilities=TERMINAL) as (conn, client, _):
        sid = (await conn.new_session(cwd=str(ws), mcp_servers=[])).session_id
        answer = await asyncio.wait_for(
            conn.prompt(session_id=sid, prompt=[text_block("run")]), TIMEOUT
        )
        assert answer.stop_reason == "end_turn"
        assert len(client.commands) == 2 and client.released == ["term-1", "term-2"]
        assert final(client, "toolu_1") == "failed" and final(client, "toolu_2") == "completed"
        streamed = [
            u.content[0].content.text
            for u in client.of("tool_call_update")
            if u.tool_call_id == "toolu_1" and u.status is None
        ]
        assert any("in-terminal" in t for t in streamed)
    first, failed = result(fake_api.requests[1])
    assert "in-terminal" in first and "Exit code 3" in first and failed
    second, _ = result(fake_api.requests[2])
    assert second.splitlines()[:2] == [str((ws / "sub").resolve()), "cat"]
    assert fake_api.violations == []


async def test_cancel_kills_the_editors_terminal(fake_api: FakeAnthropic, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    fake_api.push(bash("toolu_1", "sleep 120; touch late"), Reply([text("ok")]))
    async with eddy_acp(fake_api, *ARGS, cwd=ws, capabilities=TERMINAL) as (conn, client, _):
        sid = (await conn.new_session(cwd=str(ws), mcp_servers=[])).session_id
        running = asyncio.create_task(conn.prompt(session_id=sid, prompt=[text_block("wait")]))
        await client.wait_for(lambda: client.commands)
        await conn.cancel(session_id=sid)
        answer = await asyncio.wait_for(running, TIMEOUT)
        assert answer.stop_reason == "cancelled"
        await client.wait_for(lambda: client.killed)
        assert final(client, "toolu_1") == "failed"
        again = conn.prompt(session_id=sid, prompt=[text_block("next")])
        assert (await asyncio.wait_for(again, TIMEOUT)).stop_reason == "end_turn"
    assert not (ws / "late").exists()
    assert fake_api.violations == []
