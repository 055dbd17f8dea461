"""``ClaudeSDKClient`` keeps one eddy session open: several prompts, a prompt while a turn runs,
``interrupt()``, the mode and the model, MCP status, context usage, rewinding files, resume and
fork."""

from __future__ import annotations

import asyncio
import json
import sys
import uuid
from pathlib import Path
from typing import Any

from tests.agent.mcp.servers import FAKE as FAKE_MCP
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.sdk.conftest import Driver, of, sdk


async def response(client: Any) -> list[Any]:
    return [m async for m in client.receive_response()]


def texts(message: dict[str, Any]) -> list[str]:
    content = message["content"]
    if isinstance(content, str):
        return [content]
    return [b["text"] for b in content if b.get("type") == "text"]


async def test_several_prompts_share_one_conversation(
    driver: Driver, fake_api: FakeAnthropic
) -> None:
    fake_api.push(Reply([text("First answer.")]), Reply([text("Second answer.")]))
    async with sdk.ClaudeSDKClient(driver.options()) as client:
        await client.query("first question")
        first = await response(client)
        await client.query("second question")
        second = await response(client)
    assert of(first, sdk.ResultMessage)[0].result == "First answer."
    assert of(second, sdk.ResultMessage)[0].result == "Second answer."
    assert of(first, sdk.SystemMessage)[0].subtype == "init"  # each turn starts with one
    assert of(second, sdk.SystemMessage)[0].subtype == "init"
    last = fake_api.requests[-1]["messages"]
    assert [m["role"] for m in last] == ["user", "assistant", "user"]
    assert "first question" in texts(last[0]) and "second question" in texts(last[2])


async def test_a_prompt_sent_while_a_turn_runs_reaches_the_model_after_the_tool_results(
    driver: Driver, fake_api: FakeAnthropic, workspace: Path
) -> None:
    fake_api.push(
        Reply([tool_use("toolu_1", "Bash", {"command": "echo hi > out.txt"})], "tool_use"),
        Reply([text("Done, and noted.")]),
    )
    holder: dict[str, Any] = {}

    async def can_use_tool(name: str, args: dict[str, Any], context: Any) -> Any:
        # the turn waits for this answer: the prompt sent now arrives while it runs
        await holder["client"].query("also: be brief")
        return sdk.PermissionResultAllow()

    async with sdk.ClaudeSDKClient(driver.options(can_use_tool=can_use_tool)) as client:
        holder["client"] = client
        await client.query("write hi")
        messages = await response(client)
    [result] = of(messages, sdk.ResultMessage)
    assert result.subtype == "success" and result.result == "Done, and noted."
    last_user = fake_api.requests[-1]["messages"][-1]
    kinds = [b["type"] for b in last_user["content"]]
    assert kinds[0] == "tool_result" and "also: be brief" in texts(last_user)
    assert len(fake_api.requests) == 2


async def test_interrupt_stops_the_running_turn_and_the_next_prompt_works(
    driver: Driver, fake_api: FakeAnthropic
) -> None:
    fake_api.push(
        Reply([tool_use("toolu_1", "Bash", {"command": "sleep 300"})], "tool_use"),
        Reply([text("Back again.")]),
    )
    async with sdk.ClaudeSDKClient(driver.options(allowed_tools=["Bash(sleep:*)"])) as client:
        await client.query("wait a long time")
        first: list[Any] = []
        async for message in client.receive_response():
            first.append(message)
            if isinstance(message, sdk.AssistantMessage):  # the sleep is starting
                await client.interrupt()
        await client.query("are you there?")
        second = await response(client)
    [stopped] = of(first, sdk.ResultMessage)
    assert stopped.subtype == "error_during_execution" and stopped.is_error
    assert stopped.terminal_reason == "aborted_streaming"
    [interrupted] = [b for u in of(first, sdk.UserMessage) for b in u.content]
    assert interrupted.tool_use_id == "toolu_1" and interrupted.is_error
    assert of(second, sdk.ResultMessage)[0].result == "Back again."
    history = fake_api.requests[-1]["messages"]
    assert any("interrupted" in t for t in texts(history[-1]))


