"""The budget B holds with background agents too (docs/loop.md, "Subagents": the SAME B):
a background agent outlives the turn that started it, so it and the session's turns check the
session's spend as it happens (``Limits.live``), not each its own tree's. The overshoot stays
at most one response per agent running when B was reached."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agent import events as ev
from agent import ops
from tests.agent.subagents.test_tree_budget import response
from tests.fakes.scripted import tool_call
from tests.helpers.subagents import TreeModel, tree_session

ROUNDS = 12


def glob(name: str, i: int) -> object:
    return tool_call(f"{name}-g{i}", "Glob", pattern="*.none")


async def test_a_background_agent_and_its_parent_share_one_budget(tmp_path: Path) -> None:
    start = tool_call("bg", "Agent", description="bg", prompt="bgkid",
                      subagent_type="general-purpose", run_in_background=True)  # fmt: skip
    scripts = {
        "root": [response(1.0, start)] + [response(1.0, glob("r", i)) for i in range(ROUNDS)],
        "bgkid": [response(1.0, glob("k", i)) for i in range(ROUNDS)],
    }
    child_began = asyncio.Event()
    root_calls = 0

    async def root_waits() -> None:  # after starting the child, the two alternate
        nonlocal root_calls
        root_calls += 1
        if root_calls > 1:
            await child_began.wait()

    async def child_begins() -> None:
        child_began.set()

    model = TreeModel(scripts, hold={"root": root_waits, "bgkid": child_begins})
    session, events = tree_session(tmp_path, model)
    session.submit(ops.SetLimits(max_budget_usd=4.0))
    session.submit(ops.SubmitPrompt("root"))
    await session.wait_idle()
    host = session.ctx.subagents
    await asyncio.gather(*host.background.values())
    # B = 4 with two agents spending: at most one more response each once the spend is 4
    # (each agent checking only its own tree spent 4 + 3 and more)
    assert 4.0 <= session.total_cost <= 6.0, session.total_cost
    assert len(model.by_prompt["root"]) + len(model.by_prompt["bgkid"]) <= 6
    assert events.of(ev.TurnFinished)[-1].subtype == "error_max_budget_usd"
    # the background agent's end says the budget stopped it too
    assert host.tasks and all(t.status == "failed" for t in host.tasks.values())
    # the next prompt finds the budget spent: its first call for tools stops it
    before = model.calls
    scripts_left = model.scripts["root"]
    scripts_left[:] = [response(1.0, glob("n", 0)), response(1.0)]
    session.submit(ops.SubmitPrompt("next"))  # same session: its requests count as "root"'s
    await session.wait_idle()
    assert model.calls - before <= 1
    assert events.of(ev.TurnFinished)[-1].subtype == "error_max_budget_usd"
    await session.close()


async def test_a_report_queued_after_b_waits_for_the_users_next_prompt(tmp_path: Path) -> None:
    """A background agent's report that reaches a turn as a queued message would make the
    finished turn go on (one more model call nobody asked for); past B it waits instead."""
    start = tool_call("bg", "Agent", description="bg", prompt="bgkid",
                      subagent_type="general-purpose", run_in_background=True)  # fmt: skip
    scripts = {
        "root": [response(1.0, start), response(1.0), response(1.0)],
        "bgkid": [response(1.0)],
    }
    calls = 0
    holder: dict[str, object] = {}

    async def root_waits_for_the_report() -> None:
        nonlocal calls
        calls += 1
        if calls == 2:  # the child ends (its report queued) before the root's answer
            await asyncio.gather(*holder["host"].background.values())  # type: ignore[attr-defined]

    model = TreeModel(scripts, hold={"root": root_waits_for_the_report})
    session, events = tree_session(tmp_path, model)
    holder["host"] = session.ctx.subagents
    session.submit(ops.SetLimits(max_budget_usd=2.0))
    session.submit(ops.SubmitPrompt("root"))
    await session.wait_idle()
    assert len(model.by_prompt["root"]) == 2 and len(model.by_prompt["bgkid"]) == 1
    assert session.total_cost == 3.0  # B = 2: one response each of the two running agents
    notices = [e.text for e in events.of(ev.Notice)]
    assert any("budget is spent" in t and "waits for your next prompt" in t for t in notices)
    assert session.reports.pending  # the report is still there for the next prompt
    await session.close()
