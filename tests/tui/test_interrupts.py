"""Esc stops the turn whatever it is doing; the next request is valid; the UI says so."""

from __future__ import annotations

from pathlib import Path

from agent import events as ev
from agent.messages import TextBlock, ToolResultBlock, assistant, check_invariant
from agent.turn.loop import INTERRUPT_NOTE
from tests.fakes.scripted import ScriptedModel, tool_call
from tests.helpers.tui import (
    SIZE,
    StreamThenStall,
    make_app,
    settle,
    shell_tool,
    type_and_send,
    wait_ready,
)
from tui.widgets.conversation.assistant_text import AssistantText
from tui.widgets.conversation.message_line import MessageLine
from tui.widgets.conversation.permission_prompt import PermissionPrompt
from tui.widgets.conversation.tool_call import ToolCallBlock


def interrupted_lines(app) -> list[MessageLine]:
    return [line for line in app.query(MessageLine) if line.kind == "interrupted"]


async def test_esc_mid_stream(workspace: Path) -> None:
    then = ScriptedModel(["second answer"])
    model = StreamThenStall("The first answer is long and keeps going " * 5, then)
    app, events = make_app(workspace, model)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "first")
        await model.streaming.wait()
        await pilot.pause()
        app.main.prompt.insert("half-typed")
        await pilot.press("escape")
        finished = await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
        assert finished.subtype == "interrupted"
        (partial,) = app.query(AssistantText)
        assert partial.interrupted and partial.has_class("interrupted")
        assert partial.text.startswith("The first answer")
        assert len(interrupted_lines(app)) == 1
        assert app.focused is app.main.prompt
        assert app.main.prompt.text == "half-typed"  # nothing typed is lost
        app.main.prompt.load_text("")
        await type_and_send(pilot, "second")
        await events.wait_for(ev.TurnFinished, 2)
        await settle(app, pilot)
    sent = then.requests[-1].messages
    check_invariant(sent)
    # the text the user saw stays as the partial answer (issue 26); the note and prompt follow
    assert sent[1].role == "assistant" and sent[1].text.startswith("The first answer")
    assert [b.text for b in sent[-1].content] == [INTERRUPT_NOTE, "second"]


async def test_esc_while_waiting_for_permission(workspace: Path) -> None:
    bash = shell_tool()
    model = ScriptedModel(
        [assistant("Running it.", tool_call("c1", "Bash", command="rm -rf build")), "ok"]
    )
    app, events = make_app(workspace, model, [bash])
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "clean up")
        await events.wait_for(ev.PermissionRequested)
        await pilot.pause()
        prompt = app.query_one(PermissionPrompt)
        assert app.focused is prompt
        block = app.main.conversation.tool_blocks["c1"]
        assert block.state == "asking"
        await pilot.press("escape")
        finished = await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
        assert finished.subtype == "interrupted"
        assert not app.query(PermissionPrompt)
        assert block.state == "interrupted"
        assert bash.calls == []  # it never ran
        assert app.focused is app.main.prompt
        assert len(interrupted_lines(app)) == 1
        await type_and_send(pilot, "never mind")
        await events.wait_for(ev.TurnFinished, 2)
    sent = model.requests[-1].messages
    check_invariant(sent)
    result = sent[-1].content[0]
    assert isinstance(result, ToolResultBlock) and result.is_error
    assert sent[-1].content[-1] == TextBlock("never mind")


async def test_esc_during_a_slow_shell_command(workspace: Path) -> None:
    bash = shell_tool()  # never finishes on its own
    model = ScriptedModel([assistant(tool_call("c1", "Bash", command="sleep 600")), "stopped"])
    app, events = make_app(workspace, model, [bash], "--permission-mode", "bypassPermissions")
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "wait a lot")
        await events.wait_for(ev.ToolOutputDelta)
        await pilot.pause()
        block: ToolCallBlock = app.main.conversation.tool_blocks["c1"]
        assert block.state == "running" and "sleep 600" in block.output
        await pilot.press("escape")
        finished = await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
        assert finished.subtype == "interrupted"
        assert block.state == "interrupted" and block.has_class("problem")
        assert "interrupted" in str(block.query_one(".tool-header").render())
        assert app.focused is app.main.prompt
        await type_and_send(pilot, "go on")
        await events.wait_for(ev.TurnFinished, 2)
    sent = model.requests[-1].messages
    check_invariant(sent)
    result = sent[-1].content[0]
    assert isinstance(result, ToolResultBlock) and result.is_error
    assert "interrupted" in str(result.content)


async def test_esc_twice_on_an_empty_idle_prompt_without_prompts_says_nothing_to_rewind(
    workspace: Path,
) -> None:
    app, _ = make_app(workspace, ScriptedModel([]), frozen=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await pilot.press("escape", "escape")
        await pilot.pause()
        hints = [line.text for line in app.query(MessageLine) if line.kind == "hint"]
        assert any("No prompts yet: nothing to rewind" in h for h in hints)
        assert app.screen is app.main
        assert app.focused is app.main.prompt
