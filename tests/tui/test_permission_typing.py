"""Typing while a permission question shows (issue 25): the text is kept, as the reason
when the answer is no, and an Enter typed for something else never approves the call."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agent import events as ev
from agent.messages import ToolResultBlock, assistant
from tests.fakes.scripted import ScriptedModel, tool_call
from tests.helpers.tui import SIZE, make_app, settle, shell_tool, type_and_send, wait_ready
from tui.widgets.conversation.permission_prompt import PermissionPrompt


def bash_then_done(release: asyncio.Event | None = None) -> ScriptedModel:
    """A model asking to run ``make`` (once ``release`` is set, if given), then done."""
    items = [assistant(tool_call("c0", "Bash", command="make")), "done"]

    async def script(messages):
        if release is not None:
            await release.wait()
        return items.pop(0)

    return ScriptedModel(script)


async def test_text_typed_into_the_question_becomes_the_reason_for_no(workspace: Path) -> None:
    done = asyncio.Event()
    done.set()
    bash = shell_tool(done)
    model = bash_then_done()
    app, events = make_app(workspace, model, [bash])
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "build")
        await events.wait_for(ev.PermissionRequested)
        await pilot.pause()
        question = app.query_one(PermissionPrompt)
        assert app.focused is question
        await pilot.press(*"not now", "enter")  # typed for the prompt, landed on the question
        resolved = await events.wait_for(ev.PermissionResolved)
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
    assert resolved.decision == "deny" and bash.calls == []
    result = model.requests[1].messages[-1].content[0]
    assert isinstance(result, ToolResultBlock) and "not now" in str(result.content)


async def test_enter_typed_in_the_prompt_queues_the_text_and_approves_nothing(
    workspace: Path,
) -> None:
    release, done = asyncio.Event(), asyncio.Event()
    done.set()
    bash = shell_tool(done)
    model = bash_then_done(release)
    app, events = make_app(workspace, model, [bash])
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "build")
        await pilot.press(*"keep go")  # writing a correction while the model thinks
        release.set()
        await events.wait_for(ev.PermissionRequested)
        await pilot.pause()
        assert app.focused is app.main.prompt  # the question did not take the keys
        await pilot.press(*"ing", "enter")
        await pilot.pause()
        assert bash.calls == [] and not events.of(ev.PermissionResolved)
        assert list(app.main.session.queue) == ["keep going"]
        assert app.focused is app.query_one(PermissionPrompt)  # now it asks
        await pilot.press("1")
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
    assert bash.calls == [{"command": "make"}]


async def test_tab_from_a_half_written_prompt_goes_to_the_question(workspace: Path) -> None:
    release = asyncio.Event()
    bash = shell_tool(asyncio.Event())
    model = bash_then_done(release)
    app, events = make_app(workspace, model, [bash])
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "build")
        await pilot.press(*"half")
        release.set()
        await events.wait_for(ev.PermissionRequested)
        await pilot.pause()
        assert app.focused is app.main.prompt
        await pilot.press("tab")
        assert app.focused is app.query_one(PermissionPrompt)
        assert app.main.prompt.text == "half"  # kept


async def test_a_reason_typed_then_esc_goes_back_to_the_prompt(workspace: Path) -> None:
    bash = shell_tool(asyncio.Event())
    model = bash_then_done()
    app, events = make_app(workspace, model, [bash])
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "build")
        await events.wait_for(ev.PermissionRequested)
        await pilot.pause()
        await pilot.press(*"use ninja")
        await pilot.press("escape")  # stops the turn: the question goes, the text stays
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
        assert app.main.prompt.text == "use ninja"
    assert bash.calls == []
