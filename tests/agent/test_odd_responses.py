"""Odd but real responses through the real SDK client and loop (issue 26): each one leaves a
valid history, never an invalid request, and a message that says what happened."""

from __future__ import annotations

import json

from agent import events as ev
from agent import ops
from tests.agent.test_model_faults import assert_all_requests_valid, run, session_for
from tests.fakes.fake_api import RawReply, Reply, text, tool_use
from tests.fakes.tools import FnTool


def echo() -> FnTool:
    return FnTool("Echo", lambda a, c: f"echo {a.get('x')}", read_only=True)


def sse(*events: dict) -> bytes:
    """A raw SSE body of ``events`` (each names its type)."""
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


START = {
    "type": "message_start",
    "message": {"id": "m", "type": "message", "role": "assistant", "content": [], "model": "x"},
}
STOP = (
    {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3}},
    {"type": "message_stop"},
)


def text_events(index: int, t: str) -> list[dict]:
    return [
        {
            "type": "content_block_start",
            "index": index,
            "content_block": {"type": "text", "text": ""},
        },
        {"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": t}},
        {"type": "content_block_stop", "index": index},
    ]


async def test_a_repeated_tool_use_id_is_not_run_twice_and_the_next_request_is_valid(
    fake_api, tmp_path
) -> None:
    tool = echo()
    fake_api.push(
        Reply([tool_use("t1", "Echo", {"x": 1}), tool_use("t1", "Echo", {"x": 2})], "tool_use"),
        Reply([text("done")]),
    )
    session, events = session_for(fake_api, tmp_path, [tool])
    await run(session, "go")
    await session.close()
    assert_all_requests_valid(fake_api)
    assert tool.calls == [{"x": 1}]
    sent = fake_api.requests[1]["messages"]
    assert [b["id"] for b in sent[1]["content"]] == ["t1", "t1_repeat2"]
    results = sent[2]["content"]
    assert [r["tool_use_id"] for r in results] == ["t1", "t1_repeat2"]
    assert results[1]["is_error"] is True and "repeated the id" in results[1]["content"]
    assert events.of(ev.TurnFinished)[-1].subtype == "success"


async def test_empty_and_blank_text_in_a_tool_turn_never_reach_the_api(fake_api, tmp_path) -> None:
    fake_api.push(
        Reply([text(""), text("\n\n"), tool_use("t1", "Echo", {})], "tool_use"),
        Reply([text("  "), text("done")]),
    )
    session, _ = session_for(fake_api, tmp_path, [echo()])
    await run(session, "go")
    await run(session, "again")
    await session.close()
    assert_all_requests_valid(fake_api)
    assert len(fake_api.requests) == 3
    assert [b["type"] for b in fake_api.requests[1]["messages"][1]["content"]] == ["tool_use"]


async def test_invalid_tool_json_is_an_error_result_and_the_model_retries_in_the_turn(
    fake_api, tmp_path
) -> None:
    tool = echo()
    bad = {"type": "tool_use", "id": "t1", "name": "Echo", "input": {}, "raw_input": '{"x": 1'}
    fake_api.push(
        Reply([bad], "tool_use"),
        Reply([tool_use("t2", "Echo", {"x": 1})], "tool_use"),
        Reply([text("done")]),
    )
    session, events = session_for(fake_api, tmp_path, [tool])
    await run(session, "go")
    await session.close()
    assert_all_requests_valid(fake_api)
    result = fake_api.requests[1]["messages"][2]["content"][0]
    assert result["is_error"] is True and "not valid JSON" in result["content"]
    assert tool.calls == [{"x": 1}]
    assert events.of(ev.TurnFinished)[-1].subtype == "success"
    assert not events.of(ev.Error)


async def test_a_tool_input_that_is_not_an_object_is_an_error_result_without_a_warning(
    fake_api, tmp_path, capfd
) -> None:
    bad = {"type": "tool_use", "id": "t1", "name": "Echo", "input": {}, "raw_input": "[1, 2]"}
    fake_api.push(Reply([bad], "tool_use"), Reply([text("done")]))
    session, events = session_for(fake_api, tmp_path, [echo()])
    await run(session, "go")
    await session.close()
    assert_all_requests_valid(fake_api)
    result = fake_api.requests[1]["messages"][2]["content"][0]
    assert "not a JSON object" in result["content"]
    assert "Warning" not in capfd.readouterr().err


async def test_a_body_that_is_not_sse_is_named_not_blamed_on_the_connection(
    fake_api, tmp_path
) -> None:
    fake_api.push(
        RawReply(b"<html>a proxy page</html>", content_type="text/html"), Reply([text("ok")])
    )
    session, events = session_for(fake_api, tmp_path)
    await run(session, "go")
    error = events.of(ev.Error)[-1]
    assert error.kind == "bad_response" and "text/html" in error.message
    assert "connection" not in error.message.lower()
    await run(session, "again")
    await session.close()
    assert events.of(ev.TurnFinished)[-1].subtype == "success"
    assert_all_requests_valid(fake_api)


