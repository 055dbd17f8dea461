"""Slash commands with completion, !commands, @-completion, Shift+Tab, caps and compaction."""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from agent import events as ev
from agent.messages import TextBlock, assistant, check_invariant
from tests.fakes.scripted import ScriptedModel, tool_call
from tests.helpers.tui import SIZE, make_app, settle, type_and_send, wait_ready
from tools import default_tools
from tui.widgets.conversation.message_line import MessageLine
from tui.widgets.conversation.tool_call import ToolCallBlock
from tui.widgets.prompt.completion import token_at


def texts(app: Any, kind: str | None = None) -> list[str]:
    return [line.text for line in app.query(MessageLine) if kind is None or line.kind == kind]


def status_text(app: Any) -> str:
    return str(app.main.status.render())


async def typed(pilot: Any, text: str) -> None:
    """Type ``text`` key by key (completion follows typing) and let the menu update."""
    pilot.app.main.prompt.focus()
    await pilot.press(*text)
    await pilot.pause()


# -- completion -------------------------------------------------------------------------------
def test_token_at() -> None:
    assert token_at("/re", (0, 3)) == token_at("/re", (0, 3))
    t = token_at("/re", (0, 3))
    assert t is not None and (t.kind, t.start, t.end, t.query) == ("command", 0, 3, "re")
    assert token_at("/usr/bin/x", (0, 10)) is None  # a path, not a command
    assert token_at("/compact keep the tests", (0, 23)) is None
    assert token_at("look at @src/ma", (0, 15)).query == "src/ma"  # type: ignore[union-attr]
    m = token_at("a\nsee @my\\ fi", (1, 12))
    assert m is not None and (m.kind, m.row, m.start, m.query) == ("path", 1, 4, "my fi")
    assert token_at("mail me@example.com", (0, 19)) is None  # @ inside a word
    assert token_at("x @a b", (0, 6)) is None  # the cursor left the mention


async def test_slash_completion_shows_matches_and_completes(workspace: Path) -> None:
    app, events = make_app(workspace, ScriptedModel([]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        menu = app.main.completion
        await typed(pilot, "/re")
        assert menu.shown and menu.display
        assert menu.labels == ["/rename", "/resume", "/rewind"]
        await pilot.press("down", "down", "tab")
        assert app.main.prompt.text == "/rewind "
        assert not menu.shown
        assert app.focused is app.main.prompt
        app.main.prompt.load_text("")
        await pilot.pause()
        # Enter runs what is typed: a half-typed command is answered, not guessed
        await typed(pilot, "/cos")
        assert menu.labels == ["/cost"]
        await pilot.press("enter")
        await pilot.pause()
        assert any("Did you mean /cost?" in t for t in texts(app, "error"))
        assert not any(t.startswith("Total cost:") for t in texts(app))
        # ... and a candidate picked with the arrows is taken and run
        await typed(pilot, "/cos")
        await pilot.press("down", "enter")
        await pilot.pause()
        assert any(t.startswith("Total cost:") for t in texts(app))
        assert app.main.prompt.text == ""
        # Esc closes the menu and leaves the text
        await typed(pilot, "/he")
        assert menu.shown
        await pilot.press("escape")
        assert not menu.shown and app.main.prompt.text == "/he"
        assert not events.of(ev.TurnStarted)


async def test_history_recall_does_not_open_the_menu(workspace: Path) -> None:
    app, _ = make_app(workspace, ScriptedModel([]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "/cost")
        await pilot.pause()
        await pilot.press("up")
        await pilot.pause()
        assert app.main.prompt.text == "/cost"
        assert not app.main.completion.shown


async def test_cost_and_context_print_their_lines(workspace: Path) -> None:
    app, events = make_app(workspace, ScriptedModel(["Hi."], cost_per_call=0.25))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "hello")
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
        await type_and_send(pilot, "/cost")
        await type_and_send(pilot, "/context")
        await pilot.pause()
        cost = next(t for t in texts(app) if t.startswith("Total cost:"))
        assert "$0.2500" in cost and "Output tokens:" in cost and "Turns:" in cost
        context = next(t for t in texts(app) if t.startswith("system prompt"))
        for part in ("memory files", "tools", "messages", "tool results", "cache hit rate"):
            assert part in context
        assert len(events.of(ev.TurnStarted)) == 1


async def test_budget_cap_stops_the_turn_and_can_be_raised(workspace: Path) -> None:
    model = ScriptedModel(
        [assistant("Let me look.", tool_call("p1", "Probe")), "Done looking."],
        cost_per_call=2.0,
    )
    app, events = make_app(workspace, model)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "/budget 1")
        await pilot.pause()
        assert app.session.config.limits.max_budget_usd == 1.0
        assert "of $1.00 budget" in status_text(app)
        await type_and_send(pilot, "look around")
        finished = await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
        assert finished.subtype == "error_max_budget_usd"
        notice = next(t for t in texts(app, "notice") if t.startswith("Stopped"))
        assert "$1.0000 budget" in notice
        advice = next(t for t in texts(app, "hint") if "raise it with /budget" in t)
        assert "$1.00 budget" in advice
        await type_and_send(pilot, "/budget 10")
        await pilot.pause()
        assert "of $10.00 budget" in status_text(app)
        await type_and_send(pilot, "go on")
        second = await events.wait_for(ev.TurnFinished, 2)
        assert second.subtype == "success"
        await type_and_send(pilot, "/budget 0")
        await pilot.pause()
        assert app.session.config.limits.max_budget_usd is None
        assert "budget" not in status_text(app)
    check_invariant(model.requests[-1].messages)


async def test_turn_cap_stops_and_says_how_to_raise_it(workspace: Path) -> None:
    from tests.fakes.tools import FnTool

    probe = FnTool("Probe", lambda a, c: "ok", read_only=True)
    calls = [assistant(tool_call(f"p{i}", "Probe")) for i in range(3)]
    app, events = make_app(workspace, ScriptedModel([*calls, "done"]), [probe])
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "/turns 1")
        await pilot.pause()
        assert "(max 1 per prompt)" in status_text(app)
        await type_and_send(pilot, "probe a lot")
        finished = await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
        assert finished.subtype == "error_max_turns"
        assert any("/turns N" in t for t in texts(app, "hint"))


