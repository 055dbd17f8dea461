"""A turn that background work starts by itself (agent/session/reports.py) as an ACP client
sees it: the report's line, the turn's updates, then eddy's ``_eddy/turn_ended`` with the
stop reason, since no ``session/prompt`` is there to answer (acp_agent/updates.py,
``TurnEnded``)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from acp import text_block

from tests.acp_agent.client import TIMEOUT, eddy_acp
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use

WAIT_FOR_GO = "while [ ! -e go ]; do sleep 0.05; done; echo built"
"""A background command that ends when the test says so (it creates ``go``)."""


async def test_a_turn_a_report_starts_streams_its_updates_and_ends_with_turn_ended(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    start = {"command": WAIT_FOR_GO, "description": "build", "run_in_background": True}
    fake_api.push(
        Reply([tool_use("toolu_1", "Bash", start)], "tool_use"),
        Reply([text("Started the build.")]),
        Reply([text("The build is done.")]),  # the turn the report starts
    )
    async with eddy_acp(fake_api, "--permission-mode", "bypassPermissions", cwd=ws) as (
        conn,
        client,
        _,
    ):
        sid = (await conn.new_session(cwd=str(ws), mcp_servers=[])).session_id
        answer = await asyncio.wait_for(
            conn.prompt(session_id=sid, prompt=[text_block("build it")]), TIMEOUT
        )
        assert answer.stop_reason == "end_turn"
        assert client.ended == []  # the prompt's turn ended with the prompt's answer
        (ws / "go").touch()
        await client.wait_for(lambda: client.ended)
        ended = {"sessionId": sid, "stopReason": "end_turn", "origin": "background"}
        assert client.ended == [ended]
        said = client.text()
        assert 'Background command "build" completed (exit code 0)' in said
        assert said.index("completed (exit code 0)") < said.index("The build is done.")
        assert client.kinds(sid)[-1] == "turn_ended"  # after every update of that turn
        assert "<task-notification>" in str(fake_api.requests[-1]["messages"][-1])
        assert fake_api.violations == []
