"""The fake Messages API, checked against the real anthropic SDK over real HTTP."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import anthropic
import pytest

from tests.fakes.fake_api import (
    FakeAnthropic,
    HttpError,
    Reply,
    prompt_tokens,
    text,
    thinking,
    tool_use,
    validate_request,
)
from tests.helpers.sdk import sdk_http

HTTP = sdk_http()

MODEL = "claude-sonnet-5-5"
Sdk = Callable[..., anthropic.AsyncAnthropic]
FAST_RETRY = {"retry-after-ms": "1"}  # 0 means "no advice": the SDK then backs off ~0.5 s


@pytest.fixture
async def sdk(fake_api: FakeAnthropic) -> AsyncIterator[Sdk]:
    """Makes real SDK clients for the fake (closed at teardown); no retries unless asked."""
    made: list[anthropic.AsyncAnthropic] = []

    def make(fake: FakeAnthropic | None = None, **kw: Any) -> anthropic.AsyncAnthropic:
        kw.setdefault("max_retries", 0)
        base = (fake or fake_api).base_url
        made.append(anthropic.AsyncAnthropic(base_url=base, api_key="test", **kw))
        return made[-1]

    yield make
    for c in made:
        await c.close()


async def stream(c: anthropic.AsyncAnthropic, messages: Any, **kw: Any) -> Any:
    kw.setdefault("max_tokens", 1000)
    async with c.messages.stream(model=MODEL, messages=messages, **kw) as s:
        events = [e async for e in s]
        final = await s.get_final_message()
    return final, events


def err(e: anthropic.APIStatusError) -> dict[str, Any]:
    """The ``error`` object of an API error body."""
    assert isinstance(e.body, dict)
    return e.body["error"]


USER: Any = [{"role": "user", "content": "hi"}]


def raw_post(url: str, body: Any, headers: dict[str, str] | None = None) -> tuple[int, dict]:
    req = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers=headers or {}, method="POST"
    )
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


# --- streaming ---------------------------------------------------------------------------------


async def test_streams_text_in_several_deltas(fake_api: FakeAnthropic, sdk: Sdk) -> None:
    said = "The quick brown fox jumps over the lazy dog, twice over."
    fake_api.push(Reply([text(said)]))
    final, events = await stream(sdk(), USER)
    assert final.content[0].text == said
    assert final.stop_reason == "end_turn"
    assert final.model == MODEL
    assert final.id.startswith("msg_")
    assert len([e for e in events if e.type == "text"]) >= 3
    assert fake_api.requests[0]["messages"] == USER
    assert fake_api.requests[0]["stream"] is True
    # 2.x sends the key as a bearer token, older SDKs as x-api-key: the fake takes both
    sent = fake_api.headers[0]
    assert sent.get("authorization") == "Bearer test" or sent.get("x-api-key") == "test"


async def test_tool_use_input_is_assembled_by_the_sdk(fake_api: FakeAnthropic, sdk: Sdk) -> None:
    args = {"path": "src/a.py", "lines": [1, 2, 3], "opts": {"deep": True, "note": "é ✓"}}
    fake_api.push(Reply([text("Reading."), tool_use("toolu_01", "Read", args)], "tool_use"))
    final, events = await stream(sdk(), USER)
    block = final.content[1]
    assert (block.type, block.id, block.name, block.input) == ("tool_use", "toolu_01", "Read", args)
    assert final.stop_reason == "tool_use"
    partial = [e for e in events if e.type == "input_json"]
    assert len(partial) >= 3  # "" first, then at least two fragments
    assert partial[0].partial_json == ""
    assert partial[-1].snapshot == args


async def test_empty_tool_input(fake_api: FakeAnthropic, sdk: Sdk) -> None:
    fake_api.push(Reply([tool_use("toolu_01", "Now", {})], "tool_use"))
    final, _ = await stream(sdk(), USER)
    assert final.content[0].input == {}


async def test_thinking_and_signature_round_trip(fake_api: FakeAnthropic, sdk: Sdk) -> None:
    fake_api.push(
        Reply([thinking("Let me think about this carefully.", "SIG-abc"), text("Answer.")]),
        Reply([text("ok")]),
    )
    c = sdk()
    final, events = await stream(c, USER)
    th = final.content[0]
    assert (th.type, th.thinking, th.signature) == (
        "thinking",
        "Let me think about this carefully.",
        "SIG-abc",
    )
    assert any(e.type == "thinking" for e in events)
    assistant = {
        "role": "assistant",
        "content": [b.model_dump(exclude_none=True) for b in final.content],
    }
    history = [*USER, assistant, {"role": "user", "content": "more"}]
    await stream(c, history)
    sent = fake_api.requests[1]["messages"][1]["content"][0]
    assert sent == {
        "type": "thinking",
        "thinking": "Let me think about this carefully.",
        "signature": "SIG-abc",
    }
    assert fake_api.violations == []


async def test_usage_numbers(fake_api: FakeAnthropic, sdk: Sdk) -> None:
    fake_api.push(Reply([text("hello")], output_tokens=42), Reply([text("x" * 400)]))
    c = sdk()
    final, _ = await stream(c, USER, system="You are terse.")
    total = prompt_tokens(fake_api.requests[0])
    assert final.usage.input_tokens == total > 0
    assert final.usage.cache_read_input_tokens == 0
    assert final.usage.cache_creation_input_tokens == 0
    assert final.usage.output_tokens == 42
    final2, _ = await stream(c, USER)
    assert final2.usage.output_tokens >= 100  # ~len(json)/4
    assert [u["output_tokens"] for u in fake_api.usage_log] == [42, final2.usage.output_tokens]
    counted = await c.messages.count_tokens(model=MODEL, messages=USER, system="You are terse.")
    assert counted.input_tokens == total


async def test_stream_without_message_stop_is_incomplete(fake_api: FakeAnthropic, sdk: Sdk) -> None:
    fake_api.push(Reply([text("half an answer")], stop_reason=None))
    final, _ = await stream(sdk(), USER)
    assert final.stop_reason is None
    assert final.content[0].text == "half an answer"


async def test_script_exhausted_default_and_responder(fake_api: FakeAnthropic, sdk: Sdk) -> None:
    c = sdk()
    final, _ = await stream(c, USER)
    assert final.content[0].text == "(script exhausted)"
    fake_api.default = Reply([text("default")])
    final, _ = await stream(c, USER)
    assert final.content[0].text == "default"
    fake_api.responder = lambda body: Reply([text(f"{len(body['messages'])} messages")])
    final, _ = await stream(c, USER)
    assert final.content[0].text == "1 messages"
    with pytest.raises(TypeError):
        fake_api.push(Reply([text("x")]))


async def test_non_streaming_create(fake_api: FakeAnthropic, sdk: Sdk) -> None:
    fake_api.push(Reply([text("plain")]))
    msg: Any = await sdk().messages.create(model=MODEL, max_tokens=100, messages=USER)
    assert msg.content[0].text == "plain"
    assert msg.usage.input_tokens == prompt_tokens(fake_api.requests[0])


# --- faults ------------------------------------------------------------------------------------


async def test_429_then_success_is_retried(fake_api: FakeAnthropic, sdk: Sdk) -> None:
    fake_api.push(HttpError(429, headers=FAST_RETRY), Reply([text("finally")]))
    final, _ = await stream(sdk(max_retries=2), USER)
    assert final.content[0].text == "finally"
    assert len(fake_api.requests) == 2
    assert [h["x-stainless-retry-count"] for h in fake_api.headers] == ["0", "1"]


async def test_529_after_retries_is_overloaded(fake_api: FakeAnthropic, sdk: Sdk) -> None:
    fake_api.push(*[HttpError(529, message="Overloaded", headers=FAST_RETRY)] * 3)
    with pytest.raises(anthropic.APIStatusError) as ei:
        await stream(sdk(max_retries=2), USER)
    overloaded = getattr(anthropic, "OverloadedError", anthropic.InternalServerError)  # < 2.0
    assert isinstance(ei.value, overloaded)
    assert ei.value.status_code == 529
    assert err(ei.value)["type"] == "overloaded_error"
    assert ei.value.request_id and ei.value.request_id.startswith("req_")
    assert len(fake_api.requests) == 3


async def test_should_retry_header_passes_through(fake_api: FakeAnthropic, sdk: Sdk) -> None:
    fake_api.push(HttpError(500, headers={"x-should-retry": "false"}), Reply([text("unused")]))
    with pytest.raises(anthropic.InternalServerError) as ei:
        await stream(sdk(max_retries=2), USER)
    assert err(ei.value)["type"] == "api_error"
    assert ei.value.response.headers["x-should-retry"] == "false"
    assert len(fake_api.requests) == 1


async def test_sse_error_mid_stream(fake_api: FakeAnthropic, sdk: Sdk) -> None:
    fake_api.push(Reply([text("one two three four five six seven")], error_after=4))
    seen: list[str] = []
    with pytest.raises(anthropic.APIStatusError) as ei:
        async with sdk(max_retries=2).messages.stream(
            model=MODEL, max_tokens=100, messages=USER
        ) as s:
            async for e in s:
                seen.append(e.type)
    assert ei.value.status_code == 200
    assert err(ei.value)["type"] == "overloaded_error"
    assert "text" in seen
    assert len(fake_api.requests) == 1  # mid-stream failures are not retried


async def test_cut_stream_raises(fake_api: FakeAnthropic, sdk: Sdk) -> None:
    fake_api.push(Reply([text("one two three four five six seven")], cut_after=4))
    with pytest.raises((HTTP.RemoteProtocolError, anthropic.APIConnectionError)):
        await stream(sdk(max_retries=2), USER)
    assert len(fake_api.requests) == 1


async def test_stall_times_out_and_stops_promptly(fake_api: FakeAnthropic, sdk: Sdk) -> None:
    fake_api.push(Reply([text("one two three four five six seven")], stall_after=3))
    t0 = time.monotonic()
    with pytest.raises((HTTP.TimeoutException, anthropic.APITimeoutError)):
        await stream(sdk(timeout=0.5), USER)
    assert time.monotonic() - t0 < 3
    t1 = time.monotonic()
    fake_api.stop()
    assert time.monotonic() - t1 < 1


async def test_stall_ends_when_server_stops(sdk: Sdk) -> None:
    fake = FakeAnthropic([Reply([text("a b c d e f")], stall_after=2)]).start()
    c = sdk(fake)
    task = asyncio.create_task(stream(c, USER))
    while not fake.usage_log:
        await asyncio.sleep(0.01)
    await asyncio.to_thread(fake.stop)
    with pytest.raises((HTTP.RemoteProtocolError, anthropic.APIConnectionError)):
        await asyncio.wait_for(task, 3)


async def test_cancel_mid_stream_then_next_request(fake_api: FakeAnthropic, sdk: Sdk) -> None:
    words = " ".join(f"w{i}" for i in range(60))
    fake_api.push(Reply([text(words)], delay=0.02), Reply([text("next")]))
    c = sdk()
    got = asyncio.Event()

    async def consume() -> None:
        async with c.messages.stream(model=MODEL, max_tokens=100, messages=USER) as s:
            async for e in s:
                if e.type == "text":
                    got.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(got.wait(), 3)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    final, _ = await stream(c, USER)
    assert final.content[0].text == "next"


async def test_http_errors_map_status_to_type(fake_api: FakeAnthropic, sdk: Sdk) -> None:
    for status, etype in [(400, "invalid_request_error"), (403, "permission_error"),
                          (404, "not_found_error"), (413, "request_too_large")]:  # fmt: skip
        fake_api.push(HttpError(status, message="nope"))
        with pytest.raises(anthropic.APIStatusError) as ei:
            await stream(sdk(), USER)
        assert ei.value.status_code == status
        assert err(ei.value) == {"type": etype, "message": "nope"}


def test_missing_credentials_get_401(fake_api: FakeAnthropic) -> None:
    body = {"model": MODEL, "max_tokens": 10, "messages": USER}
    status, err = raw_post(fake_api.base_url + "/v1/messages", body)
    assert status == 401
    assert err["error"]["type"] == "authentication_error"
    status, _ = raw_post(fake_api.base_url + "/v1/messages", body, {"x-api-key": "k"})
    assert status == 200
    assert len(fake_api.requests) == 2
    status, err = raw_post(fake_api.base_url + "/v1/nothing", body, {"x-api-key": "k"})
    assert (status, err["error"]["type"]) == (404, "not_found_error")


# --- validation --------------------------------------------------------------------------------


def tu(i: str) -> dict[str, Any]:
    return tool_use(i, "Read", {"path": "a"})


def tr(i: str) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": i, "content": "ok"}


def req(*messages: dict[str, Any], **kw: Any) -> dict[str, Any]:
    return {"model": MODEL, "max_tokens": 100, "messages": list(messages), **kw}


def u(*blocks: Any) -> dict[str, Any]:
    return {"role": "user", "content": list(blocks)}


def a(*blocks: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": list(blocks)}


async def test_p2_violation_gets_400_and_is_recorded(fake_api: FakeAnthropic, sdk: Sdk) -> None:
    history = [u(text("go")), a(tu("toolu_01")), u(text("never mind"))]
    with pytest.raises(anthropic.BadRequestError) as ei:
        await stream(sdk(max_retries=2), history)
    msg = err(ei.value)["message"]
    assert err(ei.value)["type"] == "invalid_request_error"
    assert msg == (
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: "
        "toolu_01. Each `tool_use` block must have a corresponding `tool_result` block in the "
        "next message."
    )
    assert fake_api.violations == [msg]
    assert len(fake_api.requests) == 1


async def test_five_cache_markers_get_400(fake_api: FakeAnthropic, sdk: Sdk) -> None:
    cc = {"cache_control": {"type": "ephemeral"}}
    history = [u(*[{**text(f"part {i}"), **cc} for i in range(5)])]
    with pytest.raises(anthropic.BadRequestError) as ei:
        await stream(sdk(), history)
    assert "A maximum of 4 blocks with cache_control" in err(ei.value)["message"]
    assert fake_api.violations
    fake_api.violations.clear()
    final, _ = await stream(sdk(), [u(*[{**text(f"p{i}"), **cc} for i in range(4)])])
    assert fake_api.violations == []


def test_validation_rules() -> None:
    ok = [
        req(u(text("go"))),
        req({"role": "user", "content": "string content"}),
        req(u(text("a")), u(text("consecutive users are accepted"))),
        req(u(text("go")), a(text("x")), a(tu("t1")), u(tr("t1"), text("after"))),
        req(u(text("go")), a(tu("t1"), tu("t2")), u(tr("t1"), tr("t2"), text("queued"))),
        req(u(text("go")), a(thinking("hm", "s"), tu("t1")), u(tr("t1"))),
    ]
    for body in ok:
        assert validate_request(body) == [], body

    def bad(body: dict[str, Any], needle: str) -> None:
        problems = validate_request(body)
        assert any(needle in p for p in problems), (needle, problems)

    bad(req(), "at least one message")
    bad(req(a(text("x"))), 'first message must use the "user" role')
    bad(req(u(text("go")), a(text("prefill"))), "must end with a user message")
    bad(req(u(text("go")), a(tu("t1"))), "`tool_use` ids were found without")
    bad(req(u(text("go")), a(tu("t1"), tu("t2")), u(tr("t1"))), "immediately after: t2")
    bad(req(u(text("go")), a(tu("t1"), tu("t2")), u(tr("t2"), tr("t1"))), "must come first")
    bad(req(u(text("go")), a(tu("t1")), u(text("x"), tr("t1"))), "must come first")
    bad(req(u(tr("t9"))), "messages.0.content.0: unexpected `tool_use_id`")
    bad(req(u(text("go")), a(tu("t1")), u(tr("t1"), tr("t1"))), "content.1: unexpected")
    bad(req(u(text("go")), a(text("x")), u(tr("t1"))), "unexpected `tool_use_id`")
    bad(req(u(text("a")), a(tu("t1")), u(tr("t1")), a(tu("t1")), u(tr("t1"))), "must be unique")
    bad(req(u()), "non-empty content")
    bad(req({"role": "user", "content": ""}), "non-empty content")
    bad(req(u(text(""))), "text content blocks must be non-empty")
    bad(req(u(text("  \n"))), "non-whitespace text")
    bad(
        req(u(text("go")), system=[text("")]),
        "system.0.text: text content blocks must be non-empty",
    )
    bad(req(u(text("go")), temperature=0.5), "`temperature`")
    bad(req(u(text("go")), top_p=0.5), "`top_p`")
    bad(req(u(text("go")), top_k=5), "`top_k`")
    bad({"messages": [u(text("go"))], "max_tokens": 5}, "model: Field required")
    bad({"messages": [u(text("go"))], "model": MODEL}, "max_tokens: Field required")
    bad(req(u(text("go")), a({"type": "thinking", "thinking": "x"}), u(text("y"))), "signature")
    bad(req(u(tu("t1")), a(text("x")), u(text("y"))), "only be in `assistant` messages")


# --- prompt caching ----------------------------------------------------------------------------


async def test_moving_breakpoint_session_reads_from_cache(
    fake_api: FakeAnthropic, sdk: Any
) -> None:
    cc = {"type": "ephemeral"}
    system = [
        {"type": "text", "text": "You are a careful coding agent. " * 500, "cache_control": cc}
    ]
    tools = [{"name": "Read", "description": "read a file", "input_schema": {"type": "object"}}]
    fake_api.responder = lambda body: Reply(
        [tool_use(f"toolu_{len(body['messages'])}", "Read", {"path": "a.py"})], "tool_use"
    )
    c = sdk()
    history: list[dict[str, Any]] = [u(text("fix the bug in a.py"))]
    reads = totals = 0
    for _ in range(20):
        # The moving breakpoint: only the newest message's last block carries the marker.
        sent = [
            {
                **m,
                "content": [
                    {k: v for k, v in b.items() if k != "cache_control"} for b in m["content"]
                ],
            }
            for m in history
        ]
        sent[-1]["content"][-1]["cache_control"] = cc
        final, _ = await stream(c, sent, system=system, tools=tools)
        use = final.usage
        total = use.input_tokens + use.cache_creation_input_tokens + use.cache_read_input_tokens
        assert total == prompt_tokens(fake_api.requests[-1])
        reads += use.cache_read_input_tokens
        totals += total
        call = final.content[0]
        history.append(a(tool_use(call.id, call.name, call.input)))
        history.append(
            u({"type": "tool_result", "tool_use_id": call.id, "content": "x = 1\n" * 40})
        )
    assert fake_api.violations == []
    assert fake_api.usage_log[0]["cache_read_input_tokens"] == 0
    assert fake_api.usage_log[0]["cache_creation_input_tokens"] > 2000
    assert all(x["cache_read_input_tokens"] > 0 for x in fake_api.usage_log[1:])
    assert reads / totals >= 0.9


def test_cache_accounting_rules() -> None:
    fake = FakeAnthropic()
    cc = {"type": "ephemeral"}
    small = req(u({**text("short prompt"), "cache_control": cc}))
    assert fake.cache.usage(small) == {
        "input_tokens": prompt_tokens(small),
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }
    big = "word " * 1000
    base = req(u({**text(big), "cache_control": cc}), system="static")
    first = fake.cache.usage(base)
    assert first["cache_read_input_tokens"] == 0
    assert first["cache_creation_input_tokens"] == prompt_tokens(base)
    again = fake.cache.usage(base)
    assert again["cache_read_input_tokens"] == prompt_tokens(base)
    # The marker itself does not change the bytes; a changed earlier byte is a full miss.
    moved = req(u(text(big), {**text("more"), "cache_control": cc}), system="static")
    hit = fake.cache.usage(moved)
    assert hit["cache_read_input_tokens"] == prompt_tokens(base)
    assert sum(hit.values()) == prompt_tokens(moved)
    changed = req(u({**text(big + "!"), "cache_control": cc}), system="static")
    assert fake.cache.usage(changed)["cache_read_input_tokens"] == 0
    # Another model does not share the cache.
    assert fake.cache.usage({**base, "model": "claude-opus-5"})["cache_read_input_tokens"] == 0
    # A breakpoint looks back at most 20 blocks for an earlier write.
    far = req(
        u(text(big), *[text(f"b{i}") for i in range(24)], {**text("end"), "cache_control": cc})
    )
    near = req(
        u(text(big), *[text(f"b{i}") for i in range(3)], {**text("end"), "cache_control": cc})
    )
    fake.cache.usage(req(u({**text(big), "cache_control": cc})))
    assert fake.cache.usage(far)["cache_read_input_tokens"] == 0
    assert fake.cache.usage(near)["cache_read_input_tokens"] > 0
    # No breakpoint: nothing is read or written.
    plain = req(u(text(big)), system="static")
    assert fake.cache.usage(plain)["input_tokens"] == prompt_tokens(plain)


# --- the command line ----------------------------------------------------------------------------


def test_cli_serves_a_script_and_logs(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    log = tmp_path / "log.jsonl"
    script.write_text(
        json.dumps(
            [
                {"content": [{"type": "text", "text": "from the cli"}], "stop_reason": "end_turn"},
                {"status": 529, "message": "busy"},
            ]
        )
    )
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.fakes.fake_api", "--port", "0", "--script", str(script),
         "--log", str(log)],
        cwd=root, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        hdr = {"x-api-key": "k", "content-type": "application/json"}
        status, msg = raw_post(url + "/v1/messages", req(u(text("hi"))), hdr)
        assert (status, msg["content"][0]["text"]) == (200, "from the cli")
        status, err = raw_post(url + "/v1/messages", req(u(text("again"))), hdr)
        assert (status, err["error"]["type"]) == (529, "overloaded_error")
    finally:
        proc.terminate()
        proc.wait(timeout=5)
        if proc.stdout is not None:
            proc.stdout.close()
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    assert [m["messages"][0]["content"][0]["text"] for m in lines] == ["hi", "again"]


def test_validation_of_thinking_cache_control_and_paused_turns() -> None:
    call = {"type": "server_tool_use", "id": "srv1", "name": "web_search", "input": {}}
    found = {"type": "web_search_tool_result", "tool_use_id": "srv1", "content": []}
    # a paused response sent back last is the one assistant message a request may end with
    assert validate_request(req(u(text("go")), a(call))) == []
    assert validate_request(req(u(text("go")), a(call, found, text("x")), u(text("more")))) == []
    marked = {**thinking("hm", "s"), "cache_control": {"type": "ephemeral"}}
    for body, needle in [
        (req(u(text("go")), a(marked, text("x")), u(text("y"))), "cache_control"),
        (req(u(text("go")), a(call), u(text("y"))), "must be followed by their results"),
        (req(u(text("go")), a(text("x"), call, found), a(text("prefill"))), "end with a user"),
    ]:
        assert any(needle in p for p in validate_request(body)), (needle, body)
