"""``query()`` of the Python Agent SDK runs eddy: tools, limits, system prompts, structured
output, partial messages."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.sdk.conftest import Driver, of, sdk


async def test_query_runs_tools_and_types_every_message(
    driver: Driver, fake_api: FakeAnthropic, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text("the answer is 42\n")
    fake_api.push(
        Reply(
            [text("Reading."), tool_use("toolu_1", "Read", {"file_path": "notes.txt"})], "tool_use"
        ),
        Reply([tool_use("toolu_2", "Bash", {"command": "echo made > made.txt"})], "tool_use"),
        Reply([text("It says 42.")]),
    )
    messages = await driver.messages("what do the notes say?", allowed_tools=["Bash"])
    init, *rest = messages
    assert isinstance(init, sdk.SystemMessage) and init.subtype == "init"
    assert {"Read", "Bash", "Edit"} <= set(init.data["tools"])
    assert init.data["cwd"] == str(workspace.resolve())
    assistants = of(messages, sdk.AssistantMessage)
    assert [type(b).__name__ for b in assistants[0].content] == ["TextBlock", "ToolUseBlock"]
    results = [b for u in of(messages, sdk.UserMessage) for b in u.content]
    assert "42" in str(results[0].content) and results[0].is_error is False
    assert (workspace / "made.txt").read_text() == "made\n"
    [result] = of(messages, sdk.ResultMessage)
    assert result.subtype == "success" and result.is_error is False
    assert result.result == "It says 42." and result.num_turns == 3
    assert result.session_id == init.data["session_id"]
    assert result.total_cost_usd and result.total_cost_usd > 0 and result.usage
    assert messages[-1] is result
    assert len(fake_api.requests) == 3


async def test_max_turns_stops_with_error_max_turns(
    driver: Driver, fake_api: FakeAnthropic
) -> None:
    fake_api.responder = lambda body: Reply(
        [tool_use(f"toolu_{len(body['messages'])}", "Glob", {"pattern": "*"})], "tool_use"
    )
    messages = await driver.messages("look around forever", max_turns=2)
    [result] = of(messages, sdk.ResultMessage)
    assert result.subtype == "error_max_turns" and result.is_error
    assert len(fake_api.requests) == 3  # T + 1 calls: the third one's tool is not run


async def test_max_budget_usd_stops_with_error_max_budget_usd(
    driver: Driver, fake_api: FakeAnthropic
) -> None:
    fake_api.responder = lambda body: Reply(
        [tool_use(f"toolu_{len(body['messages'])}", "Glob", {"pattern": "*"})], "tool_use"
    )
    messages = await driver.messages("look around forever", max_budget_usd=0.000001)
    [result] = of(messages, sdk.ResultMessage)
    assert result.subtype == "error_max_budget_usd" and result.is_error
    assert len(fake_api.requests) == 1


async def test_a_custom_system_prompt_replaces_eddys(
    driver: Driver, fake_api: FakeAnthropic
) -> None:
    fake_api.push(Reply([text("Arr.")]))
    await driver.messages("hello", system_prompt="You are a pirate.")
    [request] = fake_api.requests
    assert [b["text"] for b in request["system"]] == ["You are a pirate.\n"]


async def test_the_sdks_default_empty_system_prompt_sends_none_of_eddys(
    driver: Driver, fake_api: FakeAnthropic
) -> None:
    fake_api.push(Reply([text("Hi.")]))
    await driver.messages("hello")  # the SDK passes --system-prompt ""
    [request] = fake_api.requests
    assert "system" not in request


async def test_the_claude_code_preset_with_append_is_eddys_prompt_and_the_text(
    driver: Driver, fake_api: FakeAnthropic
) -> None:
    fake_api.push(Reply([text("Hi.")]))
    preset = {"type": "preset", "preset": "claude_code", "append": "Always answer in French."}
    await driver.messages("hello", system_prompt=preset)
    system = fake_api.requests[0]["system"][0]["text"]
    assert system.startswith("You are eddy") and system.rstrip().endswith(
        "Always answer in French."
    )


async def test_structured_output_ends_the_turn_with_the_structured_result(
    driver: Driver, fake_api: FakeAnthropic
) -> None:
    schema = {
        "type": "object",
        "properties": {"answer": {"type": "integer"}},
        "required": ["answer"],
    }
    fake_api.push(
        Reply([tool_use("toolu_1", "StructuredOutput", {"answer": "forty-two"})], "tool_use"),
        Reply([tool_use("toolu_2", "StructuredOutput", {"answer": 42})], "tool_use"),
    )
    messages = await driver.messages(
        "what is it?", output_format={"type": "json_schema", "schema": schema}
    )
    [result] = of(messages, sdk.ResultMessage)
    assert result.subtype == "success" and result.structured_output == {"answer": 42}
    assert result.result == '{"answer":42}'
    first, second = fake_api.requests  # the turn ended at the valid call: no third request
    [offered] = [t for t in first["tools"] if t["name"] == "StructuredOutput"]
    assert offered["input_schema"] == schema
    [invalid] = [b for b in second["messages"][-1]["content"] if b["type"] == "tool_result"]
    assert invalid["is_error"] is True and "answer" in str(invalid["content"])


async def test_a_model_that_never_gives_the_structured_output_ends_in_its_error(
    driver: Driver, fake_api: FakeAnthropic
) -> None:
    fake_api.responder = lambda body: Reply([text("Just prose.")])
    schema = {"type": "object", "properties": {"answer": {"type": "integer"}}}
    messages = await driver.messages(
        "what is it?", output_format={"type": "json_schema", "schema": schema}
    )
    [result] = of(messages, sdk.ResultMessage)
    assert result.subtype == "error_max_structured_output_retries" and result.is_error
    assert result.structured_output is None
    assert len(fake_api.requests) == 4  # the answer, then three reminders


async def test_partial_messages_stream_the_raw_events_before_the_message(
    driver: Driver, fake_api: FakeAnthropic
) -> None:
    fake_api.push(Reply([text("one two three four five six")]))
    messages = await driver.messages("count", include_partial_messages=True)
    events = of(messages, sdk.StreamEvent)
    kinds = [e.event["type"] for e in events]
    assert kinds[0] == "message_start" and "content_block_delta" in kinds
    assert kinds[-1] == "message_stop"
    deltas = "".join(
        e.event["delta"].get("text", "") for e in events if e.event["type"] == "content_block_delta"
    )
    assert deltas == "one two three four five six"
    [assistant] = of(messages, sdk.AssistantMessage)
    assert messages.index(events[-1]) < messages.index(assistant)


async def test_the_tools_option_offers_only_those_built_in_tools(
    driver: Driver, fake_api: FakeAnthropic
) -> None:
    fake_api.push(Reply([tool_use("toolu_1", "Bash", {"command": "ls"})], "tool_use"))
    fake_api.push(Reply([text("Only reading here.")]))
    messages = await driver.messages("look", tools=["Read", "Grep"])
    offered = {t["name"] for t in fake_api.requests[0]["tools"]}
    assert {"Read", "Grep"} <= offered and not offered & {"Bash", "Edit", "Write", "Agent"}
    [refused] = [b for b in fake_api.requests[1]["messages"][-1]["content"]]
    assert refused["is_error"] is True  # a tool left out cannot be called either
    assert set(of(messages, sdk.SystemMessage)[0].data["tools"]) == offered


async def test_thinking_options_reach_the_request(driver: Driver, fake_api: FakeAnthropic) -> None:
    fake_api.push(Reply([text("Thought.")]))
    await driver.messages("think", thinking={"type": "enabled", "budget_tokens": 40_000})
    [request] = fake_api.requests
    assert request["thinking"] == {"type": "enabled", "budget_tokens": 40_000}
    assert request["max_tokens"] > 40_000


async def test_setting_sources_and_settings_choose_the_rules(
    driver: Driver, fake_api: FakeAnthropic, workspace: Path
) -> None:
    project = workspace / ".claude" / "settings.json"
    project.parent.mkdir()
    project.write_text('{"permissions": {"allow": ["Bash(touch:*)"]}}')
    allow = '{"permissions": {"allow": ["Bash(touch:*)"]}}'
    runs = []
    for fields in (
        {"setting_sources": ["user"]},  # the project's file is not read: the call is refused
        {"setting_sources": ["project"]},
        {"setting_sources": [], "settings": allow},
    ):
        fake_api.push(
            Reply([tool_use("toolu_1", "Bash", {"command": "touch made.txt"})], "tool_use"),
            Reply([text("ok")]),
        )
        await driver.messages("touch it", **fields)
        [result] = fake_api.requests[-1]["messages"][-1]["content"]
        runs.append(bool(result.get("is_error")))
    assert runs == [True, False, False]


async def test_a_custom_command_is_expanded_unless_prompts_are_verbatim(
    driver: Driver, fake_api: FakeAnthropic, workspace: Path
) -> None:
    commands = workspace / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "greet.md").write_text("Say hello to $ARGUMENTS, warmly.\n")
    fake_api.push(Reply([text("Hello, Ada!")]), Reply([text("As written.")]))
    messages = await driver.messages("/greet Ada")
    assert "greet" in of(messages, sdk.SystemMessage)[0].data["slash_commands"]
    assert "Say hello to Ada, warmly." in str(fake_api.requests[0]["messages"][0])
    await driver.messages("/greet Bob", verbatim_prompts=True)
    assert "Say hello" not in str(fake_api.requests[1]["messages"][0])


@pytest.mark.parametrize(
    ("fields", "flag"),
    [
        ({"fallback_model": "claude-haiku-4-5"}, "--fallback-model"),
        ({"betas": ["context-1m-2025-08-07"]}, "--betas"),
        ({"effort": "high"}, "--effort"),
        ({"task_budget": {"total": 1000}}, "--task-budget"),
    ],
)
async def test_an_option_eddy_cannot_honour_fails_the_query_naming_its_flag(
    driver: Driver, fake_api: FakeAnthropic, fields: dict[str, Any], flag: str
) -> None:
    with pytest.raises(sdk.ProcessError):
        await driver.messages("hello", **fields)
    assert any(line.startswith(f"eddy: {flag} is not supported") for line in driver.stderr)
    assert fake_api.requests == []


async def test_the_sdks_plugins_option_loads_a_local_plugin(
    driver: Driver, fake_api: FakeAnthropic, workspace: Path, tmp_path: Path
) -> None:
    plugin = tmp_path / "demo-plugin"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text('{"name": "demo"}')
    (plugin / "commands").mkdir()
    (plugin / "commands" / "wave.md").write_text("Wave at $ARGUMENTS.\n")
    fake_api.push(Reply([text("Waved.")]))
    messages = await driver.messages(
        "/demo:wave Ada", plugins=[{"type": "local", "path": str(plugin)}]
    )
    assert "demo:wave" in of(messages, sdk.SystemMessage)[0].data["slash_commands"]
    assert "Wave at Ada." in str(fake_api.requests[0]["messages"][0])


async def test_a_skills_list_narrows_the_skills_the_model_sees_and_loads(
    driver: Driver, fake_api: FakeAnthropic, workspace: Path
) -> None:
    for name in ("alpha", "beta"):
        folder = workspace / ".claude" / "skills" / name
        folder.mkdir(parents=True)
        body = f"---\nname: {name}\ndescription: The {name} skill.\n---\nDo {name} things.\n"
        (folder / "SKILL.md").write_text(body)
    fake_api.push(
        Reply(
            [
                tool_use("toolu_1", "Skill", {"skill": "alpha"}),
                tool_use("toolu_2", "Skill", {"skill": "beta"}),
            ],
            "tool_use",
        ),
        Reply([text("Done.")]),
    )
    await driver.messages("use the skills", skills=["alpha", "gamma"])
    [offered] = [t for t in fake_api.requests[0]["tools"] if t["name"] == "Skill"]
    assert "alpha" in offered["description"] and "beta" not in offered["description"]
    alpha, beta = fake_api.requests[1]["messages"][-1]["content"]
    assert not alpha.get("is_error") and "Do alpha things." in str(alpha["content"])
    assert beta["is_error"] is True and "No skill named 'beta'" in str(beta["content"])
    assert "eddy: initialize: skills: none is named gamma." in driver.stderr
