"""The queue pair: prompts, Esc, queued corrections and permission answers (docs/loop.md, "Esc")."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent import events as ev
from agent import ops
from agent.messages import Message, TextBlock, ToolResultBlock, assistant, check_invariant
from agent.session.config import SessionConfig
from agent.session.core import Session
from agent.turn.loop import INTERRUPT_NOTE
from tests.fakes.scripted import ScriptedModel, tool_call
from tests.fakes.tools import FnTool
from tests.helpers.events import Events


def make_session(tmp_path: Path, model, tools, headless: bool = False) -> tuple[Session, Events]:
    events = Events()
    config = SessionConfig(workspace=tmp_path, model="claude-sonnet-5-5", headless=headless)
    return Session(config, model, tools, events), events


def last_request(model: ScriptedModel) -> list[Message]:
    return model.requests[-1].messages


async def test_esc_mid_stream_keeps_history_valid_and_next_prompt_joins(tmp_path: Path) -> None:
    release = asyncio.Event()
    calls = 0

    async def script(history):
        nonlocal calls
        calls += 1
        if calls == 1:
            await release.wait()  # "streaming" until the user presses Esc
        return "answer"

    model = ScriptedModel(script)
    session, events = make_session(tmp_path, model, [])
    session.submit(ops.SubmitPrompt("first"))
    await events.wait_for(ev.ModelCallStarted)
    session.submit(ops.Interrupt())
    finished = await events.wait_for(ev.TurnFinished)
    assert finished.subtype == "interrupted"
    assert model.calls == 1  # nothing was sent after Esc
    assert [m.role for m in session.history] == ["user"]
    assert session.history[-1].content[-1] == TextBlock(INTERRUPT_NOTE)
    session.submit(ops.SubmitPrompt("second"))
    await session.wait_idle()
    sent = last_request(model)
    assert len(sent) == 1  # the prompt joined the trailing user message
    assert [b.text for b in sent[0].content] == ["first", INTERRUPT_NOTE, "second"]
    check_invariant(sent)


async def test_esc_mid_tool_gives_every_tool_use_one_result(tmp_path: Path) -> None:
    hang = asyncio.Event()
    cancelled = []

    async def slow(args, ctx):
        try:
            await hang.wait()
        except asyncio.CancelledError:
            cancelled.append(args["k"])
            raise
        return "never"

    quick = FnTool("Quick", lambda a, c: "quick result", read_only=True)
    slow_tool = FnTool("Slow", slow)
    after = FnTool("After", lambda a, c: "should not run")
    model = ScriptedModel(
        [
            assistant(
                tool_call("q", "Quick"), tool_call("s", "Slow", k="s"), tool_call("a", "After")
            ),
            "recovered",
        ]
    )
    session, events = make_session(tmp_path, model, [quick, slow_tool, after], headless=False)
    session.config.policy.mode = "bypassPermissions"
    session.submit(ops.SubmitPrompt("go"))
    running = await events.wait_for(ev.ToolCallRunning, 2)
    assert running.call_id == "s"
    session.submit(ops.Interrupt())
    await events.wait_for(ev.TurnFinished)
    assert cancelled == ["s"]
    assert after.calls == []
    results = session.history[2].content
    assert [b.tool_use_id for b in results[:3]] == ["q", "s", "a"]
    assert results[0] == ToolResultBlock("q", "quick result", False)
    assert results[1].is_error and "interrupted" in results[1].content
    assert results[2].is_error and "did not run" in results[2].content
    assert results[3] == TextBlock(INTERRUPT_NOTE)
    statuses = {e.call_id: e.status for e in events.of(ev.ToolCallFinished)}
    assert statuses == {"q": "done", "s": "interrupted", "a": "interrupted"}
    assert model.calls == 1
    session.submit(ops.SubmitPrompt("carry on"))
    await session.wait_idle()
    check_invariant(last_request(model))
    assert last_request(model)[-1].content[-1] == TextBlock("carry on")


async def test_esc_while_waiting_for_permission(tmp_path: Path) -> None:
    edit = FnTool("Change", lambda a, c: "changed")
    model = ScriptedModel([assistant(tool_call("c1", "Change")), "done"])
    session, events = make_session(tmp_path, model, [edit])
    session.submit(ops.SubmitPrompt("change it"))
    await events.wait_for(ev.PermissionRequested)
    session.submit(ops.Interrupt())
    finished = await events.wait_for(ev.TurnFinished)
    assert finished.subtype == "interrupted"
    assert edit.calls == []
    result = session.history[2].content[0]
    assert isinstance(result, ToolResultBlock) and result.is_error
    session.submit(ops.SubmitPrompt("ok"))
    await session.wait_idle()
    check_invariant(last_request(model))


async def test_correction_queued_during_tool_follows_results(tmp_path: Path) -> None:
    gate = asyncio.Event()

    async def work(args, ctx):
        await gate.wait()
        return "worked"

    model = ScriptedModel([assistant(tool_call("w", "Work")), "ok, using tabs"])
    session, events = make_session(tmp_path, model, [FnTool("Work", work, read_only=True)])
    session.submit(ops.SubmitPrompt("format the file"))
    await events.wait_for(ev.ToolCallRunning)
    session.submit(ops.QueueCorrection("use tabs, not spaces"))
    assert session.queue == ["use tabs, not spaces"]
    gate.set()
    await session.wait_idle()
    sent = last_request(model)
    assert sent[-1].content[0] == ToolResultBlock("w", "worked", False)
    assert sent[-1].content[1] == TextBlock("use tabs, not spaces")
    delivered = events.of(ev.CorrectionsDelivered)
    assert delivered and delivered[0].texts == ("use tabs, not spaces",)
    assert session.queue == []


async def test_take_queued_back_for_editing(tmp_path: Path) -> None:
    gate = asyncio.Event()

    async def work(args, ctx):
        await gate.wait()
        return "worked"

    model = ScriptedModel([assistant(tool_call("w", "Work")), "done"])
    session, events = make_session(tmp_path, model, [FnTool("Work", work, read_only=True)])
    session.submit(ops.SubmitPrompt("go"))
    await events.wait_for(ev.ToolCallRunning)
    session.submit(ops.QueueCorrection("typo"))
    taken = session.submit(ops.TakeQueued())
    assert taken == "typo" and session.queue == []
    session.submit(ops.QueueCorrection("fixed text"))
    gate.set()
    await session.wait_idle()
    texts = [b.text for b in last_request(model)[-1].content if isinstance(b, TextBlock)]
    assert texts == ["fixed text"]


async def test_interrupt_with_queue_sends_it_at_once(tmp_path: Path) -> None:
    hang = asyncio.Event()

    async def work(args, ctx):
        await hang.wait()
        return "never"

    model = ScriptedModel([assistant(tool_call("w", "Work")), "switching to plan B"])
    session, events = make_session(tmp_path, model, [FnTool("Work", work, read_only=True)])
    session.submit(ops.SubmitPrompt("plan A"))
    await events.wait_for(ev.ToolCallRunning)
    session.submit(ops.QueueCorrection("stop, do plan B"))
    session.submit(ops.Interrupt())
    await session.wait_idle()
    assert model.calls == 2
    sent = last_request(model)
    check_invariant(sent)
    tail = sent[-1].content
    assert tail[-2:] == (TextBlock(INTERRUPT_NOTE), TextBlock("stop, do plan B"))
    assert [e.subtype for e in events.of(ev.TurnFinished)] == ["interrupted", "success"]


async def test_queue_after_model_finished_becomes_next_prompt(tmp_path: Path) -> None:
    release = asyncio.Event()

    async def script(history):
        if len(history) == 1:
            await release.wait()
        return "reply"

    model = ScriptedModel(script)
    session, events = make_session(tmp_path, model, [])
    session.submit(ops.SubmitPrompt("one"))
    await events.wait_for(ev.ModelCallStarted)
    session.submit(ops.QueueCorrection("two"))
    release.set()
    await session.wait_idle()
    assert model.calls == 2
    assert [m.role for m in last_request(model)] == ["user", "assistant", "user"]
    assert last_request(model)[-1].content == (TextBlock("two"),)


@pytest.mark.parametrize(
    ("decision", "reason", "ran", "expect"),
    [
        ("allow", "", True, "changed"),
        ("deny", "use sed instead", False, "The user said: use sed instead"),
        ("deny", "", False, "refused"),
    ],
)
async def test_permission_answers(tmp_path, decision, reason, ran, expect) -> None:
    tool = FnTool("Change", lambda a, c: "changed")
    model = ScriptedModel([assistant(tool_call("c1", "Change")), "ok"])
    session, events = make_session(tmp_path, model, [tool])
    session.submit(ops.SubmitPrompt("go"))
    req = await events.wait_for(ev.PermissionRequested)
    assert req.call_id == "c1" and req.name == "Change"
    session.submit(ops.AnswerPermission(req.request_id, decision, reason))
    await session.wait_idle()
    assert bool(tool.calls) == ran
    result = last_request(model)[-1].content[0]
    assert expect in result.content
    assert result.is_error == (not ran)


async def test_allow_always_stops_asking(tmp_path: Path) -> None:
    tool = FnTool("Change", lambda a, c: "changed")
    model = ScriptedModel(
        [assistant(tool_call("c1", "Change")), assistant(tool_call("c2", "Change")), "ok"]
    )
    session, events = make_session(tmp_path, model, [tool])
    session.submit(ops.SubmitPrompt("go"))
    req = await events.wait_for(ev.PermissionRequested)
    session.submit(ops.AnswerPermission(req.request_id, "allow_always"))
    await session.wait_idle()
    assert len(events.of(ev.PermissionRequested)) == 1
    assert len(tool.calls) == 2


async def test_headless_refuses_what_would_ask(tmp_path: Path) -> None:
    tool = FnTool("Change", lambda a, c: "changed")
    model = ScriptedModel([assistant(tool_call("c1", "Change")), "ok"])
    session, events = make_session(tmp_path, model, [tool], headless=True)
    session.submit(ops.SubmitPrompt("go"))
    await session.wait_idle()
    assert tool.calls == []
    finished = events.of(ev.ToolCallFinished)[0]
    assert finished.status == "refused" and "--allowed-tools Change" in finished.content
    assert not events.of(ev.PermissionRequested)


async def test_every_started_event_has_one_finished(tmp_path: Path) -> None:
    model = ScriptedModel(
        [assistant(tool_call("a", "Nope"), tool_call("b", "Ro", x=1)), assistant("final")]
    )
    session, events = make_session(
        tmp_path, model, [FnTool("Ro", lambda a, c: "r", read_only=True)]
    )
    session.submit(ops.SubmitPrompt("go"))
    await session.wait_idle()
    started = [e.call_id for e in events.of(ev.ToolCallStarted)]
    finished = [e.call_id for e in events.of(ev.ToolCallFinished)]
    assert sorted(started) == sorted(finished) == ["a", "b"]
    assert "No such tool: Nope" in events.of(ev.ToolCallFinished)[0].content
    assert len(events.of(ev.TurnStarted)) == len(events.of(ev.TurnFinished)) == 1


async def test_dont_ask_again_saves_the_generalised_rule(tmp_path: Path) -> None:
    import json

    from agent.permissions.policy import Rule
    from agent.settings.files import build_policy, load_settings
    from tools import default_tools

    mk = [
        tool_call("b1", "Bash", command="mkdir -p one/two"),
        tool_call("b2", "Bash", command="mkdir three"),
    ]
    model = ScriptedModel([assistant(mk[0]), assistant(mk[1]), "ok"])
    session, events = make_session(tmp_path, model, default_tools())
    session.submit(ops.SubmitPrompt("make dirs"))
    req = await events.wait_for(ev.PermissionRequested)
    assert req.suggested_rule == "Bash(mkdir:*)"
    session.submit(ops.AnswerPermission(req.request_id, "allow_always"))
    await session.wait_idle()
    assert len(events.of(ev.PermissionRequested)) == 1  # the next identical kind of call ran
    assert (tmp_path / "one" / "two").is_dir() and (tmp_path / "three").is_dir()
    saved = json.loads((tmp_path / ".eddy" / "settings.local.json").read_text())
    assert saved["permissions"]["allow"] == ["Bash(mkdir:*)"]
    assert any("Bash(mkdir:*)" in n.text for n in events.of(ev.Notice))
    # a new session built from the saved settings allows it without asking
    settings, problems = load_settings(tmp_path)
    policy, _ = build_policy(settings)
    assert not problems and Rule.parse("Bash(mkdir:*)") in policy.allow


async def test_plan_mode_tells_the_model_and_refuses_changes(tmp_path: Path) -> None:
    from tools import default_tools

    model = ScriptedModel(
        [assistant(tool_call("w", "Write", file_path="x.txt", content="x")), "plan"]
    )
    session, events = make_session(tmp_path, model, default_tools())
    session.config.policy.mode = "plan"
    session.submit(ops.SubmitPrompt("add x"))
    await session.wait_idle()
    assert not (tmp_path / "x.txt").exists()
    first = model.requests[0].messages[0]
    assert "plan mode" in first.content[-1].text
    result = model.requests[1].messages[-1].content[0]
    assert result.is_error and "plan mode" in result.content


async def test_esc_during_shell_command_kills_its_process_group(tmp_path: Path) -> None:
    import os
    import time

    from tools import default_tools

    command = "echo $$; bash -c 'trap \"\" TERM; sleep 30' & echo ready; sleep 30"
    model = ScriptedModel([assistant(tool_call("b", "Bash", command=command)), "after"])
    session, events = make_session(tmp_path, model, default_tools())
    session.config.policy.mode = "bypassPermissions"
    session.submit(ops.SubmitPrompt("run it"))
    while "ready" not in "".join(e.text for e in events.of(ev.ToolOutputDelta)):
        await events.wait_for(ev.ToolOutputDelta, len(events.of(ev.ToolOutputDelta)) + 1)
    pgid = int("".join(e.text for e in events.of(ev.ToolOutputDelta)).split()[0])
    start = time.monotonic()
    session.submit(ops.Interrupt())
    await session.wait_idle()
    assert time.monotonic() - start < 1.5
    try:
        os.killpg(pgid, 0)
        alive = True
    except ProcessLookupError:
        alive = False
    assert not alive
    result = session.history[2].content[0]
    assert isinstance(result, ToolResultBlock) and result.is_error
    session.submit(ops.SubmitPrompt("next"))
    await session.wait_idle()
    check_invariant(last_request(model))
