"""AnthropicModel over the real SDK against the fake server: streaming, caching, faults, Esc.

Each fault must end the turn with a clear error, leave a valid resumable history, and the
next prompt must work. Every request the server received must pass the invariant.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent import events as ev
from agent import ops
from agent.messages import ThinkingBlock, check_invariant, message_from_param
from agent.model.anthropic import AnthropicModel, warm_up
from agent.session.config import SessionConfig
from agent.session.core import Session
from tests.fakes.fake_api import FakeAnthropic, HttpError, Reply, text, thinking, tool_use
from tests.fakes.tools import FnTool
from tests.helpers.events import Events

FAST_RETRY = {"retry-after-ms": "1"}


def session_for(fake: FakeAnthropic, tmp_path: Path, tools=(), timeout: float = 20.0):
    model = AnthropicModel(
        "claude-sonnet-5-5", api_key="test", base_url=fake.base_url, timeout=timeout
    )
    events = Events()
    config = SessionConfig(workspace=tmp_path, model="claude-sonnet-5-5", system="You help.")
    config.policy.mode = "bypassPermissions"
    return Session(config, model, list(tools), events), events


async def run(session: Session, prompt: str) -> None:
    session.submit(ops.SubmitPrompt(prompt))
    await session.wait_idle()


def assert_all_requests_valid(fake: FakeAnthropic) -> None:
    assert fake.violations == []
    for body in fake.requests:
        check_invariant([message_from_param(m) for m in body["messages"]])


async def test_streams_text_and_tools_with_cache_breakpoints(fake_api, tmp_path) -> None:
    fake_api.push(
        Reply([text("Looking."), tool_use("toolu_1", "Echo", {"x": 1})], stop_reason="tool_use"),
        Reply([text("All done.")]),
    )
    tool = FnTool("Echo", lambda a, c: f"echo {a['x']}", read_only=True)
    session, events = session_for(fake_api, tmp_path, [tool])
    await run(session, "hi")
    await session.close()
    finished = events.of(ev.TurnFinished)[-1]
    assert finished.subtype == "success" and finished.result == "All done."
    assert "".join(e.text for e in events.of(ev.TextDelta)) == "Looking.All done."
    assert tool.calls == [{"x": 1}]
    assert finished.total_cost_usd > 0
    assert_all_requests_valid(fake_api)
    for body in fake_api.requests:
        assert body["system"][-1]["cache_control"] == {"type": "ephemeral"}
        assert body["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}
        markers = sum("cache_control" in b for m in body["messages"] for b in m["content"]) + sum(
            "cache_control" in b for b in body["system"]
        )
        assert markers == 2
    # earlier blocks were sent without markers: their bytes never change between requests
    first, second = fake_api.requests
    assert "cache_control" not in second["messages"][0]["content"][0]


async def test_thinking_is_sent_back_unchanged(fake_api, tmp_path) -> None:
    fake_api.push(
        Reply([thinking("let me see", "c2ln"), tool_use("toolu_1", "Echo", {"x": 2})], "tool_use"),
        Reply([text("ok")]),
    )
    session, _ = session_for(fake_api, tmp_path, [FnTool("Echo", lambda a, c: "e", read_only=True)])
    await run(session, "think")
    await session.close()
    sent = fake_api.requests[1]["messages"][1]["content"][0]
    assert sent == {"type": "thinking", "thinking": "let me see", "signature": "c2ln"}
    assert isinstance(session.history[1].content[0], ThinkingBlock)


async def test_429_then_success_is_retried(fake_api, tmp_path) -> None:
    fake_api.push(HttpError(429, headers=FAST_RETRY), Reply([text("fine")]))
    session, events = session_for(fake_api, tmp_path)
    await run(session, "hi")
    await session.close()
    assert events.of(ev.TurnFinished)[-1].subtype == "success"
    assert len(fake_api.requests) == 2


async def test_529_past_every_retry_is_a_clear_error_and_next_prompt_works(
    fake_api, tmp_path
) -> None:
    fake_api.push(*[HttpError(529, headers=FAST_RETRY)] * 11, Reply([text("back")]))
    session, events = session_for(fake_api, tmp_path)
    await run(session, "hi")
    finished = events.of(ev.TurnFinished)[-1]
    assert finished.subtype == "error_during_execution"
    error = events.of(ev.Error)[-1]
    assert error.kind == "overloaded" and "overloaded" in error.message.lower()
    assert "Traceback" not in error.message
    await run(session, "again")
    await session.close()
    assert events.of(ev.TurnFinished)[-1].subtype == "success"
    assert_all_requests_valid(fake_api)
    assert [b["text"] for b in fake_api.requests[-1]["messages"][0]["content"]] == ["hi", "again"]


@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        (Reply([text("partial answer " * 20)], error_after=4), "stream_error"),
        (
            Reply([text("partial answer " * 20), tool_use("t", "Echo", {})], cut_after=4),
            "connection",
        ),
        (Reply([text("partial answer " * 20)], stall_after=4), "timeout"),
        (
            Reply([text("never finished"), tool_use("t", "Echo", {})], stop_reason=None),
            "stream_error",
        ),
    ],
    ids=["sse-error", "cut", "stall", "no-message-stop"],
)
async def test_mid_stream_faults(fake_api, tmp_path, reply, kind) -> None:
    tool = FnTool("Echo", lambda a, c: "ran", read_only=True)
    fake_api.push(reply, Reply([text("recovered")]))
    session, events = session_for(fake_api, tmp_path, [tool], timeout=1.0)
    await run(session, "go")
    assert events.of(ev.TurnFinished)[-1].subtype == "error_during_execution"
    assert events.of(ev.Error)[-1].kind == kind
    assert tool.calls == []  # a cut response's tool call is never executed
    await run(session, "retry")
    await session.close()
    assert events.of(ev.TurnFinished)[-1].subtype == "success"
    assert_all_requests_valid(fake_api)


async def test_interrupt_mid_stream_then_next_prompt(fake_api, tmp_path) -> None:
    fake_api.push(Reply([text("word " * 200)], delay=0.01), Reply([text("short")]))
    session, events = session_for(fake_api, tmp_path)
    session.submit(ops.SubmitPrompt("long answer please"))
    await events.wait_for(ev.TextDelta)
    session.submit(ops.Interrupt())
    await session.wait_idle()
    assert events.of(ev.TurnFinished)[-1].subtype == "interrupted"
    assert len(fake_api.requests) == 1
    await run(session, "shorter")
    await session.close()
    assert_all_requests_valid(fake_api)
    last = fake_api.requests[-1]["messages"]
    assert last[-1]["content"][-1]["text"] == "shorter"


async def test_interrupt_mid_tool_then_next_prompt(fake_api, tmp_path) -> None:
    hang = asyncio.Event()

    async def slow(args, ctx):
        await hang.wait()
        return "never"

    fake_api.push(Reply([tool_use("toolu_1", "Slow", {})], "tool_use"), Reply([text("understood")]))
    session, events = session_for(fake_api, tmp_path, [FnTool("Slow", slow)])
    session.submit(ops.SubmitPrompt("go"))
    await events.wait_for(ev.ToolCallRunning)
    session.submit(ops.Interrupt())
    await session.wait_idle()
    await run(session, "stop that")
    await session.close()
    assert_all_requests_valid(fake_api)
    content = fake_api.requests[-1]["messages"][-1]["content"]
    assert content[0]["type"] == "tool_result" and content[0]["is_error"] is True
    assert content[-1]["text"] == "stop that"


@pytest.mark.slow
async def test_a_prompt_after_a_pause_uses_the_same_connection(fake_api, tmp_path) -> None:
    """The SDK's default kept an idle connection 5 s: a prompt typed after reading an answer
    connected again (a TCP and TLS handshake more, against the real API). Claude Code keeps
    it; so does eddy now (KEEP_ALIVE_S), and a connection the server closed is not reused."""
    fake_api.push(Reply([text("one")]), Reply([text("two")]), Reply([text("three")]))
    session, _events = session_for(fake_api, tmp_path)
    await run(session, "first")
    await asyncio.sleep(5.5)  # past the SDK's 5 s: the clock the pool expires connections by
    await run(session, "second")
    assert len(fake_api.requests) == 2 and fake_api.peers[0] == fake_api.peers[1]
    fake_api.close_connections()  # the server closes its side while idle
    await run(session, "third")
    assert len(fake_api.requests) == 3 and fake_api.peers[2] != fake_api.peers[1]
    assert [m.role for m in session.history][-1] == "assistant"
    assert_all_requests_valid(fake_api)


async def test_no_connection_is_opened_ahead_once_a_request_went_out(
    fake_api, tmp_path, monkeypatch
) -> None:
    """The probe that opens the connection ahead of the first prompt (``warm_up``) is moot
    once a request has gone out (it opened its own): a warm-up that ends after an SDK's
    ``query()`` arrived sends none. Before any request it does send one."""
    monkeypatch.delenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", raising=False)
    fake_api.push(Reply([text("Hi.")]))
    session, _events = session_for(fake_api, tmp_path)
    await run(session, "hi")
    await warm_up(session.model)
    assert fake_api.probes == [] and len(fake_api.peers) == 1
    fresh = AnthropicModel("claude-sonnet-5-5", api_key="test", base_url=fake_api.base_url)
    await warm_up(fresh)
    await fresh.aclose()
    assert [path for path, _ in fake_api.probes] == ["/api/hello"]


async def test_the_first_request_waits_for_no_thread(fake_api, tmp_path, monkeypatch) -> None:
    """The SDK asks what the machine is (``uname -p`` in a subprocess, /etc/os-release) at its
    client's first request, in a worker thread: the request waited for it, and the loop ran
    what was ready meanwhile (in the TUI, the prompt's frame went out before the request).
    eddy asks it where it makes the client, ahead of the first prompt, and hands the answer
    to the client: the first request hops to no thread, and still says what the OS is."""
    from anthropic import _base_client

    asked: list[str] = []
    real = _base_client.get_platform

    def get_platform() -> object:
        asked.append("platform")
        return real()

    monkeypatch.setattr(_base_client, "get_platform", get_platform)
    fake_api.push(Reply([text("Hi.")]))
    session, _events = session_for(fake_api, tmp_path)
    session.model.client()
    assert asked == ["platform"]
    hops: list[object] = []
    to_thread = asyncio.to_thread

    async def spy(func, /, *args, **kwargs):
        hops.append(func)
        return await to_thread(func, *args, **kwargs)

    monkeypatch.setattr(asyncio, "to_thread", spy)
    await run(session, "hi")
    assert [m.role for m in session.history] == ["user", "assistant"]
    assert hops == [] and asked == ["platform"]
    assert fake_api.headers[0].get("x-stainless-os") == str(real())
