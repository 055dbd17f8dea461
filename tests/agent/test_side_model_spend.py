"""WebFetch's question to the small fast model is paid for like any response: its cost (the
price table's, for the small model's id) counts in the turn's and the session's spend as it
happens, so the budget B sees it, and a budget the side calls use up stops the turn at the
main model's next response (docs/loop.md: total >= B and the response asks for tools: stop,
without running them). Through the real loop, the SDK and the fake Messages API."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent import events as ev
from agent import ops
from agent.model.pricing import Usage, cost_usd
from agent.permissions.policy import Rule
from agent.session.side_model import DEFAULT_SMALL_FAST_MODEL
from agent.turn.outcome import Limits
from tests.agent.test_webfetch_session import MODEL, assert_all_requests_valid, session_for
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.tools.web_server import WebServer

SIDE_OUTPUT = 200_000
"""The small model's answer is priced as this many output tokens: $1.00 at Haiku 4.5's $5/M."""


@pytest.fixture
def web() -> Iterator[WebServer]:
    with WebServer() as server:
        yield server


@pytest.fixture(autouse=True)
def _small_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_SMALL_FAST_MODEL", raising=False)


def scripted(*main: Reply) -> Any:
    """Main-model replies in order; every small-model answer costs ``SIDE_OUTPUT`` tokens."""
    replies = list(main)

    def respond(body: dict[str, Any]) -> Reply:
        if body["model"] != MODEL:
            return Reply([text("The page says: spin(3).")], output_tokens=SIDE_OUTPUT)
        return replies.pop(0) if replies else Reply([text("(exhausted)")])

    return respond


def billed(fake: FakeAnthropic) -> list[float]:
    """What each request the fake API answered costs at list price, for its model."""
    return [
        cost_usd(body["model"], Usage(**usage))
        for body, usage in zip(fake.requests, fake.usage_log, strict=True)
    ]


def fetch(call_id: str, url: str) -> Reply:
    return Reply(
        [tool_use(call_id, "WebFetch", {"url": url, "prompt": "How to spin?"})], "tool_use"
    )


async def test_the_small_models_cost_is_in_the_turns_and_the_sessions_spend(
    fake_api: FakeAnthropic, web: WebServer, tmp_path: Path
) -> None:
    fake_api.responder = scripted(fetch("w1", web.url("/page")), Reply([text("Use spin(3).")]))
    session, events = session_for(fake_api, tmp_path)
    session.config.policy.allow.append(Rule.parse("WebFetch(domain:127.0.0.1)"))
    session.submit(ops.SubmitPrompt("read the docs"))
    await session.wait_idle()
    assert [r["model"] for r in fake_api.requests] == [MODEL, DEFAULT_SMALL_FAST_MODEL, MODEL]
    main1, side, main2 = billed(fake_api)
    assert side >= 1.0 > main1 + main2  # the side call is most of the spend here
    finished = events.of(ev.TurnFinished)[-1]
    assert finished.cost_usd == pytest.approx(main1 + side + main2)
    assert session.status().total_cost == pytest.approx(main1 + side + main2)
    # as it happens: the next response's running total already has it (the status line's)
    last = events.of(ev.UsageUpdated)[-1]
    assert last.total_cost_usd == pytest.approx(main1 + side + main2)
    await session.close()
    assert_all_requests_valid(fake_api)


async def test_a_budget_the_side_calls_use_up_stops_the_turn_before_more_tools(
    fake_api: FakeAnthropic, web: WebServer, tmp_path: Path
) -> None:
    fake_api.responder = scripted(
        fetch("w1", web.url("/page")), fetch("w2", web.url("/text")), Reply([text("done")])
    )
    session, events = session_for(fake_api, tmp_path, limits=Limits(None, 0.5))
    session.config.policy.allow.append(Rule.parse("WebFetch(domain:127.0.0.1)"))
    session.submit(ops.SubmitPrompt("read both pages"))
    await session.wait_idle()
    finished = events.of(ev.TurnFinished)[-1]
    assert finished.subtype == "error_max_budget_usd"
    # main (w1), the side call, main (w2): w2 was not run, so no second side call
    assert [r["model"] for r in fake_api.requests] == [MODEL, DEFAULT_SMALL_FAST_MODEL, MODEL]
    assert [c.call_id for c in events.of(ev.ToolCallFinished)] == ["w1"]
    spent = sum(billed(fake_api))
    assert finished.cost_usd == pytest.approx(spent) and spent >= 0.5
    await session.close()
    assert_all_requests_valid(fake_api)
