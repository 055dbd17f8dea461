"""What eddy offers MCP servers as their client, through the real loop, the real SDK and
our stdio server: roots (and their change), elicitation (the questions dialog; declined when
nobody can answer), progress (the running call's output)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent import events as ev
from agent import ops
from agent.mcp.client_side import DECLINE, progress_line
from agent.mcp.manager import McpManager
from agent.model.anthropic import AnthropicModel
from agent.permissions.policy import Policy, Rule
from agent.session.config import SessionConfig, ToolSetup
from agent.session.core import Session
from tests.agent.mcp.servers import config_of, fake
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.helpers.events import Events
from tools import default_tools


def session_with_server(
    fake_api: FakeAnthropic, tmp_path: Path, *, headless: bool, extra: tuple[Path, ...] = ()
) -> tuple[Session, Events]:
    events = Events()
    config = SessionConfig(
        workspace=tmp_path,
        model="claude-sonnet-5-5",
        policy=Policy(allow=[Rule.parse("mcp__fake")]),
        headless=headless,
    )
    model = AnthropicModel("claude-sonnet-5-5", api_key="t", base_url=fake_api.base_url)
    session = Session(config, model, default_tools(), events, ToolSetup(extra_dirs=extra))
    roots = session.ctx.roots
    manager = McpManager(config_of(fake("fake")), wait_at_first_call=True, roots=roots)
    manager.bind(session.tools, session.emit)
    session.add_extension(manager)
    manager.start()
    return session, events


def result_text(request: dict[str, Any]) -> str:
    (result,) = [b for b in request["messages"][-1]["content"] if b["type"] == "tool_result"]
    return json.dumps(result["content"])


async def test_a_server_reads_the_roots_and_hears_when_they_change(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    extra = tmp_path / "shared"
    extra.mkdir()
    session, _ = session_with_server(fake_api, tmp_path, headless=True, extra=(extra,))
    fake_api.push(
        Reply([tool_use("r1", "mcp__fake__roots", {})], "tool_use"),
        Reply([text("ok")]),
        Reply([tool_use("r2", "mcp__fake__roots", {})], "tool_use"),
        Reply([text("ok")]),
    )
    session.submit(ops.SubmitPrompt("roots?"))
    await session.wait_idle()
    first = result_text(fake_api.requests[1])
    assert tmp_path.resolve().as_uri() in first and extra.resolve().as_uri() in first
    more = tmp_path / "more"
    more.mkdir()
    session.ctx.extra_dirs = (extra, more)  # a folder added during the session
    session.submit(ops.SubmitPrompt("and now?"))
    await session.wait_idle()
    await session.close()
    assert more.resolve().as_uri() in result_text(fake_api.requests[3])
    assert fake_api.violations == []


async def test_a_servers_form_is_asked_in_the_questions_dialog_and_answered(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    session, events = session_with_server(fake_api, tmp_path, headless=False)
    fake_api.push(Reply([tool_use("a1", "mcp__fake__ask", {})], "tool_use"), Reply([text("ok")]))
    session.submit(ops.SubmitPrompt("deploy"))
    asked = await events.wait_for(ev.QuestionsAsked, timeout=30)
    target, replicas, force = asked.questions
    assert target["question"].startswith("fake asks: Where to deploy?\nTarget (where to)")
    assert [o["label"] for o in target["options"]] == ["staging", "production", DECLINE]
    assert [o["label"] for o in force["options"]] == ["Yes", "No", DECLINE]
    assert [o["label"] for o in replicas["options"]] == [DECLINE]  # typed with "Other"
    session.submit(
        ops.AnswerQuestions(
            asked.request_id,
            {target["question"]: "production", replicas["question"]: "3", force["question"]: "No"},
        )
    )
    await session.wait_idle()
    await session.close()
    assert "deploy to production (replicas 3, force False)" in result_text(fake_api.requests[1])


async def test_declining_any_field_declines_the_form(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    session, events = session_with_server(fake_api, tmp_path, headless=False)
    fake_api.push(Reply([tool_use("a1", "mcp__fake__ask", {})], "tool_use"), Reply([text("ok")]))
    session.submit(ops.SubmitPrompt("deploy"))
    asked = await events.wait_for(ev.QuestionsAsked, timeout=30)
    answers = {q["question"]: DECLINE for q in asked.questions}
    session.submit(ops.AnswerQuestions(asked.request_id, answers))
    await session.wait_idle()
    await session.close()
    assert "the user answered: decline" in result_text(fake_api.requests[1])


async def test_headless_declines_a_form_and_says_so_on_the_call(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    session, events = session_with_server(fake_api, tmp_path, headless=True)
    fake_api.push(Reply([tool_use("a1", "mcp__fake__ask", {})], "tool_use"), Reply([text("ok")]))
    session.submit(ops.SubmitPrompt("deploy"))
    await session.wait_idle()
    await session.close()
    assert "the user answered: decline" in result_text(fake_api.requests[1])
    said = "".join(e.text for e in events.of(ev.ToolOutputDelta))
    assert "fake asked: Where to deploy?" in said and "headless" in said
    assert events.of(ev.QuestionsAsked) == []


async def test_progress_shows_as_the_running_calls_output(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    session, events = session_with_server(fake_api, tmp_path, headless=True)
    fake_api.push(
        Reply([tool_use("s1", "mcp__fake__slow", {"steps": 2})], "tool_use"), Reply([text("ok")])
    )
    session.submit(ops.SubmitPrompt("go"))
    await session.wait_idle()
    await session.close()
    deltas = [e for e in events.of(ev.ToolOutputDelta) if e.call_id == "s1"]
    assert [d.text for d in deltas] == [
        "progress 1/2 (50%): step 1\n",
        "progress 2/2 (100%): step 2\n",
    ]
    assert "slow done" in result_text(fake_api.requests[1])


def test_a_progress_line_without_a_total() -> None:
    assert progress_line(7, None, None) == "progress 7"