async def test_compact_renders_the_compaction_notice(workspace: Path) -> None:
    model = ScriptedModel(["Hi there.", "GOAL: greet. DECISIONS: none."])
    app, events = make_app(workspace, model)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "hello")
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
        await type_and_send(pilot, "/compact keep the greeting")
        compacted = await events.wait_for(ev.Compacted)
        await app.session.wait_idle()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not compacted.automatic
        assert "keep the greeting" in str(model.requests[-1].messages[-1].content[-1])
        assert any("Compacting the conversation" in t for t in texts(app))
        assert any(t.startswith("Conversation compacted") for t in texts(app))
        assert app.main.status.working_since is None  # the spinner stopped


async def test_compaction_failure_is_a_readable_line(workspace: Path) -> None:
    failure = RuntimeError("the summary call failed")
    app, events = make_app(workspace, ScriptedModel(["Hi.", failure]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "hello")
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
        await type_and_send(pilot, "/compact")
        await events.wait_for(ev.Error)
        await app.session.wait_idle()
        await pilot.pause()
        assert any("Compaction failed" in t for t in texts(app, "error"))


async def test_compact_on_an_empty_conversation_says_there_is_nothing_to_compact(
    workspace: Path,
) -> None:
    model = ScriptedModel([])
    app, events = make_app(workspace, model)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "/compact")
        await settle(app, pilot)
        assert "Nothing to compact yet: the conversation is empty." in texts(app)
        assert not any("Compact" in t for t in texts(app))  # neither "Compacting…" nor failed
        assert not events.of(ev.Error) and model.requests == []


async def test_bang_runs_a_shell_command_as_a_bash_block(workspace: Path) -> None:
    model = ScriptedModel(["I see the output."])
    app, events = make_app(workspace, model, default_tools())
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "!echo hi")
        finished = await events.wait_for(ev.ToolCallFinished)
        await app.session.wait_idle()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert finished.name == "Bash" and finished.status == "done"
        (block,) = app.query(ToolCallBlock)
        assert block.tool_name == "Bash" and block.state == "done"
        assert "hi" in block.output
        assert "echo hi" in str(block.query_one(".tool-header").render())
        assert not events.of(ev.TurnStarted)
        assert app.main.status.working_since is None
        await type_and_send(pilot, "what did it print?")
        await events.wait_for(ev.TurnFinished)
    sent = model.requests[-1].messages
    check_invariant(sent)
    assert "<bash-input>echo hi</bash-input>" in sent[-1].content[0].text  # type: ignore[union-attr]


