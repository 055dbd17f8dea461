"""The budget B covers the whole tree (docs/loop.md, "Subagents"): the spend counts as it
happens, and at B every running agent stops at its next check, so the overshoot is at most
one response per agent running when B was reached. A property over random trees and costs,
some children in the background (outliving their call, spending from the same B)."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent import events as ev
from agent import ops
from agent.messages import assistant
from agent.model.pricing import Usage
from agent.model.protocol import ModelResponse
from tests.fakes.scripted import tool_call
from tests.helpers.subagents import TreeModel, tree_session

C_MAX = 1.0


def response(cost: float, *calls: Any) -> ModelResponse:
    msg = assistant(*calls) if calls else assistant("done")
    return ModelResponse(msg, "tool_use" if calls else "end_turn", Usage(5, 5), cost)


def draw_tree(data: st.DataObject, name: str, depth: int, scripts: dict[str, list]) -> None:
    """The script of the agent whose prompt is ``name`` and, recursively, of its children."""
    items: list[Any] = []
    cost = st.floats(0.05, C_MAX, allow_nan=False)
    for r in range(data.draw(st.integers(0, 3), label=f"{name} rounds")):
        kids = data.draw(st.integers(0, 3 if depth < 2 else 0), label=f"{name}.{r} kids")
        calls = []
        for i in range(kids):
            child = f"{name}.{r}.{i}"
            # some run in the background: they outlive the call, and spend from the same B
            background = data.draw(st.booleans(), label=f"{child} in the background")
            calls.append(
                tool_call(f"{child}-call", "Agent", description="sub", prompt=child,
                          subagent_type="general-purpose", run_in_background=background)
            )  # fmt: skip
            draw_tree(data, child, depth + 1, scripts)
        if not calls:
            calls.append(tool_call(f"{name}.{r}-glob", "Glob", pattern="*.none"))
        items.append(response(data.draw(cost), *calls))
    items.append(response(data.draw(cost)))
    scripts[name] = items


def overshoot(events: list[ev.Event], budget: float) -> tuple[float, int, int, dict[str, int]]:
    """(spend, agents live when the spend reached B, responses after that, per agent)."""
    live: set[str] = set()
    spent, reached, after = 0.0, -1, 0
    per_agent: dict[str, int] = {}
    for e in events:
        who, inner = "root", e
        if isinstance(e, ev.SubagentEvent):
            who, inner = e.agent_id, ev.from_json(e.event)
        if isinstance(inner, ev.TurnStarted):
            live.add(who)
        elif isinstance(inner, ev.TurnFinished):
            live.discard(who)
        elif isinstance(inner, ev.UsageUpdated):
            spent += inner.cost_usd
            if reached >= 0:
                after += 1
                per_agent[who] = per_agent.get(who, 0) + 1
            elif spent >= budget:
                reached = len(live)
    return spent, max(reached, 0), after, per_agent


async def run_tree(scripts: dict[str, list], budget: float) -> tuple[Any, Any, TreeModel]:
    model = TreeModel(scripts)
    with tempfile.TemporaryDirectory() as tmp:
        session, events = tree_session(Path(tmp), model)
        session.submit(ops.SetLimits(max_budget_usd=budget))
        session.submit(ops.SubmitPrompt("root"))
        await asyncio.wait_for(session.wait_idle(), 60)
        while background := list(session.ctx.subagents.background.values()):
            await asyncio.wait_for(asyncio.gather(*background), 60)  # they may start more
        await session.close()
    return session, events, model


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), budget=st.floats(0.3, 6.0, allow_nan=False))
def test_the_tree_overshoots_b_by_at_most_one_response_per_running_agent(
    data: st.DataObject, budget: float
) -> None:
    scripts: dict[str, list] = {}
    draw_tree(data, "root", 0, scripts)
    session, events, model = asyncio.run(run_tree(scripts, budget))
    spent, running, after, per_agent = overshoot(events.all, budget)
    assert abs(session.total_cost - spent) < 1e-9  # children's cost is the session's
    assert all(n <= 1 for n in per_agent.values()), per_agent
    assert after <= running
    assert spent < budget + running * C_MAX
    finished = events.of(ev.TurnFinished)[-1]
    if spent >= budget and finished.subtype != "success":
        assert finished.subtype == "error_max_budget_usd"
    # every request of every agent was valid (TreeModel checks each one)
    assert model.calls == sum(len(r) for r in model.by_prompt.values())


async def test_a_child_stops_at_b_and_the_parent_at_its_next_check(tmp_path: Path) -> None:
    agent = {"description": "sub", "subagent_type": "general-purpose"}
    scripts = {
        "root": [
            response(1.0, tool_call("a", "Agent", prompt="kid", **agent)),
            response(1.0, tool_call("g", "Glob", pattern="*")),
            response(1.0),
        ],
        "kid": [response(1.0, tool_call(f"k{i}", "Glob", pattern="*")) for i in range(9)],
    }
    model = TreeModel(scripts)
    session, events = tree_session(tmp_path, model)
    session.submit(ops.SetLimits(max_budget_usd=3.0))
    session.submit(ops.SubmitPrompt("root"))
    await session.wait_idle()
    # root 1, kid 1 (2), kid 1 (3 = B: the kid stops), root 1 asks for tools: stops (4)
    assert len(model.by_prompt["kid"]) == 2 and len(model.by_prompt["root"]) == 2
    assert session.total_cost == 4.0
    assert events.of(ev.TurnFinished)[-1].subtype == "error_max_budget_usd"
    result = session.history[2].content[0]
    assert result.is_error and "stopped before finishing" in str(result.content)
