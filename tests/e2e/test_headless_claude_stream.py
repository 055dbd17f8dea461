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
