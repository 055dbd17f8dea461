"""Background work that reports back, in random trees (docs/loop.md, agent/session/reports.py):
background children that end while eddy is idle start turns by themselves, and those turns
draw more work (tool calls, more background children). Whatever the tree, the budget B, the
``maxSelfStartedTurns`` cap and an Esc at a random moment (in any turn, a self-started one
included), the loop's promises hold:

- every request of every agent keeps the pairing invariant (TreeModel checks each one);
- at most ``limit`` turns start by themselves with no prompt from the user, and a notice says
  so when a report is held for it;
- no turn starts by itself once the spend reached B, and the overshoot stays under one
  response per agent running when B was reached;
- after Esc in a turn that reports started, no turn starts by itself until the user writes;
- nothing is lost: every report reaches the root model exactly once (after the user's next
  prompt at the latest), never twice.
"""

from __future__ import annotations

import asyncio
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from agent import events as ev
from agent import ops
from agent.messages import check_invariant
from agent.session.core import Session
from tests.agent.subagents.test_tree_budget import C_MAX, draw_tree, overshoot, response
from tests.fakes.scripted import tool_call
from tests.helpers.subagents import TreeModel, tree_session

TASK_ID = re.compile(r"<task-id>(.*?)</task-id>")


def draw_report_turns(data: st.DataObject, scripts: dict[str, list]) -> None:
    """What the root answers in the turns reports start: each a few rounds of tool calls
    (a Glob, foreground or background children with their own scripts) and a final text."""
    for k in range(data.draw(st.integers(0, 3), label="report turns")):
        items: list[Any] = []
        for r in range(data.draw(st.integers(0, 2), label=f"turn {k} rounds")):
            child = f"bg{k}.{r}"
            if data.draw(st.booleans(), label=f"{child} drawn"):
                background = data.draw(st.booleans(), label=f"{child} in the background")
                args = {"description": "sub", "prompt": child, "run_in_background": background}
                call = tool_call(f"{child}-call", "Agent", subagent_type="general-purpose", **args)
                draw_tree(data, child, 1, scripts)
            else:
                call = tool_call(f"{child}-glob", "Glob", pattern="*.none")
            items.append(response(data.draw(st.floats(0.05, C_MAX), label="cost"), call))
        items.append(response(data.draw(st.floats(0.05, C_MAX), label="cost")))
        scripts["root"].extend(items)


@dataclass
class Run:
    """What one run saw: the events, and the spend when each self-started turn began."""

    session: Session
    model: TreeModel
    events: list[ev.Event]
    before_next: int = 0
    """How many events came before the user's second prompt ("next")."""
    waiting_at_next: int = 0
    """How many reports that may start a turn waited, at rest, before that prompt."""
    spent_at_start: list[float] = field(default_factory=list)


async def settle(session: Session) -> None:
    """Wait until nothing runs and nothing will start: no turn, no background child, no
    report's turn about to be decided."""
    host = session.ctx.subagents
    assert host is not None
    while True:
        await asyncio.wait_for(session.wait_idle(), 60)
        if background := list(host.background.values()):
            await asyncio.wait_for(asyncio.gather(*background), 60)  # they may start more
            continue
        await asyncio.sleep(0)  # a report's turn is decided on the loop's next round
        if not session.busy and not session.reports.due and not host.background:
            return


async def run_reports(
    scripts: dict[str, list], budget: float | None, limit: int, esc_at: int
) -> Run:
    model = TreeModel(scripts)
    with tempfile.TemporaryDirectory() as tmp:
        session, events = tree_session(Path(tmp), model)
        session.reports.limit = limit
        run = Run(session, model, events.all)
        first_over = [False]

        def emit(event: ev.Event) -> None:
            events(event)
            if isinstance(event, ev.TurnStarted) and event.origin == "background":
                run.spent_at_start.append(session.spend.live(False))
            # Esc from wherever the engine is at this event, before the user's second prompt
            if len(events.all) == esc_at and not first_over[0]:
                session.submit(ops.Interrupt())

        session._emit_fn = emit
        if budget is not None:
            session.submit(ops.SetLimits(max_budget_usd=budget))
        session.submit(ops.SubmitPrompt("root"))
        await settle(session)
        first_over[0] = True
        run.before_next = len(events.all)
        run.waiting_at_next = sum(r.wake for r in session.reports.pending)
        check_invariant(session.history, at_rest=True)
        session.submit(ops.SubmitPrompt("next"))
        await settle(session)
        check_invariant(session.history, at_rest=True)
        await session.close()
    return run


