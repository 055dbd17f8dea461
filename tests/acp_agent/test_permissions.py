"""Permission questions over ACP: ``session/request_permission`` after the ``tool_call`` it is
about; allow once, allow always and reject become the TUI's answers."""

from __future__ import annotations

import asyncio
from pathlib import Path

from acp import text_block

from tests.acp_agent.client import TIMEOUT, eddy_acp
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use


def write(call_id: str, name: str, content: str) -> Reply:
    return Reply([tool_use(call_id, "Write", {"file_path": name, "content": content})], "tool_use")


def touch(call_id: str) -> Reply:
    return Reply([tool_use(call_id, "Bash", {"command": "touch made-by-bash"})], "tool_use")


async def test_each_answer_becomes_the_same_decision_the_tui_sends(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    fake_api.push(
        write("toolu_1", "b.py", "one\n"),
        write("toolu_2", "c.py", "two\n"),
        touch("toolu_3"),
        touch("toolu_4"),
        Reply([text("done")]),
    )
    async with eddy_acp(fake_api, cwd=ws) as (conn, client, _):
        client.answers = ["allow_once", "reject_once", "allow_always"]
        sid = (await conn.new_session(cwd=str(ws), mcp_servers=[])).session_id
        answer = await asyncio.wait_for(
            conn.prompt(session_id=sid, prompt=[text_block("make files")]), TIMEOUT
        )
        assert answer.stop_reason == "end_turn"

    # toolu_4 did not ask: "allow always" made a rule for it
    assert [a.tool_call.tool_call_id for a in client.asked] == ["toolu_1", "toolu_2", "toolu_3"]
    options = client.asked[0].options
    assert [(o.option_id, o.kind) for o in options] == [
        ("allow_once", "allow_once"),
        ("allow_always", "allow_always"),
        ("reject_once", "reject_once"),
    ]
    first = client.asked[0].tool_call
    assert first.title == "Write b.py" and first.kind == "edit"
    assert "+one" in first.content[0].content.text  # the diff a "yes" makes
    tags = [(u.session_update, getattr(u, "tool_call_id", None)) for _, u in client.updates]
    for ask in client.asked:
        call = ask.tool_call.tool_call_id
        # the tool_call came first, its final status after the answer
        assert tags.index(("tool_call", call)) < tags.index(("request_permission", call))

    assert (ws / "b.py").read_text() == "one\n"
    assert not (ws / "c.py").exists()
    assert (ws / "made-by-bash").exists()
    refused = fake_api.requests[2]["messages"][-1]["content"][0]
    assert refused["tool_use_id"] == "toolu_2" and refused["is_error"] is True
    assert "refused" in str(refused["content"])
    finals = {
        u.tool_call_id: u.status
        for u in client.of("tool_call_update")
        if u.status in ("completed", "failed")
    }
    assert finals == {
        "toolu_1": "completed",
        "toolu_2": "failed",
        "toolu_3": "completed",
        "toolu_4": "completed",
    }
    assert fake_api.violations == []
