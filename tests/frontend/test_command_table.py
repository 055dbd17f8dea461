"""Every slash command is one entry of frontend.commands.COMMANDS, and each one works in the
full-screen app and in line mode alike (none answers "Unknown command" in either)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from frontend.commands import COMMANDS
from tests.fakes.scripted import ScriptedModel
from tests.helpers.plain import ENTER
from tests.helpers.tui import SIZE, make_args, wait_ready
from tui.widgets.conversation.message_line import MessageLine

SKIPPED_HERE = {
    "exit": "ends the app (tests/e2e and tests/plain exit through it)",
    "quit": "the same handler as /exit",
    "compact": "calls the model (tests/agent/test_compact.py, tests/tui/test_commands.py)",
    "init": "sends a prompt to the model (tests/tui/test_commands.py)",
    "clear": "switches sessions (tests/tui/test_commands.py, tests/plain/test_flows.py)",
}

# what each command says, in both UIs (the TUI's and line mode's wording are the same text)
SAYS: dict[str, tuple[str, str | None]] = {
    "help": ("/help", "/permissions"),
    "rewind": ("/rewind", None),
    "resume": ("/resume", None),
    "rename": ("/rename A title", "Session renamed to “A title”."),
    "model": ("/model", "Model: "),
    "cost": ("/cost", "Total cost:"),
    "context": ("/context", None),
    "budget": ("/budget", "Budget: $0.0000 spent, no cap."),
    "turns": ("/turns", "Turn cap"),
    "permissions": ("/permissions list", "Permission mode: default"),
    "theme": ("/theme", None),
    "memory": ("/memory", "$EDITOR is not set"),
    "output-style": ("/output-style", "Output style: Default."),
    "bashes": ("/bashes", "No background shells or agents."),
    "tasks": ("/tasks", "No background shells or agents."),
    "hooks": ("/hooks", "No hooks are configured"),
    "mcp": ("/mcp", "No MCP servers are configured"),
    "agents": ("/agents", "Explore"),
    "plugin": ("/plugin", "Installed plugins:"),
}
CHECKED = sorted(n for n in COMMANDS if n not in SKIPPED_HERE)


def test_every_command_is_checked_here_or_named_as_checked_elsewhere() -> None:
    assert set(COMMANDS) == set(SAYS) | set(SKIPPED_HERE)


@pytest.mark.parametrize("name", CHECKED)
async def test_the_command_works_in_the_tui(
    name: str, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("EDITOR", raising=False)
    monkeypatch.delenv("VISUAL", raising=False)
    typed, expected = SAYS[name]
    from tui.app import EddyApp

    app = EddyApp(make_args(workspace), model=ScriptedModel([]), frozen_clock=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        before = len(app.query(MessageLine))
        app.main.dispatch(typed)
        await app.workers.wait_for_complete()
        await pilot.pause()
        said = [line.text for line in app.query(MessageLine)][before:]
        assert not any("Unknown command" in t for t in said), said
        assert said or len(app.screen_stack) > 1, f"{typed} did nothing"
        if expected is not None:
            assert any(expected in t for t in said), said


@pytest.mark.parametrize("name", CHECKED)
async def test_the_command_works_in_line_mode(
    name: str, harness: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("EDITOR", raising=False)
    monkeypatch.delenv("VISUAL", raising=False)
    typed, expected = SAYS[name]
    h = harness()
    await h.start()
    before = len(h.output)
    h.type(typed + ENTER)
    if expected is not None:
        await h.printed(expected)
    else:
        from tests.helpers.plain import until

        await until(lambda: len(h.output) > before + 2, what=f"output of {typed}")
    assert "Unknown command" not in h.output[before:]
    h.type(ENTER)  # answers (cancels) a question the command may have asked
    assert await h.exit() == 0


async def test_a_near_miss_is_answered_with_the_nearest_name(harness: Any) -> None:
    h = harness()
    await h.start()
    h.type("/hlep" + ENTER)
    await h.printed("Unknown command /hlep. Did you mean /help?")
    assert await h.exit() == 0