def check_self_started_turns(run: Run, limit: int) -> None:
    """The cap, Esc's hold and the notices, before the user's second prompt."""
    first = run.events[: run.before_next]
    started = [e for e in first if isinstance(e, ev.TurnStarted)]
    by_reports = [e for e in started if e.origin == "background"]
    assert len(by_reports) <= limit, (len(by_reports), limit)
    origin = {e.turn_id: e.origin for e in started}
    stopped = [
        i
        for i, e in enumerate(first)
        if isinstance(e, ev.TurnFinished)
        and e.subtype == "interrupted"
        and origin.get(e.turn_id) == "background"
    ]
    if stopped:  # Esc in a turn reports started: none starts by itself until the user writes
        later = first[stopped[0] :]
        assert not [e for e in later if isinstance(e, ev.TurnStarted)], later
    # a report that may start a turn, held at rest by the cap then: a notice said so then
    # (the reports pending at the very end may have come after the user's second prompt)
    if len(by_reports) == limit and limit > 0 and run.waiting_at_next:
        notices = [e.text for e in first if isinstance(e, ev.Notice)]
        assert any("waits for your next prompt" in t for t in notices), notices


def check_budget(run: Run, budget: float | None) -> None:
    """No self-started turn once B is reached; the tree overshoots B by at most one
    response per agent running when B was reached."""
    if budget is None:
        return
    assert all(spent < budget for spent in run.spent_at_start), (run.spent_at_start, budget)
    spent, running, after, per_agent = overshoot(run.events[: run.before_next], budget)
    assert all(n <= 1 for n in per_agent.values()), per_agent
    assert after <= running
    assert spent < budget + running * C_MAX


def check_nothing_lost(run: Run) -> None:
    """Every report reached the root model exactly once, or waits (held) for a prompt."""
    reported = [e.task_id for e in run.events if isinstance(e, ev.BackgroundReported)]
    assert len(reported) == len(set(reported))
    read = [
        task_id
        for m in run.session.history
        if m.role == "user"
        for b in m.content
        for task_id in TASK_ID.findall(getattr(b, "text", ""))
    ]
    waiting = [r.task_id for r in run.session.reports.pending]
    assert sorted(read + waiting) == sorted(reported), (read, waiting, reported)
    if waiting:  # held after the last prompt: a notice said why
        assert run.session.reports.held


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    budget=st.none() | st.floats(0.3, 8.0, allow_nan=False),
    limit=st.integers(0, 3),
    esc_at=st.integers(1, 400),
)
def test_reports_that_start_turns_keep_every_promise_of_the_loop(
    data: st.DataObject, budget: float | None, limit: int, esc_at: int
) -> None:
    scripts: dict[str, list] = {}
    draw_tree(data, "root", 0, scripts)
    draw_report_turns(data, scripts)
    run = asyncio.run(run_reports(scripts, budget, limit, esc_at))
    check_self_started_turns(run, limit)
    check_budget(run, budget)
    check_nothing_lost(run)
    kinds = {e.origin for e in run.events if isinstance(e, ev.TurnStarted)}
    event(f"origins {sorted(kinds)}")
    ends = {(e.subtype) for e in run.events if isinstance(e, ev.TurnFinished)}
    event(f"ends {sorted(ends)}")
    event(f"held {bool([e for e in run.events if isinstance(e, ev.Notice) and 'waits' in e.text])}")
    # TreeModel checked every request of every agent; the user's second prompt reached it
    sent = [r.messages[-1].text for r in run.model.by_prompt["root"]]
    assert any("next" in text for text in sent), sent
