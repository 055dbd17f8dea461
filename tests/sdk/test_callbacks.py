"""The SDK's callbacks plug into eddy's session: ``can_use_tool`` answers what eddy's rules
would ask, hook callbacks judge as hooks do, an in-process MCP server's tools are called through
the control channel, and the SDK's agents are subagents."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.sdk.conftest import Driver, of, sdk


def tool_results(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for b in request["messages"][-1]["content"] if b.get("type") == "tool_result"]


async def test_can_use_tool_is_asked_only_what_the_rules_would_ask(
    driver: Driver, fake_api: FakeAnthropic, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("a\n")
    fake_api.push(
        Reply(
            [
                tool_use("toolu_1", "Read", {"file_path": "a.txt"}),  # allowed: never asked
                tool_use("toolu_2", "Bash", {"command": "echo one > one.txt"}),  # asks: denied
                tool_use("toolu_3", "Bash", {"command": "echo two > two.txt"}),  # asks: changed
                tool_use("toolu_4", "Bash", {"command": "rm -rf nothing"}),  # a deny rule
            ],
            "tool_use",
        ),
        Reply([text("Done.")]),
    )
    asked: list[tuple[str, dict[str, Any]]] = []

    async def can_use_tool(name: str, args: dict[str, Any], context: Any) -> Any:
        asked.append((name, args))
        if args.get("command", "").startswith("echo one"):
            return sdk.PermissionResultDeny(message="not that one")
        return sdk.PermissionResultAllow(updated_input={"command": "echo changed > two.txt"})

    messages = await driver.messages(
        "do things", can_use_tool=can_use_tool, disallowed_tools=["Bash(rm:*)"]
    )
    assert [a[1]["command"] for a in asked] == ["echo one > one.txt", "echo two > two.txt"]
    read, denied, changed, ruled = tool_results(fake_api.requests[1])
    assert not read.get("is_error")
    assert denied["is_error"] is True and "not that one" in str(denied["content"])
    assert not changed.get("is_error")
    assert ruled["is_error"] is True
    assert not (workspace / "one.txt").exists()
    assert (workspace / "two.txt").read_text() == "changed\n"
    [result] = of(messages, sdk.ResultMessage)
    denials = {d["tool_use_id"] for d in result.permission_denials}
    assert denials == {"toolu_2", "toolu_4"}


async def test_a_deny_with_interrupt_ends_the_turn(driver: Driver, fake_api: FakeAnthropic) -> None:
    fake_api.push(
        Reply([tool_use("toolu_1", "Bash", {"command": "echo x > x.txt"})], "tool_use"),
        Reply([text("never")]),
    )

    async def can_use_tool(name: str, args: dict[str, Any], context: Any) -> Any:
        return sdk.PermissionResultDeny(message="stop everything", interrupt=True)

    messages = await driver.messages("go", can_use_tool=can_use_tool)
    assert len(fake_api.requests) == 1
    assert of(messages, sdk.ResultMessage)[0].result != "never"


async def test_hook_callbacks_judge_prompts_tool_calls_and_results(
    driver: Driver, fake_api: FakeAnthropic, workspace: Path
) -> None:
    fake_api.push(
        Reply(
            [
                tool_use("toolu_1", "Bash", {"command": "echo blocked > no.txt"}),
                tool_use("toolu_2", "Glob", {"pattern": "*"}),
            ],
            "tool_use",
        ),
        Reply([text("Done.")]),
        Reply([text("Really done.")]),
    )
    seen: list[tuple[str, Any]] = []

    async def on_prompt(data: dict[str, Any], tool_use_id: Any, context: Any) -> dict[str, Any]:
        seen.append((data["hook_event_name"], data["prompt"]))
        specific = {"hookEventName": "UserPromptSubmit", "additionalContext": "USER-CONTEXT"}
        return {"hookSpecificOutput": specific}

    async def pre_bash(data: dict[str, Any], tool_use_id: Any, context: Any) -> dict[str, Any]:
        seen.append((data["hook_event_name"], tool_use_id))
        decision = {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "no shell today",
        }
        return {"hookSpecificOutput": decision}

    async def post(data: dict[str, Any], tool_use_id: Any, context: Any) -> dict[str, Any]:
        seen.append((data["hook_event_name"], data["tool_name"]))
        specific = {"hookEventName": "PostToolUse", "additionalContext": "POST-CONTEXT"}
        return {"hookSpecificOutput": specific}

    stops: list[bool] = []

    async def stop(data: dict[str, Any], tool_use_id: Any, context: Any) -> dict[str, Any]:
        stops.append(data["stop_hook_active"])
        if data["stop_hook_active"]:
            return {}
        return {"decision": "block", "reason": "check once more"}

    hooks = {
        "UserPromptSubmit": [sdk.HookMatcher(hooks=[on_prompt])],
        "PreToolUse": [sdk.HookMatcher(matcher="Bash", hooks=[pre_bash])],
        "PostToolUse": [sdk.HookMatcher(matcher="Glob", hooks=[post])],
        "Stop": [sdk.HookMatcher(hooks=[stop])],
    }
    messages = await driver.messages("list files", hooks=hooks)
    assert seen == [
        ("UserPromptSubmit", "list files"),
        ("PreToolUse", "toolu_1"),
        ("PostToolUse", "Glob"),
    ]
    assert stops == [False, True]
    first, second, third = fake_api.requests
    assert "USER-CONTEXT" in str(first["messages"][0]["content"])
    bash, glob = tool_results(second)
    assert bash["is_error"] is True and "no shell today" in str(bash["content"])
    assert "POST-CONTEXT" in str(glob["content"])
    assert "check once more" in str(third["messages"][-1]["content"])
    assert not (workspace / "no.txt").exists()
    assert of(messages, sdk.ResultMessage)[0].result == "Really done."


async def test_a_hook_callback_that_fails_blocks_when_it_is_set_to_block(
    driver: Driver, fake_api: FakeAnthropic, workspace: Path
) -> None:
    fake_api.push(
        Reply([tool_use("toolu_1", "Bash", {"command": "echo x > x.txt"})], "tool_use"),
        Reply([text("Done.")]),
    )

    async def broken(data: dict[str, Any], tool_use_id: Any, context: Any) -> dict[str, Any]:
        raise RuntimeError("the guard crashed")

    hooks = {"PreToolUse": [sdk.HookMatcher(hooks=[broken], on_failure="block")]}
    await driver.messages("go", hooks=hooks, allowed_tools=["Bash"])
    [refused] = tool_results(fake_api.requests[1])
    assert refused["is_error"] is True and "the guard crashed" in str(refused["content"])
    assert not (workspace / "x.txt").exists()


@sdk.tool("add", "Add two numbers", {"a": int, "b": int})
async def add(args: dict[str, Any]) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": str(args["a"] + args["b"])}]}


async def test_an_in_process_mcp_servers_tools_are_called_through_the_sdk(
    driver: Driver, fake_api: FakeAnthropic
) -> None:
    fake_api.push(
        Reply([tool_use("toolu_1", "mcp__calc__add", {"a": 2, "b": 40})], "tool_use"),
        Reply([text("It is 42.")]),
    )
    server = sdk.create_sdk_mcp_server("calc", tools=[add])
    messages = await driver.messages(
        "add them", mcp_servers={"calc": server}, allowed_tools=["mcp__calc__add"]
    )
    init = of(messages, sdk.SystemMessage)[0]
    assert "mcp__calc__add" in init.data["tools"]
    assert init.data["mcp_servers"] == [{"name": "calc", "status": "connected"}]
    [offered] = [t for t in fake_api.requests[0]["tools"] if t["name"] == "mcp__calc__add"]
    assert offered["input_schema"]["required"] == ["a", "b"]
    [result] = tool_results(fake_api.requests[1])
    assert not result.get("is_error") and "42" in str(result["content"])
    assert of(messages, sdk.ResultMessage)[0].result == "It is 42."


async def test_the_sdks_agents_are_subagents_with_their_own_prompt(
    driver: Driver, fake_api: FakeAnthropic
) -> None:
    def respond(body: dict[str, Any]) -> Reply:
        system = str(body.get("system"))
        if "You review code." in system:  # the child
            return Reply([text("Looks fine to me.")])
        if len(body["messages"]) == 1:
            call = {"subagent_type": "reviewer", "description": "review", "prompt": "review it"}
            return Reply([tool_use("toolu_agent", "Agent", call)], "tool_use")
        return Reply([text("The reviewer is happy.")])

    fake_api.responder = respond
    agents = {
        "reviewer": sdk.AgentDefinition(
            description="Reviews code", prompt="You review code.", tools=["Read", "Grep"]
        )
    }
    messages = await driver.messages("get a review", agents=agents)
    init = of(messages, sdk.SystemMessage)[0]
    assert "reviewer" in init.data["agents"]
    [agent_tool] = [t for t in fake_api.requests[0]["tools"] if t["name"] == "Agent"]
    assert "reviewer" in agent_tool["description"]
    child = [a for a in of(messages, sdk.AssistantMessage) if a.parent_tool_use_id]
    assert child and child[0].parent_tool_use_id == "toolu_agent"
    started = [m for m in messages if isinstance(m, sdk.TaskStartedMessage)]
    ended = [m for m in messages if isinstance(m, sdk.TaskNotificationMessage)]
    assert started[0].tool_use_id == "toolu_agent" and ended[0].status == "completed"
    assert of(messages, sdk.ResultMessage)[0].result == "The reviewer is happy."


async def test_include_hook_events_reports_each_callback_run_as_hook_event_messages(
    driver: Driver, fake_api: FakeAnthropic
) -> None:
    fake_api.push(
        Reply([tool_use("toolu_1", "Glob", {"pattern": "*"})], "tool_use"),
        Reply([text("Done.")]),
    )

    async def fine(data: dict[str, Any], tool_use_id: Any, context: Any) -> dict[str, Any]:
        return {}

    hooks = {"PreToolUse": [sdk.HookMatcher(matcher="Glob", hooks=[fine])]}
    messages = await driver.messages("look", hooks=hooks, include_hook_events=True)
    runs = [m for m in messages if isinstance(m, sdk.HookEventMessage)]
    assert [(m.subtype, m.hook_event_name) for m in runs] == [
        ("hook_started", "PreToolUse"),
        ("hook_response", "PreToolUse"),
    ]
    assert runs[0].data["hook_id"] == runs[1].data["hook_id"]
    assert runs[1].data["outcome"] == "success"
