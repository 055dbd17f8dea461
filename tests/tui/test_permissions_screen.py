"""/permissions: view, add and remove rules (dialog and text forms); the session obeys at once."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from agent import events as ev
from agent.messages import ToolResultBlock, assistant
from agent.permissions.policy import Rule
from tests.fakes.scripted import ScriptedModel, tool_call
from tests.helpers.tui import SIZE, make_app, settle, shell_tool, type_and_send, wait_ready
from tui.screens.permissions import PermissionsScreen
from tui.widgets.conversation.message_line import MessageLine

LOCAL = ".eddy/settings.local.json"
PROJECT = ".eddy/settings.json"


def texts(app: Any, kind: str | None = None) -> list[str]:
    return [line.text for line in app.main.query(MessageLine) if kind is None or kind == line.kind]


def bash_turns(*commands: str) -> ScriptedModel:
    """One prompt per command: the model runs it, then says done."""
    items: list[Any] = []
    for i, command in enumerate(commands):
        items += [assistant(tool_call(f"c{i}", "Bash", command=command)), f"done {i}"]
    return ScriptedModel(items)


def ran_bash() -> Any:
    release = asyncio.Event()
    release.set()
    return shell_tool(release)


def rules_in(path: Path, kind: str) -> list[str]:
    if not path.exists():
        return []
    return list(json.loads(path.read_text()).get("permissions", {}).get(kind, []))


async def open_dialog(app: Any, pilot: Any, arg: str = "") -> PermissionsScreen:
    await type_and_send(pilot, f"/permissions {arg}".strip())
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, PermissionsScreen)
    return screen


def message(screen: PermissionsScreen) -> str:
    return str(screen.query_one("#perm-message").render())


def rule_labels(screen: PermissionsScreen) -> list[str]:
    options = screen.query_one("#perm-rules")
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


async def prompt_and_finish(app: Any, pilot: Any, events: Any, text: str, n: int) -> None:
    await type_and_send(pilot, text)
    await events.wait_for(ev.TurnFinished, n)
    await settle(app, pilot)


@pytest.mark.slow
async def test_added_allow_rule_is_saved_to_the_chosen_file_and_the_next_call_runs(
    workspace: Path,
) -> None:
    bash = ran_bash()
    app, events = make_app(workspace, bash_turns("npm run test -- -x"), [bash])
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        screen = await open_dialog(app, pilot)
        assert "+ Add a new rule" in rule_labels(screen)[0]
        await pilot.press("a")
        await pilot.press(*"Bash(npm run test:*)", "enter")
        await pilot.pause()
        assert screen.step == "where"
        await pilot.press("a", "left")  # list keys do nothing while a file is chosen
        assert screen.step == "where" and screen.kind == "allow"
        await pilot.press("down", "enter")  # local, project, user: the shared project file
        await pilot.pause()
        assert rules_in(workspace / PROJECT, "allow") == ["Bash(npm run test:*)"]
        assert not (workspace / LOCAL).exists()
        shown = message(screen)
        assert "Saved allow rule Bash(npm run test:*) to .eddy/settings.json" in shown
        assert any("Bash(npm run test:*)" in x and PROJECT in x for x in rule_labels(screen))
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, PermissionsScreen)
        assert any("to .eddy/settings.json" in t for t in texts(app, "notice"))
        assert app.focused is app.main.prompt
        await prompt_and_finish(app, pilot, events, "run the tests", 1)
    assert events.of(ev.PermissionRequested) == []
    assert bash.calls == [{"command": "npm run test -- -x"}]


async def test_added_deny_rule_refuses_the_next_call_without_asking(workspace: Path) -> None:
    bash = ran_bash()
    model = bash_turns("rm -rf build")
    app, events = make_app(workspace, model, [bash])
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        screen = await open_dialog(app, pilot)
        await pilot.press("right", "right")  # allow -> ask -> deny
        assert screen.kind == "deny"
        await pilot.press("enter")  # "Add a new rule…" is highlighted
        await pilot.press(*"Bash(rm:*)", "enter")
        await pilot.pause()
        await pilot.press("down", "down", "enter")  # the user file
        await pilot.pause()
        user_file = workspace.parent / "config" / "settings.json"
        assert rules_in(user_file, "deny") == ["Bash(rm:*)"]
        assert "Saved deny rule Bash(rm:*)" in message(screen)
        await pilot.press("escape")
        await prompt_and_finish(app, pilot, events, "clean up", 1)
    assert events.of(ev.PermissionRequested) == []
    assert bash.calls == []
    result = model.requests[1].messages[-1].content[0]
    assert isinstance(result, ToolResultBlock) and result.is_error
    assert "denied by the permission rule Bash(rm:*)" in str(result.content)


async def test_removed_rule_leaves_its_file_and_the_call_asks_again(workspace: Path) -> None:
    local = workspace / LOCAL
    local.parent.mkdir()
    local.write_text(json.dumps({"model": "m", "permissions": {"allow": ["Bash(make:*)"]}}))
    bash = ran_bash()
    app, events = make_app(workspace, bash_turns("make all", "make all"), [bash])
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await prompt_and_finish(app, pilot, events, "build", 1)
        assert events.of(ev.PermissionRequested) == []  # the rule allows it
        screen = await open_dialog(app, pilot)
        assert any("Bash(make:*)" in x and LOCAL in x for x in rule_labels(screen))
        await pilot.press("down", "d")
        await pilot.pause()
        assert json.loads(local.read_text()) == {"model": "m", "permissions": {"allow": []}}
        assert "Removed allow rule Bash(make:*) from .eddy/settings.local.json" in message(screen)
        assert len(rule_labels(screen)) == 1  # only "Add a new rule…"
        await pilot.press("escape")
        await type_and_send(pilot, "build again")
        request = await events.wait_for(ev.PermissionRequested)
        assert request.input == {"command": "make all"}
        await pilot.pause()
        await pilot.press("1")
        await events.wait_for(ev.TurnFinished, 2)
        await settle(app, pilot)
    assert len(bash.calls) == 2


@pytest.mark.slow
async def test_invalid_rule_text_says_why_and_writes_nothing(workspace: Path) -> None:
    app, _ = make_app(workspace, ScriptedModel([]), [ran_bash()])
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        screen = await open_dialog(app, pilot)
        await pilot.press("a")
        await pilot.press(*"Bash(cat data", "enter")  # a and d are typed, not keys
        await pilot.pause()
        assert screen.step == "rule"
        assert "Not a valid rule" in message(screen) and "Bash(cat data" in message(screen)
        assert screen.query_one("#perm-message").has_class("error")
        await pilot.press(*["backspace"] * len("Bash(cat data"), *"Bash()", "enter")
        await pilot.pause()
        assert screen.step == "rule" and "empty specifier" in message(screen)
        await pilot.press("escape", "escape")
        await pilot.pause()
        assert not isinstance(app.screen, PermissionsScreen)
        await type_and_send(pilot, "/permissions allow Bash(")
        await pilot.pause()
        assert any("Not a valid rule" in t for t in texts(app, "error"))
        assert app.session.config.policy.allow == []
    assert not (workspace / ".eddy").exists()
    assert not (workspace.parent / "config" / "settings.json").exists()


async def test_command_line_rules_are_shown_but_cannot_be_removed(workspace: Path) -> None:
    app, _ = make_app(
        workspace, ScriptedModel([]), [ran_bash()], "--allowed-tools", "Bash(git status)"
    )
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        screen = await open_dialog(app, pilot)
        labels = rule_labels(screen)
        assert "Bash(git status)" in labels[1] and "--allowed-tools" in labels[1]
        await pilot.press("down", "d")
        await pilot.pause()
        assert "cannot be removed" in message(screen)
        assert "Bash(git status)" in rule_labels(screen)[1]
        await pilot.press("escape")
        await type_and_send(pilot, "/permissions remove Bash(git status)")
        await pilot.pause()
        assert any("cannot be removed" in t for t in texts(app, "error"))
        assert app.session.config.policy.allow == [Rule.parse("Bash(git status)")]


async def test_text_forms_add_list_and_remove(workspace: Path) -> None:
    app, _ = make_app(workspace, ScriptedModel([]), [ran_bash()], "--disallowed-tools", "Write")
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        policy = app.session.config.policy
        await type_and_send(pilot, "/permissions ask Bash(git push:*)")
        await type_and_send(pilot, "/permissions allow --project Edit(src/**)")
        await pilot.pause()
        assert rules_in(workspace / LOCAL, "ask") == ["Bash(git push:*)"]
        assert rules_in(workspace / PROJECT, "allow") == ["Edit(src/**)"]
        assert policy.ask == [Rule.parse("Bash(git push:*)")]
        assert policy.allow == [Rule.parse("Edit(src/**)")]
        notices = texts(app, "notice")
        assert any(
            "Saved ask rule Bash(git push:*) to .eddy/settings.local.json" in t for t in notices
        )
        await type_and_send(pilot, "/permissions list")
        await pilot.pause()
        listing = next(t for t in texts(app) if t.startswith("Permission mode: default"))
        assert "allow: Edit(src/**) (.eddy/settings.json)" in listing
        assert "ask:   Bash(git push:*) (.eddy/settings.local.json)" in listing
        assert "deny:  Write (--disallowed-tools (command line, read-only))" in listing
        await type_and_send(pilot, "/permissions remove Edit(src/**)")
        await pilot.pause()
        assert rules_in(workspace / PROJECT, "allow") == []
        assert policy.allow == []
        assert any(
            "Removed allow rule Edit(src/**) from .eddy/settings.json" in t for t in texts(app)
        )
        await type_and_send(pilot, "/permissions deny Bash(useradd --user:*) --user")
        await pilot.pause()
        user_file = workspace.parent / "config" / "settings.json"
        assert rules_in(user_file, "deny") == ["Bash(useradd --user:*)"]
        await type_and_send(pilot, "/permissions maybe Edit")
        await pilot.pause()
        assert any(t.startswith("Usage: /permissions") for t in texts(app, "error"))
