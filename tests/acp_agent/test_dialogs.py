"""AskUserQuestion and ExitPlanMode over ACP (acp_agent/dialogs.py): each is a
``session/request_permission`` whose options are the choices; the choice reaches the model as
the tool's result, as the TUI's dialogs send it."""

from __future__ import annotations

import asyncio
from pathlib import Path

from acp import text_block

from tests.acp_agent.client import TIMEOUT, eddy_acp
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use

QUESTION = {
    "questions": [
        {
            "question": "Which database?",
            "header": "Database",
            "options": [
                {"label": "SQLite", "description": "a file"},
                {"label": "Postgres", "description": "a server"},
            ],
            "multiSelect": False,
        }
    ]
}


def result_text(fake: FakeAnthropic, request: int) -> tuple[str, bool]:
    block = fake.requests[request]["messages"][-1]["content"][0]
    content = block["content"]
    said = content if isinstance(content, str) else "".join(b.get("text", "") for b in content)
    return said, bool(block.get("is_error"))


async def test_a_question_is_asked_with_its_labels_and_the_choice_reaches_the_model(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    fake_api.push(
        Reply([tool_use("toolu_1", "AskUserQuestion", QUESTION)], "tool_use"),
        Reply([text("Postgres it is.")]),
    )
    async with eddy_acp(fake_api, cwd=tmp_path) as (conn, client, _):
        client.answers = ["1"]
        sid = (await conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
        answer = await asyncio.wait_for(
            conn.prompt(session_id=sid, prompt=[text_block("set it up")]), TIMEOUT
        )
    assert answer.stop_reason == "end_turn"
    (asked,) = client.asked
    assert [o.name for o in asked.options] == ["SQLite", "Postgres"]
    said, is_error = result_text(fake_api, 1)
    assert "Postgres" in said and not is_error
    assert fake_api.violations == []


async def test_a_plan_is_approved_or_rejected_through_the_editor(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    plan = {"plan": "1. add the test\n2. fix the bug"}
    fake_api.push(
        Reply([tool_use("toolu_1", "ExitPlanMode", plan)], "tool_use"),
        Reply([tool_use("toolu_2", "ExitPlanMode", plan)], "tool_use"),
        Reply([text("Going ahead.")]),
    )
    async with eddy_acp(fake_api, "--permission-mode", "plan", cwd=tmp_path) as (conn, client, _):
        client.answers = ["reject", "acceptEdits"]
        sid = (await conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
        answer = await asyncio.wait_for(
            conn.prompt(session_id=sid, prompt=[text_block("plan it")]), TIMEOUT
        )
    assert answer.stop_reason == "end_turn"
    assert [o.option_id for o in client.asked[0].options] == ["acceptEdits", "default", "reject"]
    assert "fix the bug" in client.asked[0].tool_call.content[0].content.text
    _, rejected = result_text(fake_api, 1)
    said, approved_error = result_text(fake_api, 2)
    assert rejected and not approved_error
    modes = [u.current_mode_id for u in client.of("current_mode_update")]
    assert modes[-1] == "acceptEdits"
    assert fake_api.violations == []