async def test_bad_sse_json_and_an_sse_body_without_events_say_what_happened(
    fake_api, tmp_path
) -> None:
    fake_api.push(
        RawReply(sse(START) + b"event: content_block_start\ndata: {not json\n\n"),
        RawReply(b"data: {}\n\n"),
        Reply([text("ok")]),
    )
    session, events = session_for(fake_api, tmp_path)
    await run(session, "go")
    await run(session, "go on")
    first, second = events.of(ev.Error)
    assert first.kind == "bad_response" and "not valid JSON" in first.message
    assert second.kind == "bad_response" and "message_start" in second.message
    await run(session, "again")
    await session.close()
    assert events.of(ev.TurnFinished)[-1].subtype == "success"
    assert_all_requests_valid(fake_api)


async def test_a_message_start_without_usage_is_an_ordinary_answer(fake_api, tmp_path) -> None:
    fake_api.push(RawReply(sse(START, *text_events(0, "hello"), *STOP)))
    session, events = session_for(fake_api, tmp_path)
    await run(session, "go")
    await session.close()
    finished = events.of(ev.TurnFinished)[-1]
    assert finished.subtype == "success" and finished.result == "hello"


async def test_server_blocks_round_trip_byte_exact(fake_api, tmp_path) -> None:
    compaction_start = {"type": "compaction", "content": None}
    fake_api.push(
        RawReply(
            sse(
                START,
                {"type": "content_block_start", "index": 0, "content_block": compaction_start},
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {
                        "type": "compaction_delta",
                        "content": "the summary",
                        "encrypted_content": "enc==",
                    },
                },
                {"type": "content_block_stop", "index": 0},
                *text_events(1, "answer"),
                *STOP,
            )
        ),
        Reply([text("ok")]),
    )
    session, _ = session_for(fake_api, tmp_path)
    await run(session, "go")
    await run(session, "again")
    await session.close()
    assert_all_requests_valid(fake_api)
    sent = fake_api.requests[1]["messages"][1]["content"][0]
    assert sent == {"type": "compaction", "content": "the summary", "encrypted_content": "enc=="}


async def test_pause_turn_is_continued_and_no_server_call_is_left_without_its_result(
    fake_api, tmp_path
) -> None:
    call = {
        "type": "server_tool_use",
        "id": "srvtoolu_1",
        "name": "web_search",
        "input": {"query": "q"},
    }
    found = {
        "type": "web_search_tool_result",
        "tool_use_id": "srvtoolu_1",
        "content": [{"type": "web_search_result", "url": "https://example.com", "title": "E"}],
    }
    fake_api.push(
        Reply([call], "pause_turn"), Reply([found, text("found it")]), Reply([text("ok")])
    )
    session, events = session_for(fake_api, tmp_path)
    await run(session, "search")
    assert fake_api.requests[1]["messages"][-1]["content"] == [
        {**call, "cache_control": {"type": "ephemeral"}}
    ]
    await run(session, "thanks")
    await session.close()
    assert_all_requests_valid(fake_api)
    assert fake_api.requests[2]["messages"][1]["content"] == [call, found, text("found it")]
    assert events.of(ev.TurnFinished)[0].result == "found it"


async def test_unusual_stops_are_visible(fake_api, tmp_path) -> None:
    fake_api.push(
        Reply([text("so")], "model_context_window_exceeded"),
        Reply([text("hm")], "something_new"),
        Reply([text("cut"), tool_use("t1", "Echo", {})], "max_tokens"),
    )
    session, events = session_for(fake_api, tmp_path, [echo()])
    for prompt in ("a", "b", "c"):
        await run(session, prompt)
    await session.close()
    notices = [n.text for n in events.of(ev.Notice)]
    assert any("context window" in n for n in notices)
    assert any("something_new" in n for n in notices)
    last = events.of(ev.TurnFinished)[-1]
    assert (last.stop_reason, last.dropped_tool_calls) == ("max_tokens", 1)
    assert_all_requests_valid(fake_api)


async def test_esc_keeps_the_text_already_streamed(fake_api, tmp_path) -> None:
    fake_api.push(Reply([text("word " * 200)], delay=0.01), Reply([text("short")]))
    session, events = session_for(fake_api, tmp_path)
    session.submit(ops.SubmitPrompt("long answer please"))
    await events.wait_for(ev.TextDelta, 3)
    session.submit(ops.Interrupt())
    await session.wait_idle()
    seen = "".join(e.text for e in events.of(ev.TextDelta))
    await run(session, "shorter")
    await session.close()
    assert_all_requests_valid(fake_api)
    partial = fake_api.requests[-1]["messages"][1]
    assert partial["role"] == "assistant" and partial["content"][0]["text"] == seen


async def test_a_turn_paused_for_ever_stops_at_the_cap_with_a_valid_history(
    fake_api, tmp_path
) -> None:
    from agent.turn.outcome import MAX_PAUSE_CONTINUATIONS

    calls = iter(range(100))

    def paused(_body):
        n = next(calls)
        call = {"type": "server_tool_use", "id": f"srvtoolu_{n}", "name": "web_search", "input": {}}
        return Reply([text(f"step {n}"), call], "pause_turn")

    fake_api.responder = paused
    session, events = session_for(fake_api, tmp_path)
    await run(session, "search")
    assert len(fake_api.requests) == 1 + MAX_PAUSE_CONTINUATIONS
    assert any("paused the turn" in n.text for n in events.of(ev.Notice))
    fake_api.responder = lambda _body: Reply([text("ok")])
    await run(session, "and now?")
    await session.close()
    assert_all_requests_valid(fake_api)
    kept = fake_api.requests[-1]["messages"][1]["content"]
    assert all(b["type"] == "text" for b in kept)
