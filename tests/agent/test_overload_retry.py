"""Overload and 5xx answers are retried visibly, with backoff, for about a minute; Esc stops it.

Against the fake Messages API through the real SDK. No test sleeps: the model's ``sleep`` is
injected (it records each wait and returns at once, or waits on an event for the Esc test).
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from agent import events as ev
from agent import ops
from agent.messages import check_invariant, message_from_param
from agent.model.anthropic import AnthropicModel
from agent.model.retry import RetryPolicy
from agent.session.config import SessionConfig
from agent.session.core import Session
from tests.fakes.fake_api import FakeAnthropic, HttpError, Reply, text
from tests.helpers.events import Events

MODEL = "claude-sonnet-5-5"
NO_JITTER = RetryPolicy(jitter=0.0)


class Waits:
    """An injected sleep: records every wait and returns at once."""

    def __init__(self) -> None:
        self.seconds: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.seconds.append(seconds)


def session_for(
    fake: FakeAnthropic, tmp_path: Path, sleep, retry: RetryPolicy = NO_JITTER
) -> tuple[Session, Events]:
    model = AnthropicModel(MODEL, api_key="t", base_url=fake.base_url, retry=retry, sleep=sleep)
    events = Events()
    config = SessionConfig(workspace=tmp_path, model=MODEL, system="You help.")
    return Session(config, model, [], events), events


async def run(session: Session, prompt: str) -> None:
    session.submit(ops.SubmitPrompt(prompt))
    await session.wait_idle()


def notices(events: Events) -> list[str]:
    return [n.text for n in events.of(ev.Notice)]


def assert_all_requests_valid(fake: FakeAnthropic) -> None:
    assert fake.violations == []
    for body in fake.requests:
        check_invariant([message_from_param(m) for m in body["messages"]])


async def test_an_overloaded_api_is_retried_with_backoff_and_the_user_sees_each_wait(
    fake_api, tmp_path
) -> None:
    fake_api.push(*[HttpError(529)] * 3, Reply([text("made it")]))
    waits = Waits()
    session, events = session_for(fake_api, tmp_path, waits)
    await run(session, "hi")
    await session.close()
    finished = events.of(ev.TurnFinished)[-1]
    assert finished.subtype == "success" and finished.result == "made it"
    assert waits.seconds == [0.5, 1.0, 2.0]
    assert notices(events) == [
        "API overloaded, retrying (1/10) in 0.5 s (Esc stops)",
        "API overloaded, retrying (2/10) in 1 s (Esc stops)",
        "API overloaded, retrying (3/10) in 2 s (Esc stops)",
    ]
    assert len(fake_api.requests) == 4 and fake_api.requests[0] == fake_api.requests[-1]
    assert_all_requests_valid(fake_api)


async def test_the_whole_schedule_lasts_about_a_minute_and_then_says_it_retried(
    fake_api, tmp_path
) -> None:
    fake_api.push(*[HttpError(529)] * 11, Reply([text("back")]))
    waits = Waits()
    session, events = session_for(fake_api, tmp_path, waits)
    await run(session, "hi")
    assert len(waits.seconds) == 10 and 45 <= sum(waits.seconds) <= 75
    error = events.of(ev.Error)[-1]
    assert error.kind == "overloaded" and "retried 10 times" in error.message
    assert events.of(ev.TurnFinished)[-1].subtype == "error_during_execution"
    await run(session, "again")  # the history stayed valid: the next prompt works
    await session.close()
    assert events.of(ev.TurnFinished)[-1].subtype == "success"
    assert_all_requests_valid(fake_api)


async def test_retry_after_headers_are_honoured_up_to_a_cap(fake_api, tmp_path) -> None:
    fake_api.push(
        HttpError(529, headers={"retry-after": "3"}),
        HttpError(429, headers={"retry-after-ms": "1500"}),
        HttpError(503, headers={"retry-after": "3600"}),
        Reply([text("ok")]),
    )
    waits = Waits()
    session, events = session_for(fake_api, tmp_path, waits)
    await run(session, "hi")
    await session.close()
    assert waits.seconds == [3.0, 1.5, 30.0]  # an hour asked for: capped at 30 s
    assert notices(events) == [
        "API overloaded, retrying (1/10) in 3 s (Esc stops)",
        "API rate limit reached, retrying (2/10) in 2 s (Esc stops)",
        "API error 503, retrying (3/10) in 30 s (Esc stops)",
    ]
    assert events.of(ev.TurnFinished)[-1].subtype == "success"


async def test_a_request_error_or_a_server_saying_no_is_not_retried(fake_api, tmp_path) -> None:
    fake_api.push(
        HttpError(400, message="bad"),
        HttpError(500, headers={"x-should-retry": "false"}),
        Reply([text("fine")]),
    )
    waits = Waits()
    session, events = session_for(fake_api, tmp_path, waits)
    await run(session, "one")
    await run(session, "two")
    await session.close()
    assert waits.seconds == [] and notices(events) == []
    assert [e.kind for e in events.of(ev.Error)] == ["invalid_request", "api_error"]
    assert len(fake_api.requests) == 2


async def test_esc_stops_the_wait_at_once_and_the_history_stays_valid(fake_api, tmp_path) -> None:
    fake_api.push(HttpError(529), Reply([text("after esc")]))
    cancelled = asyncio.Event()

    async def wait_forever(_seconds: float) -> None:
        try:
            await asyncio.Event().wait()
        finally:
            cancelled.set()

    session, events = session_for(fake_api, tmp_path, wait_forever)
    session.submit(ops.SubmitPrompt("hi"))
    await events.wait_for(ev.Notice)
    session.submit(ops.Interrupt())
    await session.wait_idle()
    assert cancelled.is_set()
    assert events.of(ev.TurnFinished)[-1].subtype == "interrupted"
    assert len(fake_api.requests) == 1  # nothing more was sent
    await run(session, "go on")
    await session.close()
    assert events.of(ev.TurnFinished)[-1].subtype == "success"
    assert_all_requests_valid(fake_api)
    assert [b["text"] for b in fake_api.requests[-1]["messages"][-1]["content"]][-1] == "go on"


async def test_a_failure_after_the_body_began_is_not_retried(fake_api, tmp_path) -> None:
    fake_api.push(Reply([text("partial answer " * 20)], error_after=4), Reply([text("next")]))
    waits = Waits()
    session, events = session_for(fake_api, tmp_path, waits)
    await run(session, "hi")
    await session.close()
    assert waits.seconds == [] and len(fake_api.requests) == 1
    assert events.of(ev.Error)[-1].kind == "stream_error"


async def test_a_refused_connection_is_retried_only_twice(tmp_path) -> None:
    waits = Waits()
    model = AnthropicModel(
        MODEL, api_key="t", base_url="http://127.0.0.1:9", retry=NO_JITTER, sleep=waits
    )
    events = Events()
    session = Session(SessionConfig(workspace=tmp_path, model=MODEL), model, [], events)
    await run(session, "hi")
    await session.close()
    assert len(waits.seconds) == 2
    assert events.of(ev.Error)[-1].kind == "connection"
    assert notices(events)[0].startswith("Could not reach the API, retrying (1/2)")


async def test_a_read_timeout_before_the_response_headers_is_retried_like_an_overload(
    fake_api, tmp_path
) -> None:
    """The API takes the request and answers nothing, not even its headers (issue 34): the
    read timeout is retried with the same notice (and Esc), as earlier eddy did."""
    release = threading.Event()
    answered: list[int] = []

    def stall_once(body: dict) -> Reply:
        answered.append(1)
        if len(answered) == 1:
            release.wait(60)  # no headers until the test ends: the client times out
        return Reply([text("after the stall")])

    fake_api.responder = stall_once
    waits = Waits()
    model = AnthropicModel(
        MODEL, api_key="t", base_url=fake_api.base_url, retry=NO_JITTER, sleep=waits, timeout=2.0
    )
    events = Events()
    session = Session(SessionConfig(workspace=tmp_path, model=MODEL), model, [], events)
    try:
        await run(session, "hi")
    finally:
        release.set()
        await session.close()
    assert events.of(ev.TurnFinished)[-1].subtype == "success"
    assert events.of(ev.TurnFinished)[-1].result == "after the stall"
    assert notices(events)[0].startswith("The API did not answer in time, retrying (1/2)")
    assert len(waits.seconds) == 1 and len(fake_api.requests) == 2
    assert_all_requests_valid(fake_api)


async def test_a_stall_after_the_headers_is_not_retried(fake_api, tmp_path) -> None:
    fake_api.push(Reply([text("never")], stall_after=0), Reply([text("next")]))
    waits = Waits()
    model = AnthropicModel(
        MODEL, api_key="t", base_url=fake_api.base_url, retry=NO_JITTER, sleep=waits, timeout=1.0
    )
    events = Events()
    session = Session(SessionConfig(workspace=tmp_path, model=MODEL), model, [], events)
    await run(session, "hi")
    await session.close()
    assert waits.seconds == [] and len(fake_api.requests) == 1
    assert events.of(ev.Error)[-1].kind == "timeout"


async def test_a_prompt_too_long_error_suggests_compact(fake_api, tmp_path) -> None:
    fake_api.push(HttpError(400, message="prompt is too long: 1000123 tokens > 1000000 maximum"))
    waits = Waits()
    session, events = session_for(fake_api, tmp_path, waits)
    await run(session, "hi")
    await session.close()
    error = events.of(ev.Error)[-1]
    assert "/compact" in error.message and "prompt is too long" in error.message
    assert waits.seconds == []
