"""The line mode driven by keystrokes against the fake Messages API (issue 9's scenarios)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent import events as ev
from agent.messages import check_invariant, message_from_param
from agent.turn.loop import INTERRUPT_NOTE
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.helpers.plain import CTRL_C, CTRL_J, ENTER, ESC, UP, until

# A shell command that runs until the test creates a file: the turn is mid-tool for as long
# as the test needs, without a sleep that hopes for the best.
WAIT_FOR_GO = "while [ ! -e go ]; do sleep 0.02; done; echo released"
WAIT_FOREVER = "while true; do sleep 0.05; done"


def blocks(body: dict, index: int = -1) -> list[dict]:
    return body["messages"][index]["content"]


def result_text(block: dict) -> str:
    content = block["content"]
    return content if isinstance(content, str) else "".join(b.get("text", "") for b in content)


async def test_a_turn_streams_the_answer_above_the_prompt(harness, fake_api: FakeAnthropic):
    fake_api.push(Reply([text("Hello from **the model**.\n\n```python\nprint('hi')\n```\nBye.")]))
    h = harness()
    await h.start()
    h.type("say hello" + ENTER)
    finished = await h.event(ev.TurnFinished)
    assert finished.subtype == "success"
    await h.printed("Bye.")
    out = h.output
    assert "Hello from the model." in out  # markdown rendered plainly: no ** markers
    assert "print('hi')" in out
    assert "\x1b" not in out  # colours off: not one escape code
    assert blocks(fake_api.requests[0])[0]["text"] == "say hello"
    assert await h.exit() == 0
    assert "Session saved: eddy --resume" in h.output


async def test_multiline_prompt_with_ctrl_j(harness, fake_api: FakeAnthropic):
    fake_api.push(Reply([text("ok")]))
    h = harness()
    await h.start()
    h.type("first line" + CTRL_J + "second line" + ENTER)
    await h.event(ev.TurnFinished)
    assert blocks(fake_api.requests[0])[0]["text"] == "first line\nsecond line"
    assert await h.exit() == 0


async def test_queued_correction_reaches_the_next_request_after_the_results(
    harness, fake_api: FakeAnthropic, workspace: Path
):
    fake_api.push(
        Reply(
            [text("Waiting."), tool_use("toolu_1", "Bash", {"command": WAIT_FOR_GO})], "tool_use"
        ),
        Reply([text("Understood, using the other approach.")]),
    )
    h = harness("--permission-mode", "bypassPermissions")
    await h.start()
    h.type("do the thing" + ENTER)
    await h.event(ev.ToolCallRunning)
    h.type("use the other approach" + ENTER)  # the prompt is live while the tool runs
    await h.event(ev.QueueChanged)
    await h.printed("queued: use the other approach")
    (workspace / "go").write_text("")
    await h.event(ev.TurnFinished)
    second = fake_api.requests[1]
    last = blocks(second)
    assert [b["type"] for b in last] == ["tool_result", "text"]
    assert last[0]["tool_use_id"] == "toolu_1" and "released" in result_text(last[0])
    assert last[1]["text"] == "use the other approach"
    await h.printed("sent to the model: use the other approach")
    await h.printed("Understood, using the other approach.")
    assert await h.exit() == 0


async def test_up_on_an_empty_prompt_takes_the_queued_text_back(
    harness, fake_api: FakeAnthropic, workspace: Path
):
    fake_api.push(
        Reply([tool_use("toolu_1", "Bash", {"command": WAIT_FOR_GO})], "tool_use"),
        Reply([text("done")]),
    )
    h = harness("--permission-mode", "bypassPermissions")
    await h.start()
    h.type("go" + ENTER)
    await h.event(ev.ToolCallRunning)
    h.type("typo correctoin" + ENTER)
    await h.event(ev.QueueChanged)
    h.type(UP)
    await h.event(ev.QueueChanged, 2)
    assert h.app.session.queue == []
    await until(lambda: h.app.input.buffer.text == "typo correctoin", what="text back")
    (workspace / "go").write_text("")
    await h.event(ev.TurnFinished)
    assert [b["type"] for b in blocks(fake_api.requests[1])] == ["tool_result"]
    h.app.input.buffer.reset()
    assert await h.exit() == 0


@pytest.mark.parametrize("key", [ESC, CTRL_C], ids=["esc", "ctrl-c"])
async def test_interrupt_leaves_a_valid_history(harness, fake_api: FakeAnthropic, key: str):
    fake_api.push(
        Reply(
            [text("Starting a long job."), tool_use("toolu_1", "Bash", {"command": WAIT_FOREVER})],
            "tool_use",
        ),
        Reply([text("Fine, stopped.")]),
    )
    h = harness("--permission-mode", "bypassPermissions")
    await h.start()
    h.type("run the long job" + ENTER)
    await h.event(ev.ToolCallRunning)
    h.type(key)
    finished = await h.event(ev.TurnFinished)
    assert finished.subtype == "interrupted"
    await h.printed("Bash(while true; do sleep 0.05; done) interrupted")
    await h.idle()
    assert len(fake_api.requests) == 1  # nothing is sent until the user writes again
    h.type("now something else" + ENTER)
    await h.event(ev.TurnFinished, 2)
    body = fake_api.requests[1]
    history = [message_from_param(m) for m in body["messages"]]
    check_invariant(history)
    last = blocks(body)
    assert last[0]["type"] == "tool_result" and last[0]["is_error"] is True
    texts = [b["text"] for b in last if b["type"] == "text"]
    assert INTERRUPT_NOTE in texts and texts[-1] == "now something else"
    assert not fake_api.violations
    assert await h.exit() == 0


async def test_permission_refused_with_a_reason_reaches_the_model(
    harness, fake_api: FakeAnthropic, workspace: Path
):
    write = {"file_path": "notes.txt", "content": "hello\n"}
    fake_api.push(
        Reply([tool_use("toolu_1", "Write", write)], "tool_use"),
        Reply([text("All right, I will not write it.")]),
    )
    h = harness()
    await h.start()
    h.type("write a note" + ENTER)
    await h.event(ev.PermissionRequested)
    await h.printed("Write needs your permission")
    await h.printed("+hello")  # the diff the call would make
    await until(lambda: h.app.message().startswith("Allow Write?"), what="question")
    h.type("maybe" + ENTER)  # not an answer: asked again
    await h.printed("Answer y (yes), a (always) or n (no)")
    h.type("n" + ENTER)
    await until(lambda: h.app.message().startswith("Why not?"), what="reason question")
    h.type("put it in README.md instead" + ENTER)
    resolved = await h.event(ev.PermissionResolved)
    assert resolved.decision == "deny"
    await h.event(ev.TurnFinished)
    result = blocks(fake_api.requests[1])[0]
    assert result["type"] == "tool_result" and result["is_error"] is True
    assert "put it in README.md instead" in result_text(result)
    assert not (workspace / "notes.txt").exists()
    await h.printed("refused")
    # answers are not prompts: they stay out of the shared history
    assert h.app.input.history.store.entries == ["write a note"]
    assert await h.exit() == 0


async def test_permission_allowed_runs_the_call(harness, fake_api: FakeAnthropic, workspace: Path):
    fake_api.push(
        Reply([tool_use("toolu_1", "Write", {"file_path": "a.txt", "content": "x\n"})], "tool_use"),
        Reply([text("Written.")]),
    )
    h = harness()
    await h.start()
    h.type("write it" + ENTER)
    await h.event(ev.PermissionRequested)
    await until(lambda: h.app.asking, what="question")
    h.type("y" + ENTER)
    await h.event(ev.TurnFinished)
    assert (workspace / "a.txt").read_text() == "x\n"
    await h.printed("Write(a.txt) done")
    assert await h.exit() == 0


async def test_a_draft_survives_a_permission_question(harness, fake_api: FakeAnthropic):
    fake_api.push(
        Reply([tool_use("toolu_1", "Write", {"file_path": "b.txt", "content": "x"})], "tool_use"),
        Reply([text("ok")]),
    )
    h = harness()
    await h.start()
    h.type("write b" + ENTER)
    await h.event(ev.TurnStarted)
    h.type("half-typed")
    await h.event(ev.PermissionRequested)
    await until(lambda: h.app.input.buffer.text == "", what="draft moved aside")
    h.type("y" + ENTER)
    await h.event(ev.TurnFinished)
    await until(lambda: h.app.input.buffer.text == "half-typed", what="draft back")
    h.app.input.buffer.reset()
    assert await h.exit() == 0


async def test_commands(harness, fake_api: FakeAnthropic):
    fake_api.push(Reply([text("one")]), Reply([text("two")]))
    h = harness()
    await h.start()
    h.type("/help" + ENTER)
    await h.printed("/rewind")
    h.type("/nosuch" + ENTER)
    await h.printed("Unknown command /nosuch")
    h.type("hi" + ENTER)
    await h.event(ev.TurnFinished)
    await h.idle()
    h.type("/cost" + ENTER)
    await h.printed("Total cost:     $")
    await h.printed("Output tokens:")
    h.type("/context" + ENTER)
    await h.printed("tool results")
    h.type("/model claude-haiku-4-5" + ENTER)
    await h.printed("Model set to claude-haiku-4-5")
    old_id = h.app.session.config.session_id
    h.type("/clear" + ENTER)
    await h.printed("New session: the conversation is empty.")
    assert h.app.session.config.session_id != old_id and h.app.session.history == []
    h.type("again" + ENTER)
    await h.event(ev.TurnFinished, 2)
    assert len(fake_api.requests[1]["messages"]) == 1  # a new session starts empty
    assert await h.exit() == 0


async def test_compact_command_sends_the_focus(harness, fake_api: FakeAnthropic):
    fake_api.push(Reply([text("first answer")]), Reply([text("<summary>we said hi</summary>")]))
    h = harness()
    await h.start()
    h.type("hi" + ENTER)
    await h.event(ev.TurnFinished)
    await h.idle()
    h.type("/compact keep the names" + ENTER)
    await until(lambda: len(fake_api.requests) >= 2, what="compaction request")
    assert "keep the names" in str(fake_api.requests[1]["messages"])
    await until(lambda: h.of(ev.Compacted) or h.of(ev.Error), what="compaction result")
    assert await h.exit() == 0


async def test_ctrl_c_twice_at_an_idle_prompt_exits(harness):
    h = harness()
    await h.start()
    h.type(CTRL_C)
    await h.printed("Press Ctrl+C again to exit")
    assert await h.exit(CTRL_C) == 0


async def test_ctrl_d_exits(harness):
    h = harness()
    await h.start()
    assert await h.exit("\x04") == 0


async def test_rewind_restores_code_and_puts_the_prompt_back(
    harness, fake_api: FakeAnthropic, workspace: Path
):
    fake_api.push(
        Reply(
            [tool_use("toolu_1", "Write", {"file_path": "new.py", "content": "x = 1\n"})],
            "tool_use",
        ),
        Reply([text("Created new.py.")]),
    )
    h = harness("--permission-mode", "acceptEdits")
    await h.start()
    if not hasattr(h.app.session, "checkpoints"):
        pytest.skip("Session.checkpoints() is not integrated yet (the rewind engine)")
    h.type("create new.py" + ENTER)
    await h.event(ev.TurnFinished)
    await h.idle()
    assert (workspace / "new.py").read_text() == "x = 1\n"
    h.type("/rewind" + ENTER)
    await h.printed("Checkpoints")
    await h.printed("1. create new.py")
    await until(lambda: h.app.message().startswith("Rewind to before"), what="question")
    h.type("1" + ENTER)
    await until(lambda: h.app.message().startswith("Restore"), what="mode question")
    h.type("1" + ENTER)
    done = await h.event(ev.RewindFinished)
    assert done.mode == "both"
    assert not (workspace / "new.py").exists()
    assert h.app.session.history == []
    await until(lambda: h.app.input.buffer.text == "create new.py", what="prompt put back")
    await h.printed("deleted: new.py")
    h.app.input.buffer.reset()
    assert await h.exit() == 0


async def test_bang_command_and_custom_command(harness, fake_api: FakeAnthropic, workspace: Path):
    commands = workspace / ".eddy" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text("# Review\nReview $ARGUMENTS carefully.\n")
    fake_api.push(Reply([text("Reviewed.")]))
    h = harness()
    await h.start()
    h.type("!echo shell-said-hi" + ENTER)
    await h.printed("│ shell-said-hi")
    await h.idle()
    h.type("/review main.py" + ENTER)
    await h.event(ev.TurnFinished)
    sent = [b["text"] for b in blocks(fake_api.requests[0])]
    assert any("<bash-stdout>shell-said-hi" in t for t in sent)
    assert any("Review main.py carefully." in t for t in sent)
    await h.printed("Reviewed.")
    assert "# Review" not in h.output  # the command shows as typed; its body is the model's
    assert await h.exit() == 0


async def test_rewind_asks_before_overwriting_files_the_user_changed(
    harness, fake_api: FakeAnthropic, workspace: Path
):
    fake_api.push(
        Reply([tool_use("toolu_1", "Write", {"file_path": "c.py", "content": "1\n"})], "tool_use"),
        Reply([text("Created c.py.")]),
    )
    h = harness("--permission-mode", "acceptEdits")
    await h.start()
    if not hasattr(h.app.session, "rewind_conflicts"):
        pytest.skip("Session.rewind_conflicts() is not integrated yet (the rewind engine)")
    h.type("create c.py" + ENTER)
    await h.event(ev.TurnFinished)
    await h.idle()
    (workspace / "c.py").write_text("my own edit\n")
    h.type("/rewind 1 code" + ENTER)
    await until(lambda: h.app.message().startswith("Overwrite"), what="conflict question")
    await h.printed("You changed these files since eddy touched them")
    h.type("n" + ENTER)
    done = await h.event(ev.RewindFinished)
    assert done.mode == "code" and done.conflicts
    assert (workspace / "c.py").read_text() == "my own edit\n"
    assert await h.exit() == 0
