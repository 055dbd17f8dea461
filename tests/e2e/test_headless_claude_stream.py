"""``eddy -p --output-format stream-json`` prints Claude Code's messages (issue 25), so a script
written for ``claude -p --output-format stream-json --verbose`` reads eddy's output: a
``system`` init line first, then ``assistant`` and ``user`` messages in the API's shapes, the
``result`` last."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.helpers.headless import eddy


def script() -> list[Reply]:
    return [
        Reply(
            [
                text("Listing, then a refused one."),
                tool_use("toolu_1", "Bash", {"command": "echo hello-from-bash"}),
                tool_use("toolu_2", "Bash", {"command": "touch pwned"}),
            ],
            "tool_use",
        ),
        Reply([text("Done: it printed hello.")]),
    ]


def test_stream_json_is_claude_codes_message_format(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    fake_api.push(*script())
    out = eddy(
        fake_api,
        tmp_path,
        "-p",
        "say hello",
        "--output-format",
        "stream-json",
        "--verbose",  # what scripts for claude -p pass; accepted
        "--allowed-tools",
        "Bash(echo:*)",
    )
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert [line["type"] for line in lines] == [
        "system",
        "assistant",
        "user",
        "user",
        "assistant",
        "result",
    ]
    init, first, ran, refused, final, result = lines
    sid = result["session_id"]
    assert init["subtype"] == "init" and init["session_id"] == sid
    assert init["model"] == "claude-sonnet-5-5" and init["cwd"] == str(tmp_path.resolve())
    assert {"Bash", "Read", "Edit"} <= set(init["tools"])
    assert init["permissionMode"] == "default"
    for line in (first, ran, refused, final):
        assert line["session_id"] == sid and line["parent_tool_use_id"] is None and line["uuid"]
    message = first["message"]
    assert message["role"] == "assistant" and message["type"] == "message"
    assert message["stop_reason"] == "tool_use" and message["usage"]["output_tokens"] > 0
    assert [b["type"] for b in message["content"]] == ["text", "tool_use", "tool_use"]
    assert message["content"][1] == {
        "type": "tool_use",
        "id": "toolu_1",
        "name": "Bash",
        "input": {"command": "echo hello-from-bash"},
    }
    [ran_block] = ran["message"]["content"]
    assert ran["message"]["role"] == "user"
    assert ran_block["type"] == "tool_result" and ran_block["tool_use_id"] == "toolu_1"
    assert not ran_block["is_error"] and "hello-from-bash" in json.dumps(ran_block["content"])
    [refused_block] = refused["message"]["content"]
    assert refused_block["tool_use_id"] == "toolu_2" and refused_block["is_error"] is True
    assert final["message"]["content"] == [{"type": "text", "text": "Done: it printed hello."}]
    assert final["message"]["stop_reason"] == "end_turn"
    assert result["subtype"] == "success" and result["is_error"] is False
    assert result["result"] == "Done: it printed hello." and result["num_turns"] == 1
    assert result["total_cost_usd"] > 0 and result["uuid"]
    assert result["permission_denials"] == [
        {"tool_name": "Bash", "tool_use_id": "toolu_2", "tool_input": {"command": "touch pwned"}}
    ]
    assert not (tmp_path / "pwned").exists()


def test_eddy_events_prints_every_engine_event(fake_api: FakeAnthropic, tmp_path: Path) -> None:
    fake_api.push(Reply([text("Hi.")]))
    out = eddy(fake_api, tmp_path, "-p", "hello", "--output-format", "eddy-events")
    assert out.returncode == 0, out.stderr
    types = [json.loads(line)["type"] for line in out.stdout.splitlines()]
    assert types[0] == "turn_started" and types[-1] == "result"
    assert "text_delta" in types and "usage_updated" in types and "turn_finished" in types


def test_stream_json_says_an_api_error_on_stderr_and_in_the_result(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    from tests.fakes.fake_api import HttpError

    fake_api.push(HttpError(401, message="invalid x-api-key"))
    out = eddy(fake_api, tmp_path, "-p", "hi", "--output-format", "stream-json")
    assert out.returncode == 1
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert [line["type"] for line in lines] == ["system", "result"]
    assert lines[-1]["is_error"] is True and lines[-1]["subtype"] == "error_during_execution"
    assert "eddy:" in out.stderr and "Traceback" not in out.stderr


def test_partial_messages_are_the_raw_api_stream_events_before_each_message(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    first, second = script()
    first.delay = second.delay = 0.02  # a lower bound for the time spent in model calls
    fake_api.push(first, second)
    out = eddy(
        fake_api,
        tmp_path,
        "-p",
        "say hello",
        "--output-format",
        "stream-json",
        "--verbose",
        "--include-partial-messages",
        "--allowed-tools",
        "Bash(echo:*)",
        timeout=90,
    )
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    kinds = [line["type"] for line in lines]
    assert kinds[0] == "system" and kinds[-1] == "result"
    result = lines[-1]
    sid = result["session_id"]
    # each model call's stream events come whole, before the assistant line they make
    assistant_at = [i for i, k in enumerate(kinds) if k == "assistant"]
    assert len(assistant_at) == 2
    calls = [lines[1 : assistant_at[0]], lines[assistant_at[0] + 3 : assistant_at[1]]]
    assert kinds[assistant_at[0] + 1 : assistant_at[0] + 3] == ["user", "user"]
    for call in calls:
        assert call and all(line["type"] == "stream_event" for line in call)
        assert all(
            line["session_id"] == sid and line["parent_tool_use_id"] is None and line["uuid"]
            for line in call
        )
        events = [line["event"] for line in call]
        assert events[0]["type"] == "message_start" and events[-1]["type"] == "message_stop"
        assert events[-2]["type"] == "message_delta"
        assert "ping" not in {e["type"] for e in events}
    events = [line["event"] for line in calls[0]]
    starts = [e["content_block"] for e in events if e["type"] == "content_block_start"]
    assert [b["type"] for b in starts] == ["text", "tool_use", "tool_use"]
    assert starts[1]["id"] == "toolu_1" and starts[1]["name"] == "Bash"

    def deltas(index: int, key: str) -> str:
        return "".join(
            e["delta"][key]
            for e in events
            if e["type"] == "content_block_delta" and e["index"] == index
        )

    assert deltas(0, "text") == "Listing, then a refused one."
    assert json.loads(deltas(1, "partial_json")) == {"command": "echo hello-from-bash"}
    assert events[-2]["delta"]["stop_reason"] == "tool_use"
    final_text = "".join(
        line["event"]["delta"]["text"]
        for line in calls[1]
        if line["event"]["type"] == "content_block_delta"
    )
    assert final_text == "Done: it printed hello."
    # the time in model calls: at least the fake's delays, at most the whole run
    n_events = len(calls[0]) + len(calls[1])
    assert n_events * 20 <= result["duration_api_ms"] <= result["duration_ms"]


def test_the_result_says_the_time_spent_in_model_calls(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    fake_api.push(Reply([text("Hi there.")], delay=0.02), Reply([text("Hi again.")]))
    out = eddy(fake_api, tmp_path, "-p", "hello", "--output-format", "json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert 4 * 20 <= result["duration_api_ms"] <= result["duration_ms"]
    plain = eddy(fake_api, tmp_path, "-p", "hello", "--output-format", "stream-json")
    assert plain.returncode == 0, plain.stderr
    kinds = [json.loads(line)["type"] for line in plain.stdout.splitlines()]
    assert kinds == ["system", "assistant", "result"]  # stream events only when asked for


def test_partial_messages_need_stream_json(fake_api: FakeAnthropic, tmp_path: Path) -> None:
    out = eddy(fake_api, tmp_path, "-p", "hi", "--include-partial-messages")
    assert out.returncode == 2
    assert "--include-partial-messages needs" in out.stderr and "Traceback" not in out.stderr
    assert fake_api.requests == []