async def test_at_completion_inserts_a_path(workspace: Path) -> None:
    (workspace / "src").mkdir()
    (workspace / "src" / "widget.py").write_text("x = 1\n")
    (workspace / "README.md").write_text("# hi\n")
    model = ScriptedModel(["Got it."])
    app, events = make_app(workspace, model)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await app.workers.wait_for_complete()  # the file index is built in a thread
        assert app.main.file_index is not None
        await typed(pilot, "look at @wid")
        assert app.main.completion.labels[0] == "src/widget.py"
        await pilot.press("tab")
        assert app.main.prompt.text == "look at @src/widget.py "
        await typed(pilot, "please")
        await pilot.press("enter")
        await events.wait_for(ev.TurnFinished)
    sent = model.requests[-1].messages[-1]
    assert sent.content[0] == TextBlock("look at @src/widget.py please")
    assert any("x = 1" in b.text for b in sent.content if isinstance(b, TextBlock))


async def test_at_completion_on_a_large_tree_searches_off_the_keystroke(workspace: Path) -> None:
    from frontend.fileindex import FileIndex
    from tui.screens.main_completion import SEARCH_IN_THREAD_ABOVE

    paths = [f"pkg{i // 100}/mod{i}.py" for i in range(SEARCH_IN_THREAD_ABOVE * 4)]
    app, _ = make_app(workspace, ScriptedModel([]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await app.workers.wait_for_complete()
        app.main.set_file_index(FileIndex(sorted([*paths, "src/widgets/needle.py"])))
        app.main.prompt.focus()
        await pilot.press(*"see @needl")
        for _ in range(100):  # each search runs in a thread; the newest query wins
            await app.workers.wait_for_complete()
            await pilot.pause()
            if app.main.completion.labels[:1] == ["src/widgets/needle.py"]:
                break
        assert app.main.completion.labels[0] == "src/widgets/needle.py"
        await pilot.press("enter")
        assert app.main.prompt.text == "see @src/widgets/needle.py "


async def test_shift_tab_cycles_the_permission_mode(workspace: Path) -> None:
    app, events = make_app(workspace, ScriptedModel([]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        seen = []
        for _ in range(3):
            await pilot.press("shift+tab")
            seen.append((app.session.config.policy.mode, app.main.status.mode))
            assert app.session.config.policy.mode in status_text(app)
        assert seen == [("acceptEdits",) * 2, ("plan",) * 2, ("default",) * 2]
        # through the engine (ops.SetPermissionMode), which records it in the transcript
        changed = [e.mode for e in events.of(ev.PermissionModeChanged)]
        assert changed == ["acceptEdits", "plan", "default"]
        assert app.focused is app.main.prompt


async def test_rename_goes_through_the_engine_and_says_so(workspace: Path) -> None:
    from tests.helpers.events import Events
    from tests.helpers.tui import make_args
    from tui.app import EddyApp

    events = Events()  # tools=None: the session is saved, as it is for a user
    app = EddyApp(
        make_args(workspace), model=ScriptedModel([]), frozen_clock=True, event_hook=events
    )
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "/rename the parser bug")
        await pilot.pause()
        assert events.of(ev.SessionRenamed) == [ev.SessionRenamed("the parser bug")]
        assert "Session renamed to “the parser bug”." in texts(app)
        assert app.session.status().title == "the parser bug"


async def test_renaming_an_unsaved_session_shows_the_engines_error(workspace: Path) -> None:
    app, events = make_app(workspace, ScriptedModel([]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "/rename the parser bug")
        await pilot.pause()
        assert not events.of(ev.SessionRenamed)
        assert [e.kind for e in events.of(ev.Error)] == ["rename"]
        assert "This session is not saved, so it has no title to change." in texts(app, "error")


async def test_bypass_permissions_shows_in_red(workspace: Path) -> None:
    app, _ = make_app(workspace, ScriptedModel([]), None, "--permission-mode", "bypassPermissions")
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        line = app.main.status.render()
        spans = [s for s in line.spans if "bypassPermissions" in str(line)[s.start : s.end]]
        assert spans and "$text-error" in str(spans[0].style)


async def test_unknown_commands_paths_and_custom_commands(workspace: Path) -> None:
    commands = workspace / ".eddy" / "commands"
    commands.mkdir(parents=True)
    (commands / "fix.md").write_text("Fix $ARGUMENTS, with a test.\n")
    app, events = make_app(workspace, ScriptedModel(["ok", "ok"]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "/frobnicate now")
        await pilot.pause()
        assert any("Unknown command /frobnicate" in t for t in texts(app, "error"))
        assert not events.of(ev.TurnStarted)
        await type_and_send(pilot, "/fix the login bug")
        started = await events.wait_for(ev.TurnStarted)
        assert started.prompt == "Fix the login bug, with a test.\n"
        await events.wait_for(ev.TurnFinished)
        await type_and_send(pilot, "/usr/bin/env is where?")
        started = await events.wait_for(ev.TurnStarted, 2)
        assert started.prompt == "/usr/bin/env is where?"
        await events.wait_for(ev.TurnFinished, 2)
        # custom commands are offered by the completion too
        await typed(pilot, "/fi")
        assert app.main.completion.labels == ["/fix"]


async def test_help_model_permissions_init(workspace: Path) -> None:
    from agent.model.pricing import known_models
    from frontend.memory_commands import INIT_PROMPT

    model = ScriptedModel(["Surveyed."])
    app, events = make_app(
        workspace, model, None, "--allowed-tools", "Bash(git status)", "--disallowed-tools", "Write"
    )
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "/help")
        await pilot.pause()
        help_text = next(t for t in texts(app) if t.startswith("Commands:"))
        for word in ("/rewind", "/budget", "Esc Esc", "shift+tab", "!command", "@path"):
            assert word in help_text
        await type_and_send(pilot, "/model")
        await pilot.pause()
        assert any(t.startswith("Model:") and known_models()[0] in t for t in texts(app))
        target = known_models()[-1]
        await type_and_send(pilot, f"/model {target}")
        await pilot.pause()
        assert app.session.config.model == target
        assert any(f"Model set to {target}" in t for t in texts(app, "notice"))
        assert app.main.status.model == target
        await type_and_send(pilot, "/model nonsense-1")
        await pilot.pause()
        assert any("Unknown model" in t for t in texts(app, "error"))
        await type_and_send(pilot, "/permissions list")
        await pilot.pause()
        perms = next(t for t in texts(app) if t.startswith("Permission mode: default"))
        assert "allow: Bash(git status)" in perms and "deny:  Write" in perms
        await type_and_send(pilot, "/init")
        started = await events.wait_for(ev.TurnStarted)
        assert started.prompt == INIT_PROMPT


async def test_memory_opens_agents_md_in_the_editor(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    app, _ = make_app(workspace, ScriptedModel([]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "/memory")
        await pilot.pause()
        assert (workspace / "AGENTS.md").exists()
        assert any("$EDITOR is not set" in t for t in texts(app))

        editor = tmp_path / "editor.sh"
        editor.write_text('#!/bin/sh\necho "- run the tests with pytest" >> "$1"\n')
        editor.chmod(editor.stat().st_mode | stat.S_IEXEC)
        monkeypatch.setenv("EDITOR", str(editor))
        # a headless test driver cannot hand the terminal over: it says so
        await type_and_send(pilot, "/memory")
        await pilot.pause()
        assert any("Cannot hand the terminal" in t for t in texts(app))
        # where the terminal can be handed over, the editor runs on the file
        monkeypatch.setattr(app, "suspend", contextlib.nullcontext)
        await type_and_send(pilot, "/memory")
        await pilot.pause()
    assert "- run the tests with pytest" in (workspace / "AGENTS.md").read_text()
    assert os.environ["EDITOR"] == str(editor)


async def test_notices_and_errors_render_as_lines(workspace: Path) -> None:
    app, _ = make_app(workspace, ScriptedModel([]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        app.main.handle_event(ev.Notice(0, "Saved allow rule Bash(npm test:*) to settings."))
        app.main.handle_event(ev.Error(0, "The API is overloaded. Try again.", "overloaded"))
        await pilot.pause()
        assert "Saved allow rule Bash(npm test:*) to settings." in texts(app, "notice")
        assert "The API is overloaded. Try again." in texts(app, "error")


def test_snapshot_slash_completion(snap_compare, workspace: Path) -> None:
    app, _ = make_app(workspace, ScriptedModel([]))

    async def run_before(pilot: Any) -> None:
        await wait_ready(app, pilot)
        await typed(pilot, "/re")

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
