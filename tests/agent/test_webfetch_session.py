"""WebFetch through the real loop, the real SDK and the fake Messages API (issue 22).

The page is served by a real HTTP server on 127.0.0.1; the small fast model's question goes
through the session's own model client, so the fake API sees it (with the small model's id).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent import events as ev
from agent import ops
from agent.messages import check_invariant, message_from_param
from agent.model.anthropic import AnthropicModel
from agent.permissions.policy import Rule
from agent.session.config import SessionConfig
from agent.session.core import Session
from agent.session.side_model import DEFAULT_SMALL_FAST_MODEL, small_fast_model
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.helpers.events import Events
from tests.tools.web_server import WebServer
from tools.webfetch import WebFetchTool

MODEL = "claude-sonnet-5-5"


@pytest.fixture
def web() -> Iterator[WebServer]:
    with WebServer() as server:
        yield server


def assert_all_requests_valid(fake: FakeAnthropic) -> None:
    assert fake.violations == []
    for body in fake.requests:
        check_invariant([message_from_param(m) for m in body["messages"]])


def scripted(*main: Reply) -> Any:
    """Main-model replies in order; the small model always answers the same."""
    replies = list(main)

    def respond(body: dict[str, Any]) -> Reply:
        if body["model"] != MODEL:
            return Reply([text("The page says: widget.spin(3).")])
        return replies.pop(0) if replies else Reply([text("(exhausted)")])

    return respond


def session_for(fake: FakeAnthropic, cwd: Path, **config: Any) -> tuple[Session, Events]:
    events = Events()
    model = AnthropicModel(MODEL, api_key="t", base_url=fake.base_url, max_retries=0)
    session = Session(SessionConfig(cwd, MODEL, **config), model, [WebFetchTool()], events)
    return session, events


async def test_a_fetch_asks_once_then_the_small_model_answers_at_the_fake_api(
    fake_api: FakeAnthropic, web: WebServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_SMALL_FAST_MODEL", raising=False)
    call = tool_use("w1", "WebFetch", {"url": web.url("/page"), "prompt": "How to spin?"})
    fake_api.responder = scripted(Reply([call], "tool_use"), Reply([text("Use spin(3).")]))
    session, events = session_for(fake_api, tmp_path)
    session.submit(ops.SubmitPrompt("read the widget docs"))
    asked = await events.wait_for(ev.PermissionRequested)
    assert asked.suggested_rule == "WebFetch(domain:127.0.0.1)"
    session.submit(ops.AnswerPermission(asked.request_id, "allow"))
    await session.wait_idle()
    await session.close()
    assert_all_requests_valid(fake_api)
    main, side, final = fake_api.requests
    assert side["model"] == DEFAULT_SMALL_FAST_MODEL == small_fast_model()
    assert "# Widget API" in side["messages"][0]["content"][0]["text"]
    result = final["messages"][2]["content"][0]
    assert result["tool_use_id"] == "w1" and not result.get("is_error")
    assert "The page says: widget.spin(3)." in str(result["content"])
    assert "Widget API" not in str(result["content"])  # the page itself stays out
    assert events.of(ev.TurnFinished)[-1].result == "Use spin(3)."


async def test_the_small_model_id_comes_from_the_environment(
    fake_api: FakeAnthropic, web: WebServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_SMALL_FAST_MODEL", "claude-haiku-5-5")
    call = tool_use("w1", "WebFetch", {"url": web.url("/page"), "prompt": "q"})
    fake_api.responder = scripted(Reply([call], "tool_use"), Reply([text("ok")]))
    session, _ = session_for(fake_api, tmp_path, headless=True)
    session.config.policy.allow.append(Rule.parse("WebFetch(domain:127.0.0.1)"))
    session.submit(ops.SubmitPrompt("go"))
    await session.wait_idle()
    await session.close()
    assert [r["model"] for r in fake_api.requests] == [MODEL, "claude-haiku-5-5", MODEL]
    assert_all_requests_valid(fake_api)


async def test_headless_without_a_rule_refuses_and_names_the_domain_rule(
    fake_api: FakeAnthropic, web: WebServer, tmp_path: Path
) -> None:
    call = tool_use("w1", "WebFetch", {"url": web.url("/page"), "prompt": "q"})
    fake_api.responder = scripted(Reply([call], "tool_use"), Reply([text("ok")]))
    session, _ = session_for(fake_api, tmp_path, headless=True)
    session.submit(ops.SubmitPrompt("go"))
    await session.wait_idle()
    await session.close()
    assert web.hits["/page"] == 0
    result = fake_api.requests[-1]["messages"][2]["content"][0]
    assert result["is_error"] is True
    assert "WebFetch(domain:127.0.0.1)" in result["content"]
    assert_all_requests_valid(fake_api)


async def test_esc_during_a_fetch_stops_it_and_leaves_a_valid_history(
    fake_api: FakeAnthropic, web: WebServer, tmp_path: Path
) -> None:
    call = tool_use("w1", "WebFetch", {"url": web.url("/slow"), "prompt": "q"})
    fake_api.responder = scripted(Reply([call], "tool_use"), Reply([text("fine")]))
    session, events = session_for(fake_api, tmp_path, headless=True)
    session.config.policy.allow.append(Rule.parse("WebFetch(domain:127.0.0.1)"))
    session.submit(ops.SubmitPrompt("fetch the slow page"))
    await events.wait_for(ev.ToolCallRunning)
    await asyncio.to_thread(web.slow_started.wait, 10)
    session.submit(ops.Interrupt())
    await session.wait_idle()
    assert events.of(ev.TurnFinished)[-1].subtype == "interrupted"
    finished = events.of(ev.ToolCallFinished)[-1]
    assert finished.status == "interrupted" and finished.is_error
    assert len(fake_api.requests) == 1  # nothing sent on Esc
    session.submit(ops.SubmitPrompt("never mind"))
    await session.wait_idle()
    await session.close()
    assert_all_requests_valid(fake_api)
    last = fake_api.requests[-1]["messages"]
    assert last[2]["content"][0]["tool_use_id"] == "w1" and last[2]["content"][0]["is_error"]
