"""Permission prompts: what will run, yes / always / no with a reason, keyboard only."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from agent import events as ev
from agent.messages import ToolResultBlock, assistant, check_invariant
from tests.fakes.scripted import ScriptedModel, tool_call
from tests.helpers.tui import SIZE, make_app, settle, shell_tool, type_and_send, wait_ready
from tui.widgets.conversation.permission_prompt import PermissionPrompt


def bash_script(*commands: str) -> ScriptedModel:
    items = [assistant(tool_call(f"c{i}", "Bash", command=c)) for i, c in enumerate(commands)]
    return ScriptedModel([*items, "done"])


async def test_no_with_a_reason_reaches_the_model(workspace: Path) -> None:
    bash = shell_tool(asyncio.Event())
    model = bash_script("git push --force")
    app, events = make_app(workspace, model, [bash])
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "ship it")
        await events.wait_for(ev.PermissionRequested)
        await pilot.pause()
        prompt = app.query_one(PermissionPrompt)
        assert "git push --force" in str(prompt.query_one(".perm-preview").render())
        await pilot.press("3")
        assert app.focused is prompt.reason_input
        await pilot.press(*"open a PR instead")
        await pilot.press("enter")
        resolved = await events.wait_for(ev.PermissionResolved)
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
        assert resolved.decision == "deny"
        assert app.main.conversation.tool_blocks["c0"].state == "refused"
        assert app.focused is app.main.prompt
    assert bash.calls == []
    result = model.requests[1].messages[-1].content[0]
    assert isinstance(result, ToolResultBlock) and result.is_error
    assert "open a PR instead" in str(result.content)
    check_invariant(model.requests[1].messages)


async def test_yes_runs_the_call(workspace: Path) -> None:
    release = asyncio.Event()
    release.set()
    bash = shell_tool(release, output="built")
    model = bash_script("make")
    app, events = make_app(workspace, model, [bash])
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "build")
        await events.wait_for(ev.PermissionRequested)
        await pilot.pause()
        await pilot.press("enter")  # option 1 is selected by default
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
        block = app.main.conversation.tool_blocks["c0"]
        assert block.state == "done" and block.result_text == "built"
    assert bash.calls == [{"command": "make"}]


async def test_yes_and_dont_ask_again_with_arrows(workspace: Path) -> None:
    release = asyncio.Event()
    release.set()
    bash = shell_tool(release)
    model = bash_script("npm test", "npm test -- --watch=false")
    app, events = make_app(workspace, model, [bash])
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "test")
        request = await events.wait_for(ev.PermissionRequested)
        await pilot.pause()
        prompt = app.query_one(PermissionPrompt)
        label = str(prompt.query(".option")[1].render())
        assert f"don't ask again for {request.suggested_rule} in this project" in label
        await pilot.press("down", "enter")
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
    assert len(events.of(ev.PermissionRequested)) == 1  # the second call was not asked
    assert len(bash.calls) == 2
    saved = json.loads((workspace / ".eddy" / "settings.local.json").read_text())
    assert saved["permissions"]["allow"] == [request.suggested_rule]


async def test_an_edit_prompt_shows_the_diff_it_would_make(workspace: Path) -> None:
    from tools.edit import TOOL as EDIT
    from tools.read import TOOL as READ

    (workspace / "app.py").write_text("def f():\n    return 1\n")
    edit = {"file_path": "app.py", "old_string": "return 1", "new_string": "return 2"}
    model = ScriptedModel(
        [
            assistant(tool_call("r1", "Read", file_path="app.py")),
            assistant(tool_call("e1", "Edit", **edit)),
            "changed",
        ]
    )
    app, events = make_app(workspace, model, [READ, EDIT])
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "return 2")
        await events.wait_for(ev.PermissionRequested)
        await pilot.pause()
        preview = str(app.query_one(PermissionPrompt).query_one(".perm-preview").render())
        assert "-    return 1" in preview and "+    return 2" in preview
        await pilot.press("1")
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
        block = app.main.conversation.tool_blocks["e1"]
        assert block.state == "done" and block.display_data["kind"] == "diff"
        body = str(block.query_one(".tool-body").render())
        assert "+    return 2" in body and "(+1 -1)" in body
    assert (workspace / "app.py").read_text() == "def f():\n    return 2\n"
