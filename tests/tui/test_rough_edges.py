"""Issue 37's rough edges in the TUI (Pilot, the real app and session over scripted models)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from agent import events as ev
from agent.store.listing import list_sessions
from tests.fakes.scripted import ScriptedModel, tool_call
from tests.helpers.events import Events
from tests.helpers.tui import SIZE, make_args, resumed_app, settle, type_and_send, wait_ready
from tui.app import EddyApp
from tui.screens.resume import session_label


def saved_app(workspace: Path, model: Any, *extra: str) -> tuple[EddyApp, Events]:
    """The app as ``eddy`` builds it (saved sessions, eddy's tools) over ``model``."""
    events = Events()
    app = EddyApp(make_args(workspace, *extra), model=model, frozen_clock=True, event_hook=events)
    return app, events


def status_text(app: Any) -> str:
    return str(app.main.status.render())


async def test_the_status_line_counts_answered_prompts_as_the_resume_picker_does(
    workspace: Path,
) -> None:
    (workspace / "a.txt").write_text("seen\n")
    model = ScriptedModel(["Hi.", tool_call("t1", "Read", file_path="a.txt"), "Done."])
    app, events = saved_app(workspace, model)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "hello")
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
        assert " · 1 turn" in status_text(app)  # a text answer is a turn (was "0 turns")
        await type_and_send(pilot, "look around")
        await events.wait_for(ev.TurnFinished, 2)
        await settle(app, pilot)
        assert " · 2 turns" in status_text(app)  # one prompt, one turn, tools or not
    (info,) = list_sessions(workspace)
    assert info.turns == 2 and "2 turns" in session_label(info, time.time()).plain
    app, events = resumed_app(workspace, ScriptedModel([]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await settle(app, pilot)
        assert " · 2 turns" in status_text(app)  # the resumed count is the picker's
