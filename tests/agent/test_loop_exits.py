"""The loop's unusual exits, all caught in ``Turn.run`` (issue 17): each leaves the history
valid and says what happened; a bug in the engine is one of them, not a crash of the session."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent import events as ev
from agent.messages import Message, TextBlock, ToolUseBlock, check_invariant
from agent.turn import loop
from agent.turn.loop import INTERRUPT_NOTE
from agent.turn.outcome import Limits, TurnInterrupted
from agent.turn.race import race_interrupt
from agent.turn.runner import GateDecision
from tests.fakes.scripted import ScriptedModel, tool_call
from tests.fakes.tools import FnTool
from tests.helpers.engine import run_turn


def echo() -> FnTool:
    return FnTool("Echo", lambda a, c: "e", read_only=True)


async def test_a_bug_in_the_engine_ends_the_turn_with_a_valid_history(tmp_path: Path) -> None:
    model = ScriptedModel([Message("assistant", (tool_call("t1", "Echo"),)), RuntimeError("oops")])
    outcome, history, rec = await run_turn(model, [echo()], workspace=tmp_path)
    assert outcome.subtype == "error_during_execution"
    assert outcome.error == "internal error: RuntimeError: oops"
    assert [e.kind for e in rec.of(ev.Error)] == ["internal"]
    check_invariant(history)
    assert history[-1].content[-1] == TextBlock(INTERRUPT_NOTE)


@pytest.mark.parametrize(
    ("limits", "subtype", "notice"),
    [
        (Limits(max_turns=0), "error_max_turns", "turn limit (0)"),
        (Limits(max_budget_usd=1.0), "error_max_budget_usd", "budget"),
    ],
)
async def test_limits_stop_with_a_notice_and_an_unchanged_history(
    tmp_path: Path, limits: Limits, subtype: str, notice: str
) -> None:
    model = ScriptedModel([Message("assistant", (tool_call("t1", "Echo"),))], cost_per_call=2.0)
    outcome, history, rec = await run_turn(model, [echo()], workspace=tmp_path, limits=limits)
    assert outcome.subtype == subtype and outcome.error is None
    assert notice in rec.of(ev.Notice)[-1].text
    assert len(history) == 1 and not rec.of(ev.Error)


async def test_esc_is_an_exception_of_its_own_name_and_an_event_of_another(tmp_path) -> None:
    assert TurnInterrupted is not ev.Interrupted and not hasattr(loop, "Interrupted")
    interrupt = asyncio.Event()
    interrupt.set()
    outcome, history, rec = await run_turn(
        ScriptedModel(["never"]), [], workspace=tmp_path, interrupt=interrupt
    )
    assert outcome.subtype == "interrupted" and len(rec.of(ev.Interrupted)) == 1
    check_invariant(history)


async def test_a_repeated_id_across_responses_gets_a_fresh_id_before_it_runs(tmp_path) -> None:
    tool = echo()
    model = ScriptedModel(
        [
            Message("assistant", (tool_call("t1", "Echo", x=1),)),
            Message("assistant", (tool_call("t1", "Echo", x=2),)),
            "done",
        ]
    )
    outcome, history, _ = await run_turn(model, [tool], workspace=tmp_path)
    assert outcome.subtype == "success"
    check_invariant(history, at_rest=True)
    second = history[3].content[0]
    assert isinstance(second, ToolUseBlock) and second.id == "t1_repeat2"
    assert tool.calls == [{"x": 1}]


async def test_blank_text_inside_a_tool_result_never_reaches_the_model(tmp_path) -> None:
    from tools.base import ToolResult

    blank = FnTool("Blank", lambda a, c: ToolResult([{"type": "text", "text": "\n"}]))
    model = ScriptedModel([Message("assistant", (tool_call("t1", "Blank"),)), "done"])
    outcome, history, _ = await run_turn(model, [blank], workspace=tmp_path)
    assert outcome.subtype == "success"
    check_invariant(model.requests[-1].messages)


@pytest.mark.parametrize("read_only", [True, False])
async def test_esc_as_the_gate_allows_a_call_runs_no_tool(tmp_path: Path, read_only: bool) -> None:
    """Esc that lands while the gate decides (its hook or question ends in the same step, so
    the gate's answer and the interrupt are both in when the runner looks) stops the turn
    before the batch starts: no tool runs after Esc, and none is left running unawaited."""
    ran: list[str] = []
    interrupt = asyncio.Event()

    async def gate(_use: ToolUseBlock, _tool: object) -> GateDecision:
        interrupt.set()  # Esc, as the gate's answer comes
        return GateDecision(True)

    tool = FnTool("Probe", lambda a, c: ran.append("ran") or "done", read_only=read_only)
    model = ScriptedModel([Message("assistant", (tool_call("t1", "Probe"),))])
    outcome, history, _rec = await run_turn(
        model, [tool], workspace=tmp_path, gate=gate, interrupt=interrupt
    )
    assert outcome.subtype == "interrupted"
    # nothing ran, and nothing was left scheduled to run (a cancelled waiter aside)
    left = [
        t
        for t in asyncio.all_tasks()
        if t is not asyncio.current_task() and not t.done() and not t.cancelling()
    ]
    assert ran == [] and left == []
    check_invariant(history)


async def test_an_awaitable_already_running_is_stopped_when_esc_came_first() -> None:
    """``race_interrupt`` handed a future (a gather of calls) with Esc already in: the
    future is cancelled before its work starts, and its end is seen (no "never retrieved")."""
    ran: list[int] = []

    async def work() -> None:
        ran.append(1)

    interrupt = asyncio.Event()
    interrupt.set()
    gathered = asyncio.gather(work())
    with pytest.raises(TurnInterrupted):
        await race_interrupt(interrupt, gathered)
    await asyncio.gather(gathered, return_exceptions=True)  # its end, whatever it is
    assert ran == [] and gathered.done()


async def test_work_handed_over_after_esc_never_starts() -> None:
    """``race_interrupt`` handed a coroutine with Esc already in (a prompt's hooks and
    resources, a command's snippet): it is not started at all (scheduled, it ran its first
    step, a hook's or a shell's spawn included, before the cancel)."""
    ran: list[str] = []

    async def work() -> str:
        ran.append("hooks")
        return "verdict"

    interrupt = asyncio.Event()
    interrupt.set()
    with pytest.raises(TurnInterrupted):
        await race_interrupt(interrupt, work())
    assert ran == []
