"""Esc at a random moment of a random tree (docs/loop.md item 1 with subagents): every
agent's history ends valid, the parent gets exactly one result per Agent call, and the next
request is valid."""

from __future__ import annotations

import asyncio
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent import events as ev
from agent import ops
from agent.messages import Message, check_invariant
from agent.subagents.child import Child
from tests.agent.subagents.test_tree_budget import draw_tree
from tests.helpers.subagents import TreeModel, tree_session


async def run_and_interrupt(
    scripts: dict[str, list], after: int, closed: list[list[Message]]
) -> tuple[Any, TreeModel]:
    scripts.setdefault("root", []).append("after the interrupt")
    model = TreeModel(scripts)
    with tempfile.TemporaryDirectory() as tmp:
        session, events = tree_session(Path(tmp), model)
        seen = [0]

        first_over = [False]

        def emit(event: ev.Event) -> None:
            events(event)
            seen[0] += 1
            # Esc, from wherever the engine is at this event of the first prompt's turn (an
            # ``after`` past its end presses nothing: the "next" prompt must reach the model)
            if seen[0] == after and not first_over[0]:
                session.submit(ops.Interrupt())
            if isinstance(event, ev.TurnFinished) and event.turn_id == 1:
                first_over[0] = True

        session._emit_fn = emit
        session.submit(ops.SubmitPrompt("root"))
        await asyncio.wait_for(session.wait_idle(), 60)
        check_invariant(session.history, at_rest=True)
        for history in closed:
            check_invariant(history, at_rest=True)
        uses = [u.id for m in session.history if m.role == "assistant" for u in m.tool_uses]
        results = [
            b.tool_use_id
            for m in session.history
            for b in m.content
            if getattr(b, "tool_use_id", None) is not None
        ]
        assert results == uses  # exactly one result per call, in order
        session.submit(ops.SubmitPrompt("next"))
        await asyncio.wait_for(session.wait_idle(), 60)
        await session.close()
    return session, model


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), after=st.integers(1, 120))
def test_esc_anywhere_in_a_tree_leaves_every_history_valid(data: st.DataObject, after: int) -> None:
    scripts: dict[str, list] = {}
    draw_tree(data, "root", 0, scripts)
    closed: list[list[Message]] = []
    original = Child.run

    async def run(self: Child, prompt: str) -> Any:
        try:
            return await original(self, prompt)
        finally:
            closed.append(self.history)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Child, "run", run)
        session, model = asyncio.run(run_and_interrupt(scripts, after, closed))
    # TreeModel checked every request of every agent, the one after the interrupt included
    # (a background child's report, held while the session was idle, follows the prompt)
    reports = re.compile(r"<system-reminder>.*?</system-reminder>\s*", re.S)
    sent = [reports.sub("", r.messages[-1].text).strip() for r in model.by_prompt["root"]]
    assert any(text.endswith("next") for text in sent), sent