async def test_mode_and_model_change_for_the_next_turn(
    driver: Driver, fake_api: FakeAnthropic, workspace: Path
) -> None:
    fake_api.push(
        Reply(
            [tool_use("toolu_1", "Write", {"file_path": "new.txt", "content": "x\n"})], "tool_use"
        ),
        Reply([text("Written.")]),
    )
    async with sdk.ClaudeSDKClient(driver.options()) as client:
        await client.set_permission_mode("acceptEdits")
        await client.set_model("claude-haiku-4-5")
        await client.query("write new.txt")
        messages = await response(client)
    [status, init] = of(messages, sdk.SystemMessage)
    assert status.subtype == "status" and status.data["permissionMode"] == "acceptEdits"
    assert init.data["permissionMode"] == "acceptEdits" and init.data["model"] == "claude-haiku-4-5"
    assert (workspace / "new.txt").read_text() == "x\n"  # acceptEdits: it ran without asking
    assert {r["model"] for r in fake_api.requests} == {"claude-haiku-4-5"}


async def test_mcp_status_and_context_usage_answer(driver: Driver, fake_api: FakeAnthropic) -> None:
    fake_api.push(Reply([text("Hi.")]))
    config = json.dumps({"mcpServers": {"broken": {"command": "/nonexistent/server"}}})
    async with sdk.ClaudeSDKClient(driver.options(mcp_servers=config)) as client:
        await client.query("hi")
        await response(client)
        status = await client.get_mcp_status()
        usage = await client.get_context_usage()
    [broken] = status["mcpServers"]
    assert broken["name"] == "broken" and broken["status"] == "failed" and broken["error"]
    assert usage["maxTokens"] > usage["totalTokens"] > 0
    assert usage["model"] == "claude-sonnet-5-5"


async def test_rewind_files_puts_the_code_back_to_before_a_prompt(
    driver: Driver, fake_api: FakeAnthropic, workspace: Path
) -> None:
    (workspace / "app.py").write_text("print('v1')\n")
    fake_api.push(
        Reply([tool_use("toolu_1", "Read", {"file_path": "app.py"})], "tool_use"),
        Reply(
            [
                tool_use(
                    "toolu_2",
                    "Edit",
                    {"file_path": "app.py", "old_string": "v1", "new_string": "v2"},
                )
            ],
            "tool_use",
        ),
        Reply([tool_use("toolu_3", "Bash", {"command": "echo made > shell.txt"})], "tool_use"),
        Reply([text("Changed.")]),
    )
    options = driver.options(
        permission_mode="acceptEdits",
        allowed_tools=["Bash(echo:*)"],
        enable_file_checkpointing=True,
        extra_args={"replay-user-messages": None},
    )
    async with sdk.ClaudeSDKClient(options) as client:
        await client.query("change the app")
        messages = await response(client)
        assert (workspace / "app.py").read_text() == "print('v2')\n"
        replayed = [m for m in of(messages, sdk.UserMessage) if isinstance(m.content, str)]
        await client.rewind_files(replayed[0].uuid)
    assert (workspace / "app.py").read_text() == "print('v1')\n"
    assert not (workspace / "shell.txt").exists()  # what the shell made goes too


async def test_resume_continues_the_session_and_fork_copies_it(
    driver: Driver, fake_api: FakeAnthropic
) -> None:
    fake_api.push(
        *(Reply([text(t)]) for t in ("Remembered: blue.", "Blue.", "Blue!", "Still blue."))
    )
    first = await driver.messages("my colour is blue")
    session_id = of(first, sdk.ResultMessage)[0].session_id
    resumed = await driver.messages("what is my colour?", resume=session_id)
    assert of(resumed, sdk.ResultMessage)[0].session_id == session_id
    assert "my colour is blue" in texts(fake_api.requests[1]["messages"][0])
    forked = await driver.messages("and now?", resume=session_id, fork_session=True)
    fork_id = of(forked, sdk.ResultMessage)[0].session_id
    assert fork_id != session_id
    assert len(fake_api.requests[2]["messages"]) == 5  # both earlier exchanges, then this one
    again = await driver.messages("once more", resume=session_id)  # the original is unchanged
    assert len(fake_api.requests[3]["messages"]) == 5
    assert of(again, sdk.ResultMessage)[0].session_id == session_id


