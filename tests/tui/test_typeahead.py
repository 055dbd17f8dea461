"""Typeahead: keys typed in one burst act on what was typed, never on a menu that has not
caught up with them (issue 25: ``/c``, a pause, ``ompact``+Enter ran /clear; ``/`` then
``help``+Enter ran /budget; ``@test``+Enter inserted ``@.gitignore``).

The keys are sent as a terminal sends a burst: all posted to the app before any is handled
(``pilot.press`` waits for the app to be idle after each key, which hides the bug).
"""

from __future__ import annotations

import dataclasses
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from textual import events

from agent import events as ev
from agent.messages import TextBlock
from frontend.commands import COMMANDS
from tests.fakes.scripted import ScriptedModel
from tests.helpers.tui import SIZE, make_app, wait_ready
from tui.widgets.conversation.message_line import MessageLine


async def burst(pilot: Any, *keys: str) -> None:
    """Post ``keys`` to the app at once (as the terminal's reader thread does), then wait."""
    app = pilot.app
    for key in keys:
        name = {"/": "slash", "@": "at", ".": "full_stop"}.get(key, key)
        char = key if len(key) == 1 else ("\r" if key == "enter" else None)
        if char is None:
            try:
                char = unicodedata.lookup(key.upper())
            except KeyError:
                char = None
        event = events.Key(name, char)
        event.set_sender(app)
        app._driver.send_message(event)
    await pilot.pause()
    await pilot.pause()


def record_commands(monkeypatch: pytest.MonkeyPatch, *names: str) -> list[str]:
    """Replace the handlers of ``names`` in the command table by recorders: the list of
    commands run, in order."""
    ran: list[str] = []
    for name in names:
        command = COMMANDS[name]

        def record(fe: Any, arg: str, name: str = name) -> None:
            ran.append(name)

        monkeypatch.setitem(COMMANDS, name, dataclasses.replace(command, handler=record))
    return ran


def errors(app: Any) -> list[str]:
    return [line.text for line in app.query(MessageLine) if line.kind == "error"]


async def test_slash_c_then_a_burst_of_ompact_enter_runs_compact(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, _ = make_app(workspace, ScriptedModel([]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        ran = record_commands(monkeypatch, "clear", "compact")
        app.main.prompt.focus()
        await pilot.press("/", "c")  # the menu shows /clear first
        await pilot.pause()
        assert app.main.completion.labels[0] == "/clear"
        await burst(pilot, *"ompact", "enter")
        assert ran == ["compact"]
        assert app.main.prompt.text == ""


async def test_slash_then_a_burst_of_help_enter_runs_help(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, _ = make_app(workspace, ScriptedModel([]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        ran = record_commands(monkeypatch, "help", "agents")
        app.main.prompt.focus()
        await pilot.press("/")
        await pilot.pause()
        assert app.main.completion.labels[0] == "/agents"  # the first, alphabetically
        await burst(pilot, *"help", "enter")
        assert ran == ["help"]


async def test_a_half_typed_command_is_answered_did_you_mean(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, events_ = make_app(workspace, ScriptedModel([]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        ran = record_commands(monkeypatch, "clear", "compact")
        app.main.prompt.focus()
        await burst(pilot, *"/comp", "enter")
        assert ran == []
        assert any("Did you mean /compact?" in t for t in errors(app))
        assert not events_.of(ev.TurnStarted)  # nothing went to the model either


async def test_at_then_a_burst_of_test_enter_never_inserts_a_stale_path(workspace: Path) -> None:
    (workspace / ".gitignore").write_text("*.pyc\n")
    (workspace / "tests").mkdir()
    (workspace / "tests" / "test_x.py").write_text("x = 1\n")
    model = ScriptedModel(["Got it."])
    app, events_ = make_app(workspace, model)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await app.workers.wait_for_complete()  # the file index is built in a thread
        app.main.prompt.focus()
        await pilot.press("@")
        await pilot.pause()
        assert app.main.completion.labels[0] == ".gitignore"
        await burst(pilot, *"test", "enter")
        assert ".gitignore" not in app.main.prompt.text
        assert app.main.prompt.text.startswith("@tests/")  # the menu for "@test" was used
        await burst(pilot, "enter")
        await events_.wait_for(ev.TurnFinished)
    sent = model.requests[-1].messages[-1].content[0]
    assert isinstance(sent, TextBlock) and sent.text.startswith("@tests/")


async def test_a_candidate_picked_with_the_arrows_still_runs_on_enter(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, _ = make_app(workspace, ScriptedModel([]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        ran = record_commands(monkeypatch, "compact", "context", "cost")
        app.main.prompt.focus()
        await pilot.press("/", "c", "o")
        await pilot.pause()
        assert app.main.completion.labels == ["/compact", "/context", "/cost"]
        await burst(pilot, "down", "enter")
        assert ran == ["context"]


async def test_a_burst_with_backspace_and_arrows_edits_in_the_order_typed(
    workspace: Path,
) -> None:
    """The prompt's own bindings act when their key comes: bubbled up to the app, they ran
    after the keys queued behind them (``abc`` Backspace ``d`` gave ``abc``)."""
    app, _ = make_app(workspace, ScriptedModel([]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await burst(pilot, "a", "b", "c", "backspace", "d", "left", "left", "x", "end", "y")
        assert app.main.prompt.text == "axbdy"
