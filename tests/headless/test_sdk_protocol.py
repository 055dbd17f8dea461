"""The control protocol line by line (what the SDKs' APIs cannot send): every request gets
an answer, unknown ones an error naming them; raw prompts, images, queued prompts taken back,
withdrawn questions, stdin ending while eddy waits for an answer."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path
from typing import Any

from PIL import Image

from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.headless.sdk_process import SdkProcess, request, user


def png() -> str:
    buf = io.BytesIO()
    Image.new("RGB", (8, 8), (200, 10, 10)).save(buf, "PNG")
    return base64.b64encode(buf.getvalue()).decode()


def is_result(line: dict) -> bool:
    return line.get("type") == "result"


def test_an_unknown_request_gets_an_error_that_names_it(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    eddy = SdkProcess(fake_api, tmp_path)
    try:
        eddy.send(request("r1", "initialize", hooks=None))
        answer = eddy.response("r1")
        eddy.send(request("r2", "reload_plugins"))
        unknown = eddy.response("r2")
        eddy.send(request("r3", "set_permission_mode", mode="yolo"))
        bad_mode = eddy.response("r3")
        eddy.send(request("r4", "stop_task", task_id="nope"))
        no_task = eddy.response("r4")
        assert eddy.finish() == 0
    finally:
        eddy.kill()
    assert answer["subtype"] == "success"
    init = answer["response"]
    assert {"compact", "model"} <= {c["name"] for c in init["commands"]}
    assert {"general-purpose", "Explore"} <= {a["name"] for a in init["agents"]}
    assert "claude-sonnet-5-5" in [m["value"] for m in init["models"]]
    assert init["account"]["apiKeySource"] == "ANTHROPIC_API_KEY"
    assert init["hook_on_failure_supported"] is True
    assert unknown["subtype"] == "error" and "reload_plugins" in unknown["error"]
    assert bad_mode["subtype"] == "error" and "yolo" in bad_mode["error"]
    assert no_task["subtype"] == "error" and "nope" in no_task["error"]
    assert fake_api.requests == []


def answered_after(
    fake_api: FakeAnthropic, tmp_path: Path, lines: list[str]
) -> tuple[dict[str, Any], str, list[dict[str, Any]]]:
    """eddy fed the raw ``lines``, then a prompt answered "Hello.": the prompt's result,
    stderr, and every line eddy wrote."""
    fake_api.push(Reply([text("Hello.")]))
    eddy = SdkProcess(fake_api, tmp_path)
    try:
        for line in lines:
            eddy.send_raw(line)
        eddy.send(user([{"type": "text", "text": "hi"}]))
        result = eddy.until(is_result)
        assert eddy.finish() == 0
        stderr = eddy.stderr_text()
    finally:
        eddy.kill()
    return result, stderr, eddy.seen


def test_a_plain_stream_json_client_needs_no_initialize(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    result, stderr, seen = answered_after(fake_api, tmp_path, ["this line is not JSON"])
    assert result["subtype"] == "success" and result["result"] == "Hello."
    assert "not JSON" in stderr
    kinds = [line["type"] for line in seen]
    assert kinds[0] == "system" and kinds[-1] == "result"
    assert fake_api.violations == []


ODD_LINES = [
    '{"type": "user", "message": 5}',
    '{"type": "user", "message": "hi"}',
    '{"type": "user", "message": {"role": "user", "content": [{"type": "image", "source": 5}]}}',
    '{"type": "user", "message": {"role": "user", "content": [{"type": "image", "source": "x"}]}}',
    "[1, 2]",
    "null",
]


def test_lines_of_odd_shapes_are_each_ignored_and_the_session_goes_on(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    """Found by a throwaway fuzz of stdin: ``{"type": "user", "message": 5}`` ended eddy with
    a traceback (AttributeError), and an image block whose source is not an object too."""
    result, stderr, _ = answered_after(fake_api, tmp_path, ODD_LINES)
    assert result["subtype"] == "success" and result["result"] == "Hello.", result
    assert "Traceback" not in stderr and "could not be handled" not in stderr, stderr
    assert stderr.count("without a message object") == 2, stderr
    assert stderr.count("not a JSON object") == 2, stderr
    assert fake_api.violations == []
    assert len(fake_api.requests) == 1  # the odd images were no prompt of their own


def test_an_image_block_reaches_the_model_as_an_image(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    fake_api.push(Reply([text("A red square.")]))
    eddy = SdkProcess(fake_api, tmp_path)
    image = {"type": "base64", "media_type": "image/png", "data": png()}
    try:
        eddy.send(
            user([{"type": "text", "text": "what is this?"}, {"type": "image", "source": image}])
        )
        eddy.until(is_result)
        eddy.finish()
    finally:
        eddy.kill()
    [request_body] = fake_api.requests
    blocks = request_body["messages"][0]["content"]
    assert any(b["type"] == "image" for b in blocks)
    assert fake_api.violations == []


def test_a_queued_prompt_can_be_taken_back_and_a_withdrawn_question_is_cancelled(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    fake_api.push(
        Reply([tool_use("toolu_1", "Bash", {"command": "echo x > x.txt"})], "tool_use"),
        Reply([tool_use("toolu_2", "Bash", {"command": "echo y > y.txt"})], "tool_use"),
        Reply([text("Fine.")]),
    )
    eddy = SdkProcess(fake_api, tmp_path, "--permission-prompt-tool", "stdio")
    try:
        eddy.send(request("r1", "initialize"))
        eddy.response("r1")
        eddy.send(user("write x", uuid="first"))
        asked = eddy.until(lambda m: m.get("type") == "control_request")
        assert asked["request"]["subtype"] == "can_use_tool"
        assert asked["request"]["tool_name"] == "Bash"
        eddy.send(user("never mind this", uuid="second"))  # queued: the turn waits
        eddy.send(request("r2", "cancel_async_message", message_uuid="second"))
        assert eddy.response("r2")["response"] == {"cancelled": True}
        answer = {"behavior": "allow", "updatedInput": asked["request"]["input"]}
        eddy.send(
            {
                "type": "control_response",
                "response": {
                    "subtype": "success",
                    "request_id": asked["request_id"],
                    "response": answer,
                },
            }
        )
        second = eddy.until(lambda m: m.get("type") == "control_request")
        eddy.send(request("r3", "interrupt"))  # the question is withdrawn
        cancelled = eddy.until(lambda m: m.get("type") == "control_cancel_request")
        result = eddy.until(is_result)
        assert eddy.finish() == 0
    finally:
        eddy.kill()
    assert cancelled["request_id"] == second["request_id"]
    assert result["subtype"] == "error_during_execution"
    assert (tmp_path / "x.txt").exists() and not (tmp_path / "y.txt").exists()
    assert "never mind this" not in str(fake_api.requests)
    assert fake_api.violations == []


def test_stdin_ending_while_a_question_waits_refuses_the_call_and_exits(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    fake_api.push(
        Reply([tool_use("toolu_1", "Bash", {"command": "echo x > x.txt"})], "tool_use"),
        Reply([text("It was refused.")]),
    )
    eddy = SdkProcess(fake_api, tmp_path, "--permission-prompt-tool", "stdio")
    try:
        eddy.send(user("write x"))
        eddy.until(lambda m: m.get("type") == "control_request")
        assert eddy.finish() == 0  # stdin ends: nobody can answer
    finally:
        eddy.kill()
    [result] = [line for line in eddy.seen if is_result(line)]
    assert result["result"] == "It was refused."
    [refused] = fake_api.requests[1]["messages"][-1]["content"]
    assert refused["is_error"] is True
    assert not (tmp_path / "x.txt").exists()
    assert fake_api.violations == []


def test_no_input_at_all_exits_at_once_and_quietly(fake_api: FakeAnthropic, tmp_path: Path) -> None:
    eddy = SdkProcess(fake_api, tmp_path)
    try:
        assert eddy.finish() == 0
    finally:
        eddy.kill()
    assert eddy.seen == [] and fake_api.requests == []


def test_sigterm_stops_the_turn_saves_and_exits_though_stdin_stays_open(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    fake_api.push(Reply([tool_use("toolu_1", "Bash", {"command": "sleep 300"})], "tool_use"))
    settings = tmp_path / ".eddy" / "settings.json"
    settings.parent.mkdir()
    end = {"hooks": [{"type": "command", "command": "touch session-ended"}]}
    settings.write_text(json.dumps({"hooks": {"SessionEnd": [end]}}))
    eddy = SdkProcess(fake_api, tmp_path, "--allowedTools", "Bash(sleep:*)")
    try:
        eddy.send(user("wait"))
        eddy.until(lambda m: m.get("type") == "assistant")  # the sleep starts
        eddy.proc.terminate()
        result = eddy.until(is_result)
        code = eddy.proc.wait(timeout=60)
    finally:
        eddy.kill()
    assert code == 143
    assert (tmp_path / "session-ended").exists()  # closed the normal way, not cut off
    assert result["subtype"] == "error_during_execution"
    assert result["terminal_reason"] == "aborted_streaming"
    assert fake_api.violations == []


def test_the_connection_is_opened_while_the_program_prepares_its_first_prompt(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    """After ``initialize`` the SDK client is made and its connection opened (``HEAD
    /api/hello``, as Claude Code at start-up), so a ClaudeSDKClient's first query does not
    wait for either; the query then goes on that connection."""
    fake_api.push(Reply([text("Hello.")]))
    eddy = SdkProcess(fake_api, tmp_path)
    try:
        eddy.send(request("r1", "initialize"))
        assert eddy.response("r1")["subtype"] == "success"
        assert fake_api.probed.wait(60), "no probe"
        assert [path for path, _ in fake_api.probes] == ["/api/hello"]
        assert fake_api.requests == []  # ahead of any prompt
        eddy.send(user("hi"))
        assert eddy.until(is_result)["result"] == "Hello."
        assert eddy.finish() == 0
    finally:
        eddy.kill()
    assert fake_api.peers == [fake_api.probes[0][1]]  # the probe's connection, kept
