"""Issue 37's rough edges in line mode, driven by keystrokes against the fake Messages API."""

from __future__ import annotations

from pathlib import Path

from agent import events as ev
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.helpers.plain import ENTER, until


async def test_compact_on_an_empty_conversation_says_there_is_nothing_to_compact(
    harness, fake_api: FakeAnthropic
):
    h = harness()
    await h.start()
    h.type("/compact" + ENTER)
    await h.printed("Nothing to compact yet: the conversation is empty.")
    assert "Compaction failed" not in h.output and not h.of(ev.Error)
    assert fake_api.requests == []
    assert await h.exit() == 0


async def test_cost_counts_a_text_answer_as_a_turn(harness, fake_api: FakeAnthropic):
    fake_api.push(Reply([text("Hi.")]))
    h = harness()
    await h.start()
    h.type("hello" + ENTER)
    await h.event(ev.TurnFinished)
    await h.idle()
    h.type("/cost" + ENTER)
    await h.printed("Turns:          1")  # was 0: only tool turns counted
    assert await h.exit() == 0


async def test_undoing_a_rewind_says_rewind_undone_and_names_the_file_in_the_list(
    harness, fake_api: FakeAnthropic, workspace: Path
):
    fake_api.push(
        Reply([tool_use("toolu_1", "Write", {"file_path": "new.txt", "content": ""})], "tool_use"),
        Reply([text("Made.")]),
    )
    h = harness("--permission-mode", "acceptEdits")
    await h.start()
    h.type("make new.txt" + ENTER)
    await h.event(ev.TurnFinished)
    await h.idle()
    h.type("/rewind" + ENTER)
    await until(lambda: h.app.message().startswith("Rewind to before"), what="question")
    assert "1. make new.txt  · new.txt created" in h.output  # was "1 file +0 -0"
    h.type("1" + ENTER)
    await until(lambda: h.app.message().startswith("Restore"), what="mode question")
    h.type("1" + ENTER)
    await h.event(ev.RewindFinished)
    await h.printed("Rewound: 1 file restored, conversation rewound.")
    assert not (workspace / "new.txt").exists()
    await h.idle()
    h.type("\x15/rewind 1" + ENTER)  # (Ctrl+U: the prompt came back) the redo entry
    await h.event(ev.RewindFinished, 2)
    await h.printed("Rewind undone: 1 file put back, the conversation is back.")
    assert (workspace / "new.txt").exists()
    assert await h.exit() == 0


async def test_line_mode_prints_only_the_hooks_that_act(
    harness, fake_api: FakeAnthropic, workspace: Path
):
    from tests.agent.hooks.scripts import hook_settings, on, script

    passes = script(workspace, "pass.sh", "cat >/dev/null; exit 0\n")
    blocks = script(workspace, "block.sh", "cat >/dev/null; echo 'not here' >&2; exit 2\n")
    hook_settings(workspace, on("PreToolUse", "Bash", passes, blocks))
    fake_api.push(
        Reply([tool_use("toolu_1", "Bash", {"command": "echo hi"})], "tool_use"),
        Reply([text("Stopped.")]),
    )
    h = harness()
    await h.start()
    h.type("run it" + ENTER)
    await h.event(ev.TurnFinished)
    await h.printed("Stopped.")
    assert len(h.of(ev.HookRan)) == 2
    assert ": exit 2, blocked (" in h.output and "not here" in h.output
    assert ": exit 0 (" not in h.output  # the hook that passed: no line (as in the TUI)
    assert await h.exit() == 0


async def test_always_for_a_compound_command_stops_asking_for_that_command(
    harness, fake_api: FakeAnthropic, workspace: Path
):
    command = "touch made && git init -q there"  # two parts that ask, with different rules
    call = {"command": command}
    fake_api.push(
        Reply([tool_use("toolu_1", "Bash", call)], "tool_use"),
        Reply([text("Once.")]),
        Reply([tool_use("toolu_2", "Bash", call)], "tool_use"),
        Reply([text("Twice.")]),
    )
    h = harness()
    await h.start()
    h.type("do it" + ENTER)
    asked = await h.event(ev.PermissionRequested)
    assert asked.suggested_rule == f"Bash({command})"  # not the first part's Bash(touch ...)
    await until(lambda: h.app.message().startswith("Allow Bash?"), what="the question")
    h.type("a" + ENTER)
    await h.event(ev.TurnFinished)
    await h.idle()
    h.type("again" + ENTER)
    await h.event(ev.TurnFinished, 2)
    assert len(h.of(ev.PermissionRequested)) == 1  # the saved rule covers the whole command
    assert (workspace / "there" / ".git").is_dir()
    assert await h.exit() == 0


async def test_a_custom_command_is_echoed_as_typed_not_as_its_body(
    harness, fake_api: FakeAnthropic, workspace: Path
):
    commands = workspace / ".eddy" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text("Review $ARGUMENTS for bugs; list each with a fix.\n")
    fake_api.push(Reply([text("Looks fine.")]))
    h = harness()
    await h.start()
    h.type("/review calc.py" + ENTER)
    started = await h.event(ev.TurnStarted)
    await h.event(ev.TurnFinished)
    await h.printed("Looks fine.")
    assert started.shown == "/review calc.py"
    assert "Review calc.py for bugs" not in h.output  # the body goes to the model only
    assert fake_api.requests[0]["messages"][0]["content"][0]["text"].startswith("Review calc.py")
    assert await h.exit() == 0