async def test_a_session_id_given_by_the_program_names_the_session_and_resumes_it(
    driver: Driver, fake_api: FakeAnthropic
) -> None:
    fake_api.push(Reply([text("Noted: 7.")]), Reply([text("It was 7.")]), Reply([text("7.")]))
    chosen = str(uuid.uuid4())
    first = await driver.messages("the number is 7", session_id=chosen)
    assert of(first, sdk.SystemMessage)[0].data["session_id"] == chosen
    assert of(first, sdk.ResultMessage)[0].session_id == chosen
    resumed = await driver.messages("what was the number?", resume=chosen)
    assert of(resumed, sdk.ResultMessage)[0].session_id == chosen
    assert "the number is 7" in texts(fake_api.requests[1]["messages"][0])
    latest = await driver.messages("and again?", continue_conversation=True)
    assert of(latest, sdk.ResultMessage)[0].session_id == chosen
    assert len(fake_api.requests[2]["messages"]) == 5


async def test_an_mcp_server_is_toggled_off_and_on_and_reconnected_from_the_client(
    driver: Driver, fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    fake_api.push(Reply([text("One.")]), Reply([text("Two.")]), Reply([text("Three.")]))
    log = tmp_path / "mcp.log"
    server = {
        "command": sys.executable,
        "args": [str(FAKE_MCP), "--name", "fake"],
        "env": {"FAKE_MCP_LOG": str(log)},
    }
    async with sdk.ClaudeSDKClient(driver.options(mcp_servers={"fake": server})) as client:
        await client.query("one")
        await response(client)
        await client.toggle_mcp_server("fake", False)
        [off] = (await client.get_mcp_status())["mcpServers"]
        await client.query("two")
        await response(client)
        await client.toggle_mcp_server("fake", True)
        await client.reconnect_mcp_server("fake")
        [on] = (await client.get_mcp_status())["mcpServers"]
        await client.query("three")
        await response(client)
        try:
            await client.reconnect_mcp_server("nobody")
        except Exception as exc:  # the SDK raises the error answer
            missing = str(exc)
    offered = [{t["name"] for t in r.get("tools", [])} for r in fake_api.requests]
    assert "mcp__fake__echo" in offered[0] and "mcp__fake__echo" not in offered[1]
    assert "mcp__fake__echo" in offered[2]
    assert off["status"] != "connected" and on["status"] == "connected"
    assert on["tools"] and "There is no MCP server named 'nobody'" in missing
    assert log.read_text().split().count("start") == 3  # at launch, toggled on, reconnected


async def test_a_background_shell_is_a_task_the_client_can_stop(
    driver: Driver, fake_api: FakeAnthropic
) -> None:
    call = {"command": "sleep 300", "run_in_background": True}
    fake_api.push(
        Reply([tool_use("toolu_1", "Bash", call)], "tool_use"),
        Reply([text("Started it.")]),
    )
    options = driver.options(allowed_tools=["Bash(sleep:*)"])
    async with sdk.ClaudeSDKClient(options) as client:
        await client.query("start a long job")
        messages = await response(client)
        [started] = of(messages, sdk.TaskStartedMessage)
        assert started.task_type == "local_bash" and started.description
        await client.stop_task(started.task_id)
        async with asyncio.timeout(120):  # a guard: the notification comes at once
            async for message in client.receive_messages():
                if isinstance(message, sdk.TaskNotificationMessage):
                    ended = message
                    break
    assert ended.task_id == started.task_id and ended.status == "stopped"
    assert "sleep 300" in ended.summary
