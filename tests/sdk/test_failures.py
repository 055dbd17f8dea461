"""Every SDK callback that fails or hangs ends as an is_error result the model reads, or a
clear message, within a deadline: ``can_use_tool``, hook callbacks and in-process MCP tools
that raise, and ones that never answer (their deadlines set short through the SDK's ``env``)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.sdk.conftest import Driver, of, sdk


def tool_results(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for b in request["messages"][-1]["content"] if b.get("type") == "tool_result"]


def one_bash_call(fake_api: FakeAnthropic, command: str = "echo x > x.txt") -> None:
    fake_api.push(
        Reply([tool_use("toolu_1", "Bash", {"command": command})], "tool_use"),
        Reply([text("Done.")]),
    )


async def test_a_can_use_tool_that_raises_refuses_the_call_and_the_turn_goes_on(
    driver: Driver, fake_api: FakeAnthropic, workspace: Path
) -> None:
    one_bash_call(fake_api)

    async def can_use_tool(name: str, args: dict[str, Any], context: Any) -> Any:
        raise RuntimeError("the policy service is down")

    messages = await driver.messages("go", can_use_tool=can_use_tool)
    [refused] = tool_results(fake_api.requests[1])
    assert refused["is_error"] is True
    assert "can_use_tool failed" in str(refused["content"])
    assert "the policy service is down" in str(refused["content"])
    assert not (workspace / "x.txt").exists()
    [result] = of(messages, sdk.ResultMessage)
    assert result.subtype == "success" and result.result == "Done."


async def test_a_can_use_tool_that_never_answers_is_withdrawn_at_its_deadline(
    driver: Driver, fake_api: FakeAnthropic, workspace: Path
) -> None:
    one_bash_call(fake_api)
    withdrawn = asyncio.Event()

    async def can_use_tool(name: str, args: dict[str, Any], context: Any) -> Any:
        try:
            await asyncio.Event().wait()  # never answers
        except asyncio.CancelledError:
            withdrawn.set()  # eddy's control_cancel_request reached the SDK
            raise

    messages = await driver.messages(
        "go", can_use_tool=can_use_tool, env={"EDDY_CAN_USE_TOOL_TIMEOUT": "1"}
    )
    [refused] = tool_results(fake_api.requests[1])
    assert refused["is_error"] is True
    assert "did not answer within 1 s" in str(refused["content"])
    assert "EDDY_CAN_USE_TOOL_TIMEOUT" in str(refused["content"])
    assert not (workspace / "x.txt").exists()
    assert withdrawn.is_set()
    assert of(messages, sdk.ResultMessage)[0].result == "Done."


async def test_a_hook_callback_that_never_answers_lets_the_call_run_and_says_so(
    driver: Driver, fake_api: FakeAnthropic, workspace: Path
) -> None:
    one_bash_call(fake_api)

    async def stuck(data: dict[str, Any], tool_use_id: Any, context: Any) -> dict[str, Any]:
        await asyncio.Event().wait()
        return {}

    hooks = {"PreToolUse": [sdk.HookMatcher(hooks=[stuck], timeout=1)]}
    messages = await driver.messages("go", hooks=hooks, allowed_tools=["Bash"])
    [ran] = tool_results(fake_api.requests[1])
    assert not ran.get("is_error")
    assert (workspace / "x.txt").read_text() == "x\n"
    said = "\n".join(driver.stderr)
    assert "PreToolUse hook error" in said and "did not answer within 1 s" in said
    assert of(messages, sdk.ResultMessage)[0].result == "Done."


async def test_a_blocking_hook_callback_that_never_answers_refuses_the_call(
    driver: Driver, fake_api: FakeAnthropic, workspace: Path
) -> None:
    one_bash_call(fake_api)

    async def stuck(data: dict[str, Any], tool_use_id: Any, context: Any) -> dict[str, Any]:
        await asyncio.Event().wait()
        return {}

    hooks = {"PreToolUse": [sdk.HookMatcher(hooks=[stuck], timeout=1, on_failure="block")]}
    await driver.messages("go", hooks=hooks, allowed_tools=["Bash"])
    [refused] = tool_results(fake_api.requests[1])
    assert refused["is_error"] is True
    assert "did not answer within 1 s" in str(refused["content"])
    assert not (workspace / "x.txt").exists()


async def test_a_hook_callback_that_raises_lets_the_call_run_and_says_why(
    driver: Driver, fake_api: FakeAnthropic, workspace: Path
) -> None:
    one_bash_call(fake_api)

    async def broken(data: dict[str, Any], tool_use_id: Any, context: Any) -> dict[str, Any]:
        raise RuntimeError("the logger crashed")

    hooks = {"PostToolUse": [sdk.HookMatcher(hooks=[broken])]}
    messages = await driver.messages("go", hooks=hooks, allowed_tools=["Bash"])
    [ran] = tool_results(fake_api.requests[1])
    assert not ran.get("is_error")
    assert "PostToolUse hook error" in "\n".join(driver.stderr)
    assert "the logger crashed" in "\n".join(driver.stderr)
    assert of(messages, sdk.ResultMessage)[0].result == "Done."


@sdk.tool("explode", "Fails every time", {})
async def explode(args: dict[str, Any]) -> dict[str, Any]:
    raise RuntimeError("the tool blew up")


@sdk.tool("hang", "Never answers", {})
async def hang(args: dict[str, Any]) -> dict[str, Any]:
    await asyncio.Event().wait()
    return {"content": []}


@sdk.tool("refuse", "Answers with an error", {})
async def refuse(args: dict[str, Any]) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": "no such record"}], "is_error": True}


async def test_in_process_mcp_tools_that_raise_or_fail_are_is_error_results(
    driver: Driver, fake_api: FakeAnthropic
) -> None:
    fake_api.push(
        Reply(
            [
                tool_use("toolu_1", "mcp__box__explode", {}),
                tool_use("toolu_2", "mcp__box__refuse", {}),
            ],
            "tool_use",
        ),
        Reply([text("Nothing worked.")]),
    )
    server = sdk.create_sdk_mcp_server("box", tools=[explode, refuse])
    messages = await driver.messages(
        "try the box",
        mcp_servers={"box": server},
        allowed_tools=["mcp__box__explode", "mcp__box__refuse"],
    )
    exploded, refused = tool_results(fake_api.requests[1])
    assert exploded["is_error"] is True and "the tool blew up" in str(exploded["content"])
    assert refused["is_error"] is True and "no such record" in str(refused["content"])
    assert of(messages, sdk.ResultMessage)[0].result == "Nothing worked."


async def test_an_in_process_mcp_tool_that_never_answers_ends_at_mcp_tool_timeout(
    driver: Driver, fake_api: FakeAnthropic
) -> None:
    fake_api.push(
        Reply([tool_use("toolu_1", "mcp__box__hang", {})], "tool_use"),
        Reply([text("It hung.")]),
    )
    server = sdk.create_sdk_mcp_server("box", tools=[hang])
    messages = await driver.messages(
        "try the box",
        mcp_servers={"box": server},
        allowed_tools=["mcp__box__hang"],
        env={"MCP_TOOL_TIMEOUT": "1000"},  # only the hanging call meets this deadline
    )
    [hung] = tool_results(fake_api.requests[1])
    assert hung["is_error"] is True and "did not answer within 1 s" in str(hung["content"])
    assert of(messages, sdk.ResultMessage)[0].result == "It hung."