async def test_bashes_id_prints_a_snapshot_of_a_shells_output(
    harness, fake_api: FakeAnthropic, workspace: Path
):
    command = "echo first-line; echo second-line; sleep 300"
    fake_api.push(
        Reply(
            [tool_use("toolu_1", "Bash", {"command": command, "run_in_background": True})],
            "tool_use",
        ),
        Reply([text("Started.")]),
    )
    h = harness("--permission-mode", "bypassPermissions")
    await h.start()
    h.type("start it" + ENTER)
    await h.event(ev.TurnFinished)
    await h.idle()
    shell = h.app.session.shells.shells["bash_1"]
    await until(lambda: "second-line" in shell.log.tail(1000), what="the output")
    h.type("/bashes bash_1" + ENTER)
    await h.printed("  second-line")
    assert "bash_1   running" in h.output and "  first-line\n  second-line" in h.output
    h.type("/bashes bash_9" + ENTER)
    await h.printed("No background shell or agent has the id 'bash_9' (ids: bash_1).")
    assert await h.exit() == 0


async def test_exit_names_the_background_shells_it_stops(
    harness, fake_api: FakeAnthropic, workspace: Path
):
    fake_api.push(
        Reply(
            [tool_use("toolu_1", "Bash", {"command": "sleep 300", "run_in_background": True})],
            "tool_use",
        ),
        Reply([text("Started.")]),
    )
    h = harness("--permission-mode", "bypassPermissions")
    await h.start()
    h.type("start it" + ENTER)
    await h.event(ev.TurnFinished)
    await h.idle()
    assert await h.exit() == 0
    assert "Stopping 1 background task: shell bash_1 (sleep 300)." in h.output
    assert h.app.session is None or h.app.session.shells.running() == []


async def test_a_resumed_session_says_which_shells_are_gone_to_the_user_and_the_model(
    harness, fake_api: FakeAnthropic, workspace: Path
):
    start = {"command": "sleep 300", "run_in_background": True}
    fake_api.push(
        Reply([tool_use("toolu_1", "Bash", start)], "tool_use"),
        Reply([text("Started.")]),
        Reply([text("I will start it again.")]),
        Reply([tool_use("toolu_2", "Bash", start)], "tool_use"),
        Reply([text("Again.")]),
    )
    first = harness("--permission-mode", "bypassPermissions")
    await first.start()
    first.type("start it" + ENTER)
    await first.event(ev.TurnFinished)
    await first.idle()
    assert await first.exit() == 0
    h = harness("--permission-mode", "bypassPermissions", "--continue")
    await h.start()
    gone = "Background shells of the earlier run ended when eddy exited: bash_1 (sleep 300)."
    await h.printed(gone)
    h.type("is it running?" + ENTER)
    await h.event(ev.TurnFinished)
    await h.idle()
    sent = [b.get("text", "") for b in fake_api.requests[2]["messages"][-1]["content"]]
    assert sent[0] == "is it running?"
    assert any("shells of its earlier run were stopped" in t and "bash_1" in t for t in sent)
    h.type("start it again" + ENTER)
    await h.event(ev.TurnFinished, 2)
    assert list(h.app.session.shells.shells) == ["bash_2"]  # never a second bash_1
    later = [b.get("text", "") for b in fake_api.requests[3]["messages"][-1]["content"]]
    assert not any("earlier run" in t for t in later)  # told once
    assert await h.exit() == 0


async def test_exit_typed_at_a_permission_question_exits_and_is_no_reason(
    harness, fake_api: FakeAnthropic, workspace: Path
):
    fake_api.push(Reply([tool_use("toolu_1", "Bash", {"command": "touch made"})], "tool_use"))
    h = harness()
    await h.start()
    h.type("make it" + ENTER)
    await h.event(ev.PermissionRequested)
    await until(lambda: h.app.message().startswith("Allow Bash?"), what="the question")
    h.type("n" + ENTER)
    await until(lambda: h.app.message().startswith("Why not?"), what="the reason question")
    assert await h.exit("/exit" + ENTER) == 0  # the command, not the refusal's reason
    assert len(fake_api.requests) == 1 and not (workspace / "made").exists()


LONG = (
    "Reviews a change for correctness, naming and tests; use it after every edit that touches "
    "more than one module, and before a commit"
)


def reviewer_agent(workspace: Path) -> None:
    agents = workspace / ".eddy" / "agents"
    agents.mkdir(parents=True)
    (agents / "reviewer.md").write_text(
        f"---\nname: reviewer\ndescription: {LONG}\n---\nReview the change.\n"
    )


async def test_agents_wraps_a_long_description_under_itself(
    harness, fake_api: FakeAnthropic, workspace: Path, monkeypatch
):
    monkeypatch.setenv("COLUMNS", "71")  # the terminal's width, as shutil reads it
    reviewer_agent(workspace)
    h = harness()
    await h.start()
    h.type("/agents" + ENTER)
    await h.printed("  reviewer           Reviews a change")
    lines = h.output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("  reviewer "))
    block = lines[start : start + 4]
    assert all(len(line) <= 70 for line in block)
    assert all(line.startswith(" " * 21) for line in block[1:])  # not back at column 1
    assert " ".join(" ".join(line.split()) for line in block).startswith(f"reviewer {LONG}")
    assert await h.exit() == 0
