"""SVG snapshots of the screens and states tests/tui/test_snapshots.py does not show.

The /permissions dialog, the trust question, an interrupted turn, the compaction line, an error
line, queued corrections, the todo list, expanded thinking, the "earlier messages" line and the
status line with caps. Deterministic as there: fixed size, frozen clock, scripted models with
fixed costs, the workspace named "project"; paths that would name the machine's temporary
directory are replaced. Review the SVGs before ``--snapshot-update``.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from agent import events as ev
from agent.messages import ThinkingBlock, assistant, user
from agent.model.protocol import ModelError
from tests.fakes.scripted import ScriptedModel, tool_call
from tests.fakes.tools import FnTool
from tests.helpers.tui import (
    SIZE,
    StreamThenStall,
    make_app,
    rendered,
    resumed_app,
    save_session,
    settle,
    shell_tool,
    type_and_send,
    wait_ready,
)

TODOS = [
    {"content": "Read the failing test", "status": "completed", "activeForm": "Reading the test"},
    {"content": "Fix the rounding in total()", "status": "in_progress", "activeForm": "Fixing"},
    {"content": "Run the whole suite", "status": "pending", "activeForm": "Running the suite"},
]


async def wait_screen(app: Any, pilot: Any, cls: type) -> Any:
    """The pushed screen of type ``cls``, once it is on top (a few frames at most)."""
    for _ in range(200):
        if isinstance(app.screen, cls):
            await pilot.pause()
            return app.screen
        await pilot.pause()
    raise AssertionError(f"{cls.__name__} never showed (screen: {app.screen})")


def test_permissions_dialog(snap_compare, workspace: Path) -> None:
    from tui.screens.permissions import PermissionsScreen

    settings = {"permissions": {"allow": ["Bash(npm run test:*)", "Edit(src/**)"]}}
    (workspace / ".eddy").mkdir()
    (workspace / ".eddy" / "settings.json").write_text(json.dumps(settings))
    app, _ = make_app(workspace, ScriptedModel([]))

    async def run_before(pilot) -> None:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "/permissions")
        await wait_screen(app, pilot, PermissionsScreen)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_trust_question(snap_compare, workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agent.settings import trust
    from tui.screens.trust import TrustScreen

    monkeypatch.delenv("EDDY_TRUSTED_FOLDERS")
    (workspace / ".eddy").mkdir()
    (workspace / ".eddy" / "settings.json").write_text(
        json.dumps({"permissions": {"allow": ["Bash(make deploy)"]}})
    )
    real_question = trust.question

    def question(folder: Path) -> list[str]:  # the tmp path differs on each run
        where = str(Path(folder).resolve())
        return [line.replace(where, "/home/dev/project") for line in real_question(folder)]

    monkeypatch.setattr(trust, "question", question)
    app, _ = make_app(workspace, ScriptedModel(["unused"]))

    async def run_before(pilot) -> None:
        await wait_screen(app, pilot, TrustScreen)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_interrupted_turn(snap_compare, workspace: Path) -> None:
    model = StreamThenStall("I'll start by reading the configuration, then the " * 2, None)
    app, events = make_app(workspace, model)

    async def run_before(pilot) -> None:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "tidy the config loader")
        await model.streaming.wait()
        await pilot.pause()
        await pilot.press("escape")
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_compaction_line(snap_compare, workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """After /compact the status line shows the estimated context, which counts the system
    prompt: it names a fixed folder here, not the temporary one (its length varies)."""
    from agent import open as front_door

    real_prompt = front_door.system_prompt

    def system_prompt(cwd: Path, memory: str = "", today: Any = None, style: Any = None) -> str:
        return real_prompt(Path("/home/dev/project"), memory, today, style)

    monkeypatch.setattr(front_door, "system_prompt", system_prompt)
    model = ScriptedModel(
        ["Hi! What shall we work on?", "GOAL: greet. DECISIONS: none."], cost_per_call=0.01
    )
    app, events = make_app(workspace, model)

    async def run_before(pilot) -> None:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "hello")
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
        await type_and_send(pilot, "/compact keep the greeting")
        await events.wait_for(ev.Compacted)
        await app.session.wait_idle()
        await app.workers.wait_for_complete()
        await rendered(app, pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_error_line(snap_compare, workspace: Path) -> None:
    error = ModelError("overloaded", "The API is overloaded; wait a moment and send a message.")
    app, events = make_app(workspace, ScriptedModel([error]))

    async def run_before(pilot) -> None:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "hello")
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_queued_corrections(snap_compare, workspace: Path) -> None:
    """Two corrections typed while a command runs: both listed above the prompt, editable."""
    model = ScriptedModel(
        [assistant("Running the tests first.", tool_call("b1", "Bash", command="pytest -q"))],
        cost_per_call=0.02,
    )
    app, events = make_app(
        workspace, model, [shell_tool()], "--permission-mode", "bypassPermissions"
    )

    async def run_before(pilot) -> None:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "make the tests pass")
        await events.wait_for(ev.ToolOutputDelta)
        await type_and_send(pilot, "only the unit tests")
        await events.wait_for(ev.QueueChanged)
        await type_and_send(pilot, "and do not touch the fixtures")
        await events.wait_for(ev.QueueChanged, 2)
        await rendered(app, pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_corrections_delivered(snap_compare, workspace: Path) -> None:
    """The queued correction went to the model after the command's result; it shows as sent."""
    release = asyncio.Event()
    model = ScriptedModel(
        [
            assistant("Running the tests first.", tool_call("b1", "Bash", command="pytest -q")),
            "Only the unit tests, then: all 12 pass.",
        ],
        cost_per_call=0.02,
    )
    app, events = make_app(
        workspace, model, [shell_tool(release)], "--permission-mode", "bypassPermissions"
    )

    async def run_before(pilot) -> None:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "make the tests pass")
        await events.wait_for(ev.ToolOutputDelta)
        await type_and_send(pilot, "only the unit tests")
        await events.wait_for(ev.QueueChanged)
        release.set()
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_todo_list(snap_compare, workspace: Path) -> None:
    from tools.todo import TOOL as TODO_TOOL

    model = ScriptedModel(
        [assistant("Here is the plan.", tool_call("t1", "TodoWrite", todos=TODOS)), "On it."],
        cost_per_call=0.01,
    )
    app, events = make_app(workspace, model, [TODO_TOOL])

    async def run_before(pilot) -> None:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "fix the rounding bug")
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_expanded_thinking(snap_compare, workspace: Path) -> None:
    from tui.widgets.conversation.thinking import Thinking

    thought = (
        "The user wants the sum without the off-by-one. total() subtracts 1 at the end, "
        "which looks like a leftover from an index-based loop. Removing it is enough."
    )
    model = ScriptedModel(
        [assistant(ThinkingBlock(thought, "sig"), "`total` had a stray `- 1`; remove it.")],
        cost_per_call=0.01,
    )
    app, events = make_app(workspace, model)

    async def run_before(pilot) -> None:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "why is total off by one?")
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
        await pilot.click(Thinking)
        await pilot.pause()
        assert app.query_one(Thinking).expanded

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_earlier_messages(snap_compare, workspace: Path) -> None:
    """A resumed long session: the newest messages, the "earlier messages" line above them."""
    from tui.replay import EarlierMessages

    history = [m for n in range(30) for m in (user(f"prompt {n}"), assistant(f"answer {n}"))]
    save_session(workspace, history)
    app, _ = resumed_app(workspace, ScriptedModel([]))

    async def run_before(pilot) -> None:
        await wait_ready(app, pilot)
        await rendered(app, pilot)
        assert app.main.conversation.query(EarlierMessages)

    # tall enough that the banner, the line and the newest messages all show (scrolling to the
    # top would render the earlier messages instead of showing the line)
    assert snap_compare(app, terminal_size=(100, 60), run_before=run_before)


def test_status_line_with_caps(snap_compare, workspace: Path) -> None:
    """A budget and a turn cap in the status line; the turn stopped at the cap says so."""
    probe = FnTool("Probe", lambda a, c: "still failing", read_only=True)
    model = ScriptedModel(
        [assistant("Probing.", tool_call(f"p{i}", "Probe", n=i)) for i in range(3)],
        cost_per_call=0.05,
    )
    app, events = make_app(workspace, model, [probe], "--max-turns", "1", "--max-budget-usd", "2")

    async def run_before(pilot) -> None:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "find the flaky test")
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
