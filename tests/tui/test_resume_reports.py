"""After ``eddy -r``, background work's reports show as they did live (issue 37): the line
``● Background command "build" completed (exit code 0)``, and a turn a report started shows
no prompt of the user's (before, the notification was hidden and that turn's answer seemed to
follow the last one with nothing between)."""

from __future__ import annotations

from pathlib import Path

from agent import events as ev
from agent.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from agent.session.reports import read_notification, shell_report
from frontend.history_events import history_events
from tests.fakes.scripted import ScriptedModel
from tests.helpers.tui import resumed_app, save_session, settle, wait_ready
from tui.widgets.conversation.message_line import MessageLine
from tui.widgets.conversation.user_prompt import UserPrompt

BUILD = shell_report("bash_1", "build", "completed", 0, "/tmp/bash_1.log")
LINT = shell_report("bash_2", "lint <all>", "failed", 2, "")

HISTORY = [
    Message("user", (TextBlock("build it"),)),
    Message(
        "assistant",
        (ToolUseBlock("toolu_1", "Bash", {"command": "make", "run_in_background": True}),),
    ),
    Message("user", (ToolResultBlock("toolu_1", "Started bash_1 in the background."),)),
    Message("assistant", (TextBlock("Started the build."),)),
    Message("user", (TextBlock(BUILD.text),)),  # the turn the report started by itself
    Message("assistant", (TextBlock("The build is done."),)),
    Message("user", (TextBlock("and lint?"), TextBlock(LINT.text))),  # held for a prompt
    Message("assistant", (TextBlock("Lint failed."),)),
]


def test_a_notification_reads_back_as_the_report_it_was() -> None:
    assert read_notification(BUILD.text) == BUILD
    lint = read_notification(LINT.text)
    assert lint is not None and (lint.summary, lint.kind, lint.status) == (
        LINT.summary,
        "shell",
        "failed",
    )
    assert read_notification("<system-reminder>\nplan mode\n</system-reminder>") is None


def test_replayed_reports_show_their_lines_and_start_their_turn() -> None:
    events = list(history_events(HISTORY))
    shown = [
        (type(e).__name__, getattr(e, "summary", getattr(e, "prompt", None)))
        for e in events
        if isinstance(e, ev.BackgroundReported | ev.TurnStarted)
    ]
    assert shown == [
        ("TurnStarted", "build it"),
        ("BackgroundReported", BUILD.summary),
        ("TurnStarted", BUILD.summary),
        ("BackgroundReported", LINT.summary),  # before the prompt, as live
        ("TurnStarted", "and lint?"),
    ]
    started = [e for e in events if isinstance(e, ev.TurnStarted)]
    assert [e.origin for e in started] == ["user", "background", "user"]


async def test_a_resumed_session_shows_the_reports_lines_and_no_hidden_prompt(
    tmp_path: Path,
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    save_session(workspace, HISTORY)
    app, _ = resumed_app(workspace, ScriptedModel([]))
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_ready(app, pilot)
        await settle(app, pilot)
        lines = [line.text for line in app.query(MessageLine)]
        prompts = [str(p.text) for p in app.query(UserPrompt)]
    assert '● Background command "build" completed (exit code 0)' in lines
    assert '● Background command "lint <all>" failed with exit code 2' in lines
    assert not any("task-notification" in p or BUILD.summary in p for p in prompts), prompts
