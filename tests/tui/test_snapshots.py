"""SVG snapshots of every visible state (review the SVGs before --snapshot-update).

Deterministic: fixed size, frozen clock (no spinner, no elapsed time, no blinking cursor),
scripted models with fixed costs, fixed workspace name.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from agent import events as ev
from agent.messages import assistant
from tests.fakes.scripted import ScriptedModel, tool_call
from tests.fakes.tools import FnTool
from tests.helpers.tui import (
    SIZE,
    make_app,
    rendered,
    settle,
    shell_tool,
    type_and_send,
    wait_ready,
)

APP_PY = "def total(xs):\n    s = 0\n    for x in xs:\n        s += x\n    return s - 1\n"
EDIT = {"file_path": "app.py", "old_string": "    return s - 1\n", "new_string": "    return s\n"}


def edit_model() -> ScriptedModel:
    return ScriptedModel(
        [
            assistant("Let me read `app.py`.", tool_call("r1", "Read", file_path="app.py")),
            assistant("`total` subtracts one at the end; fixing:", tool_call("e1", "Edit", **EDIT)),
            "Fixed: `total` now returns the **plain sum**.",
        ],
        cost_per_call=0.01,
    )


def edit_app(workspace: Path, *extra: str) -> tuple[Any, Any]:
    from tools.edit import TOOL as EDIT_TOOL
    from tools.read import TOOL as READ_TOOL

    (workspace / "app.py").write_text(APP_PY)
    return make_app(workspace, edit_model(), [READ_TOOL, EDIT_TOOL], *extra)


def test_idle(snap_compare, workspace: Path) -> None:
    app, _ = make_app(workspace, ScriptedModel([]))

    async def run_before(pilot) -> None:
        await wait_ready(app, pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_mid_turn_with_tool_calls(snap_compare, workspace: Path) -> None:
    grep = FnTool("Grep", lambda a, c: "src/a.py:3: TODO\nsrc/b.py:9: TODO", read_only=True)
    model = ScriptedModel(
        [
            assistant(
                "I'll find the TODOs, then run the tests.",
                tool_call("g1", "Grep", pattern="TODO"),
                tool_call("b1", "Bash", command="pytest -q"),
            )
        ],
        cost_per_call=0.02,
    )
    app, events = make_app(
        workspace, model, [grep, shell_tool()], "--permission-mode", "bypassPermissions"
    )

    async def run_before(pilot) -> None:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "fix the TODOs")
        await events.wait_for(ev.ToolOutputDelta)
        await type_and_send(pilot, "skip the slow tests")
        await events.wait_for(ev.QueueChanged)
        await rendered(app, pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_edit_diff(snap_compare, workspace: Path) -> None:
    app, events = edit_app(workspace, "--permission-mode", "acceptEdits")

    async def run_before(pilot) -> None:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "total is off by one")
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_permission_prompt(snap_compare, workspace: Path) -> None:
    app, events = edit_app(workspace)

    async def run_before(pilot) -> None:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "total is off by one")
        await events.wait_for(ev.PermissionRequested)
        await rendered(app, pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


@pytest.mark.parametrize("theme", ["eddy-dark", "eddy-light", "eddy-high-contrast"])
def test_each_theme(snap_compare, workspace: Path, theme: str) -> None:
    app, events = edit_app(workspace, "--permission-mode", "acceptEdits")

    async def run_before(pilot) -> None:
        app.theme = theme
        await wait_ready(app, pilot)
        await type_and_send(pilot, "total is off by one")
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
        await asyncio.sleep(0)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
