"""Compaction and interactive limits (issue "Context")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent import events as ev
from agent import ops
from agent.messages import Message, TextBlock, ToolResultBlock, assistant, check_invariant, user
from agent.model.pricing import Usage
from agent.model.protocol import ModelResponse
from agent.prompt.system import load_memory, system_prompt
from agent.session.config import SessionConfig
from agent.session.core import Session
from agent.store.load import load
from agent.store.transcript import Transcript
from agent.turn.compact import SUMMARY_PREFIX, choose_cut, turn_starts
from tests.fakes.scripted import ScriptedModel, tool_call
from tests.fakes.tools import FnTool
from tests.helpers.events import Events

SUMMARY = '## Goal\nFix it.\n## User\'s standing instructions\n"always use tabs"'


def long_history(turns: int) -> list[Message]:
    h: list[Message] = []
    for i in range(turns):
        h.append(user(f"prompt {i}"))
        h.append(assistant(tool_call(f"t{i}", "Echo")))
        h.append(Message("user", (ToolResultBlock(f"t{i}", "x" * 400),)))
        h.append(assistant(f"answer {i}"))
    return h


def make(tmp_path: Path, script, **config) -> tuple[Session, Events, ScriptedModel]:
    model = ScriptedModel(script)
    events = Events()
    cfg = SessionConfig(workspace=tmp_path, model="claude-sonnet-5-5", system="base", **config)
    return (
        Session(cfg, model, [FnTool("Echo", lambda a, c: "e", read_only=True)], events),
        events,
        model,
    )


def test_cut_is_at_a_turn_start() -> None:
    h = long_history(5)
    assert turn_starts(h) == [0, 4, 8, 12, 16]
    cut = choose_cut(h, keep_tokens=10_000, keep_turns=2)
    assert cut == 12
    assert choose_cut(h[:4], keep_tokens=10_000) == 0


async def test_compact_keeps_recent_turns_invariant_and_reinjects_memory(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("Use tabs.")
    session, events, model = make(
        tmp_path,
        [SUMMARY, "next answer"],
        refresh_system=lambda: system_prompt(tmp_path, load_memory(tmp_path)),
    )
    session.history.extend(long_history(5))
    kept_tail = session.history[13:]
    (tmp_path / "AGENTS.md").write_text("Use tabs. Also: never push.")
    session.submit(ops.Compact("the failing test"))
    await session.wait_idle()
    done = events.of(ev.Compacted)[0]
    assert not done.automatic and done.summary == SUMMARY
    # the summary request asked for the structured summary with the focus
    asked = model.requests[0].messages[-1].content[-1].text
    assert "standing instructions" in asked and "the failing test" in asked
    h = session.history
    assert h[0].content[0] == TextBlock(SUMMARY_PREFIX + SUMMARY)
    assert h[0].content[1] == TextBlock("prompt 3")
    assert h[1:] == kept_tail  # the last turns, whole
    check_invariant(h, at_rest=True)
    assert "never push" in session.spec.system[0]["text"]  # memory re-read, not summarised
    session.submit(ops.SubmitPrompt("carry on"))
    await session.wait_idle()
    check_invariant(model.requests[-1].messages)


async def test_failed_compaction_leaves_session_usable(tmp_path: Path) -> None:
    session, events, model = make(tmp_path, [RuntimeError("boom"), "still here"])
    session.history.extend(long_history(3))
    before = list(session.history)
    session.submit(ops.Compact())
    await session.wait_idle()
    assert session.history == before
    assert "Compaction failed" in events.of(ev.Error)[0].message
    session.submit(ops.SubmitPrompt("hello"))
    await session.wait_idle()
    assert events.of(ev.TurnFinished)[-1].subtype == "success"


async def test_compacting_an_empty_conversation_is_a_notice_not_a_failure(
    tmp_path: Path,
) -> None:
    session, events, model = make(tmp_path, [])
    session.submit(ops.Compact())
    await session.wait_idle()
    assert [n.text for n in events.of(ev.Notice)] == [
        "Nothing to compact yet: the conversation is empty."
    ]
    assert not events.of(ev.Error) and model.requests == [] and session.history == []


def fills_the_context_then_answers() -> Any:
    """A model whose first response nearly fills the window and calls a tool (so the next call
    is compacted first), that summarises when asked, and then answers "done"."""
    big = Usage(input_tokens=900_000, output_tokens=10)
    calls: list[int] = []

    def script(history: Any) -> Any:
        last = history[-1].content[-1]
        if isinstance(last, TextBlock) and "write a summary" in last.text:
            return SUMMARY
        if not calls:
            calls.append(1)
            return ModelResponse(assistant(tool_call("t1", "Echo")), "tool_use", big)
        return "done"

    return script


async def test_automatic_compaction_when_context_nearly_full(tmp_path: Path) -> None:
    script = fills_the_context_then_answers()
    session, events, model = make(tmp_path, script)
    session.history.extend(long_history(3))
    session.submit(ops.SubmitPrompt("go"))
    await session.wait_idle()
    assert events.of(ev.Compacted) and events.of(ev.Compacted)[0].automatic
    assert any("compacting" in n.text for n in events.of(ev.Notice))
    assert events.of(ev.TurnFinished)[-1].subtype == "success"
    final_request = model.requests[-1].messages
    check_invariant(final_request)
    assert final_request[0].content[0].text.startswith(SUMMARY_PREFIX)


async def test_compacted_session_resumes(tmp_path: Path) -> None:
    session, events, model = make(tmp_path, ["first", SUMMARY])
    transcript = Transcript.create(tmp_path, model="claude-sonnet-5-5")
    session.attach_transcript(transcript)
    session.submit(ops.SubmitPrompt("one"))
    await session.wait_idle()
    session.submit(ops.SubmitPrompt("two"))  # exhausts nothing: 'SUMMARY' answers it
    await session.wait_idle()
    session.submit(ops.Compact())
    await session.wait_idle()
    transcript.close()
    loaded = load(transcript.path)
    assert loaded.history == session.history


async def test_budget_cap_stops_and_can_be_raised(tmp_path: Path) -> None:
    n = 0

    def script(history):
        nonlocal n
        n += 1
        if n > 6:
            return ModelResponse(assistant("done"), "end_turn", Usage(), 1.0)
        return ModelResponse(assistant(tool_call(f"c{n}", "Echo")), "tool_use", Usage(), 1.0)

    session, events, model = make(tmp_path, script)
    session.submit(ops.SetLimits(max_budget_usd=3))
    session.submit(ops.SubmitPrompt("work"))
    await session.wait_idle()
    stop = events.of(ev.TurnFinished)[-1]
    assert stop.subtype == "error_max_budget_usd" and model.calls == 3
    assert any("budget" in n.text for n in events.of(ev.Notice))
    session.submit(ops.SetLimits(max_budget_usd=100))
    session.submit(ops.SubmitPrompt("continue"))
    await session.wait_idle()
    assert events.of(ev.TurnFinished)[-1].subtype == "success"
    check_invariant(model.requests[-1].messages)


async def test_turn_cap_can_be_set_and_removed(tmp_path: Path) -> None:
    n = 0

    def script(history):
        nonlocal n
        n += 1
        return assistant(tool_call(f"c{n}", "Echo")) if n % 10 else "ok"

    session, events, model = make(tmp_path, script)
    session.submit(ops.SetLimits(max_turns=2))
    session.submit(ops.SubmitPrompt("go"))
    await session.wait_idle()
    assert events.of(ev.TurnFinished)[-1].subtype == "error_max_turns"
    session.submit(ops.SetLimits(max_turns=0))
    session.submit(ops.SubmitPrompt("go on"))
    await session.wait_idle()
    assert events.of(ev.TurnFinished)[-1].subtype == "success"


async def test_a_first_turn_compaction_keeps_the_prompt_verbatim(tmp_path: Path) -> None:
    prompt = "Rename every `foo` to `bar` in src/, but never touch src/vendor/."
    script = fills_the_context_then_answers()
    session, events, model = make(tmp_path, script)
    session.submit(ops.SubmitPrompt(prompt))
    await session.wait_idle()
    assert events.of(ev.Compacted)
    after = model.requests[-1].messages
    check_invariant(after)
    assert after[0].content[0].text.startswith(SUMMARY_PREFIX)
    assert prompt in [b.text for b in after[0].content if isinstance(b, TextBlock)]
