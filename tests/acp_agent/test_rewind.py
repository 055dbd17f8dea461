"""eddy's ACP extensions: ``_eddy/checkpoints`` lists the prompts to go back to and
``_eddy/rewind`` restores code, conversation or both."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from acp import RequestError, text_block

from tests.acp_agent.client import TIMEOUT, eddy_acp
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use


def write(call_id: str, content: str) -> Reply:
    return Reply(
        [tool_use(call_id, "Write", {"file_path": "b.py", "content": content})], "tool_use"
    )


EDIT = {"file_path": "b.py", "old_string": "one", "new_string": "two"}


async def test_checkpoints_are_listed_and_rewind_restores_code_then_both(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    fake_api.push(
        write("toolu_1", "one\n"),
        Reply([text("wrote one")]),
        Reply(
            [
                tool_use(
                    "toolu_2",
                    "Edit",
                    {"file_path": "b.py", "old_string": "one", "new_string": "two"},
                )
            ],
            "tool_use",
        ),
        Reply([text("made it two")]),
        Reply([text("fresh start")]),
    )
    args = ("--permission-mode", "bypassPermissions")
    async with eddy_acp(fake_api, *args, cwd=ws) as (conn, client, _):
        sid = (await conn.new_session(cwd=str(ws), mcp_servers=[])).session_id
        for words in ("write one", "make it two"):
            prompt = conn.prompt(session_id=sid, prompt=[text_block(words)])
            await asyncio.wait_for(prompt, TIMEOUT)
        assert (ws / "b.py").read_text() == "two\n"

        listed = await conn.ext_method("eddy/checkpoints", {"sessionId": sid})
        entries = listed["checkpoints"]
        assert [(e["number"], e["prompt"], e["redo"]) for e in entries] == [
            (1, "write one", False),
            (2, "make it two", False),
        ]

        code = await conn.ext_method("eddy/rewind", {"sessionId": sid, "number": 2, "mode": "code"})
        assert code["mode"] == "code" and code["restored"] == ["b.py"]
        assert (ws / "b.py").read_text() == "one\n"

        both = await conn.ext_method("eddy/rewind", {"sessionId": sid, "number": 1})
        assert both["mode"] == "both" and both["prompt"] == "write one"
        assert both["deleted"] == ["b.py"] and not (ws / "b.py").exists()
        assert any(both["message"] in u.content.text for u in client.of("agent_message_chunk"))

        with pytest.raises(RequestError):
            await conn.ext_method("eddy/rewind", {"sessionId": sid, "number": "x"})
        with pytest.raises(RequestError):
            await conn.ext_method("eddy/rewind", {"sessionId": sid, "number": 99})
        with pytest.raises(RequestError):
            await conn.ext_method("eddy/nothing", {})

        again = conn.prompt(session_id=sid, prompt=[text_block("start over")])
        assert (await asyncio.wait_for(again, TIMEOUT)).stop_reason == "end_turn"
    messages = fake_api.requests[-1]["messages"]
    assert len(messages) == 1 and messages[0]["content"][0]["text"] == "start over"
    assert fake_api.violations == []
