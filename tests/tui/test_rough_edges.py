"""Issue 37's rough edges in the TUI (Pilot, the real app and session over scripted models)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from agent import events as ev
from agent.messages import assistant
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
    model = ScriptedModel(
        ["Hi.", assistant("Reading.", tool_call("t1", "Read", file_path="a.txt")), "Done."]
    )
    app, events = saved_app(workspace, model)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "hello")
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
        assert " · 1 turn" in status_text(app)  # a text answer is a turn (was "0 turns")
        await type_and_send(pilot, "look around")
        finished = await events.wait_for(ev.TurnFinished, 2)
        await settle(app, pilot)
        assert finished.subtype == "success" and finished.num_turns == 1
        assert " · 2 turns" in status_text(app)  # one prompt, one turn, tools or not
    (info,) = list_sessions(workspace)
    assert info.turns == 2 and "2 turns" in session_label(info, time.time()).plain
    app, events = resumed_app(workspace, ScriptedModel([]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await settle(app, pilot)
        assert " · 2 turns" in status_text(app)  # the resumed count is the picker's


async def test_the_tui_shows_only_the_hooks_that_act(workspace: Path) -> None:
    from tests.agent.hooks.scripts import hook_settings, on, script
    from tui.widgets.conversation.hook_run import HookRunBlock

    passes = script(workspace, "pass.sh", "cat >/dev/null; exit 0\n")
    blocks = script(workspace, "block.sh", "cat >/dev/null; echo 'not here' >&2; exit 2\n")
    hook_settings(workspace, on("PreToolUse", "Bash", passes, blocks))
    model = ScriptedModel([assistant("", tool_call("t1", "Bash", command="echo hi")), "Stopped."])
    app, events = saved_app(workspace, model)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "run it")
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
        assert len(events.of(ev.HookRan)) == 2
        (block,) = app.query(HookRunBlock)  # the one that blocked; the one that passed: none
        assert "exit 2, blocked" in block.title


async def test_a_custom_command_shows_as_typed_and_the_model_reads_its_body(
    workspace: Path,
) -> None:
    from tui.widgets.conversation.user_prompt import UserPrompt

    commands = workspace / ".eddy" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text("Review $ARGUMENTS for bugs; list each with a fix.\n")
    model = ScriptedModel(["Looks fine."])
    app, events = saved_app(workspace, model)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "/review calc.py")
        started = await events.wait_for(ev.TurnStarted)
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
        assert started.shown == "/review calc.py"
        assert started.prompt == "Review calc.py for bugs; list each with a fix.\n"
        shown = [p.text for p in app.main.conversation.query(UserPrompt)]
        assert shown == ["/review calc.py"]  # not the expanded body
        assert "Review calc.py for bugs" in str(model.requests[0].messages[-1].content)


SLOW_SHELL = (
    "for i in 1 2 3; do echo line-$i; done; while [ ! -e go ]; do sleep 0.05; done; echo after-go"
)


@contextlib.asynccontextmanager
async def _a_background_shell(
    workspace: Path, command: str
) -> AsyncIterator[tuple[EddyApp, Any, Any]]:
    """The app once the model started ``command`` as background shell ``bash_1`` and its
    turn ended: the app, its pilot and the shell."""
    call = tool_call("t1", "Bash", command=command, run_in_background=True)
    model = ScriptedModel([assistant("Starting.", call), "Started."])
    app, events = saved_app(workspace, model, "--permission-mode", "bypassPermissions")
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "start it")
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
        yield app, pilot, app.session.shells.shells["bash_1"]


async def test_bashes_id_shows_a_shells_output_live_without_reading_it_for_the_model(
    workspace: Path,
) -> None:
    from tests.helpers.wait import until
    from tui.screens.shell_output import ShellOutputScreen

    async with _a_background_shell(workspace, SLOW_SHELL) as (app, pilot, shell):
        await until(lambda: "line-3" in shell.log.tail(1000), what="the first lines")
        await type_and_send(pilot, "/tasks bash_1")
        await until(lambda: isinstance(app.screen, ShellOutputScreen), what="the output screen")
        screen = app.screen
        assert screen.lines[0].startswith("bash_1") and "running" in screen.lines[0]
        assert screen.lines[1:4] == ["  line-1", "  line-2", "  line-3"]
        (workspace / "go").touch()
        await until(lambda: "  after-go" in screen.lines, what="the new line, live")
        await until(lambda: "ended" in str(screen.query_one("#shell-output-title").render()))
        assert "line-1" in "".join(shell.unread)  # still unread for the model's BashOutput
        await pilot.press("escape")
        await until(lambda: app.screen is app.main, what="the main screen")


async def test_bashes_id_opened_before_any_output_shows_the_first_line_as_the_kernel_tells_it(
    workspace: Path, monkeypatch: Any
) -> None:
    """Before its first output a shell's log has no file: the screen watches the folder it is
    made in, then the file (no timer: polling is pushed out of reach), and stops at the exit."""
    from tests.helpers.wait import until
    from tui.screens import follow
    from tui.screens.shell_output import ShellOutputScreen

    monkeypatch.setattr(follow, "POLL_SECONDS", 3600.0)
    quiet = "while [ ! -e go ]; do sleep 0.05; done; echo first-words; sleep 0.2; echo bye"
    async with _a_background_shell(workspace, quiet) as (app, pilot, shell):
        await type_and_send(pilot, "/tasks bash_1")
        screen = await until(lambda: isinstance(app.screen, ShellOutputScreen) and app.screen)
        assert shell.log.path is None and screen.watching  # no file yet: its folder
        assert screen.lines[-1] == "  (no output yet)"
        (workspace / "go").touch()
        await until(lambda: "  first-words" in screen.lines, what="the first line, live")
        await until(lambda: screen.ended, what="the shell's end")
        assert "  bye" in screen.lines and not screen.following


async def test_exit_names_the_background_shells_it_stops(workspace: Path) -> None:
    async with _a_background_shell(workspace, "sleep 300") as (app, pilot, shell):
        await type_and_send(pilot, "/exit")
    # what run_app prints once the screen is back (and before "Session saved")
    assert app.stopping == "Stopping 1 background task: shell bash_1 (sleep 300)."
    assert shell.status == "killed"


async def test_a_resumed_session_says_which_shells_are_gone(workspace: Path) -> None:
    from tui.widgets.conversation.message_line import MessageLine

    call = tool_call("t1", "Bash", command="sleep 300", run_in_background=True)
    app, events = saved_app(
        workspace,
        ScriptedModel([assistant("Starting.", call), "Started."]),
        "--permission-mode",
        "bypassPermissions",
    )
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "start it")
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
    model = ScriptedModel(["It stopped with eddy."])
    app, events = resumed_app(workspace, model)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await settle(app, pilot)
        lines = [line.text for line in app.query(MessageLine)]
        gone = "Background shells of the earlier run ended when eddy exited: bash_1 (sleep 300)."
        assert any(gone in t for t in lines)
        await type_and_send(pilot, "is it running?")
        await events.wait_for(ev.TurnFinished)
        sent = str(model.requests[0].messages[-1].content)
        assert "shells of its earlier run were stopped" in sent and "bash_1" in sent


async def test_exit_typed_at_a_permission_question_exits_and_is_no_reason(
    workspace: Path,
) -> None:
    import asyncio

    from tests.helpers.tui import make_app, shell_tool
    from tests.helpers.wait import until
    from tui.widgets.conversation.permission_prompt import PermissionPrompt

    done = asyncio.Event()
    done.set()
    bash = shell_tool(done)
    model = ScriptedModel([assistant(tool_call("c0", "Bash", command="make")), "done"])
    app, events = make_app(workspace, model, [bash])
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "build")
        await events.wait_for(ev.PermissionRequested)
        await pilot.pause()
        assert app.focused is app.query_one(PermissionPrompt)
        await pilot.press(*"/exit", "enter")  # typed into the question's reason field
        await until(lambda: app.return_code is not None, what="the app's exit")
    assert app.return_code == 0 and bash.calls == []
    assert not [r for r in events.of(ev.PermissionResolved) if r.decision == "deny"]
    assert len(model.requests) == 1  # "/exit" never reached the model as a refusal's reason
