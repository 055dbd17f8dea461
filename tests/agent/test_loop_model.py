"""The (test) items of docs/loop.md against the real loop, with scripted models."""

from __future__ import annotations

import asyncio
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent.messages import ToolResultBlock, ToolUseBlock, assistant, check_invariant, is_valid
from agent.model.pricing import Usage
from agent.model.protocol import ModelResponse
from agent.turn.outcome import Limits
from agent.turn.runner import GateDecision
from tests.fakes.scripted import ScriptedModel, tool_call
from tests.fakes.tools import FnTool
from tests.helpers.engine import run_turn
from tools import default_tools


def deny_etc_gate():
    async def gate(use: ToolUseBlock, _tool) -> GateDecision:
        if str(use.input.get("file_path", "")).startswith("/etc/"):
            return GateDecision(False, "writing under /etc/ is not allowed")
        return GateDecision(True)

    return gate


def reference_script():
    return [
        assistant(
            tool_call("r1", "Read", file_path="a.py"), tool_call("r2", "Read", file_path="t.py")
        ),
        assistant(tool_call("w1", "Write", file_path="a.py", content="fixed")),
        assistant(tool_call("w2", "Write", file_path="/etc/x", content="evil")),
        "done",
    ]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "a.py").write_text("broken\n")
    (tmp_path / "t.py").write_text("assert a == 'fixed'\n")
    return tmp_path


async def test_reference_run_unlimited(repo: Path) -> None:
    model = ScriptedModel(reference_script())
    out, h, rec = await run_turn(model, default_tools(), workspace=repo, gate=deny_etc_gate())
    assert out.subtype == "success"
    assert (out.calls, out.turns, len(h)) == (4, 3, 8)
    assert is_valid(h, at_rest=True)
    assert (repo / "a.py").read_text() == "fixed"
    assert not Path("/etc/x").exists()
    refusal = h[6].content[0]
    assert isinstance(refusal, ToolResultBlock) and refusal.is_error
    assert "/etc/" in str(refusal.content)


async def test_reference_run_turn_limit_2(repo: Path) -> None:
    model = ScriptedModel(reference_script())
    out, h, _ = await run_turn(
        model, default_tools(), workspace=repo, gate=deny_etc_gate(), limits=Limits(max_turns=2)
    )
    assert out.subtype == "error_max_turns"
    assert (out.calls, out.turns, len(h)) == (3, 2, 5)
    assert (repo / "a.py").read_text() == "fixed"
    assert is_valid(h, at_rest=True)


def always_tool_model(cost: float | None = None) -> ScriptedModel:
    n = 0

    def script(_history):
        nonlocal n
        n += 1
        return assistant(tool_call(f"c{n}", "Noop"))

    return ScriptedModel(script, cost_per_call=cost)


NOOP = FnTool("Noop", lambda args, ctx: "ok", read_only=True)


@pytest.mark.parametrize(("limit", "calls", "length"), [(2, 3, 5), (5, 6, 11), (0, 1, 1)])
async def test_always_tool_model_turn_limit(tmp_path: Path, limit: int, calls: int, length: int):
    model = always_tool_model()
    out, h, _ = await run_turn(model, [NOOP], workspace=tmp_path, limits=Limits(max_turns=limit))
    assert out.subtype == "error_max_turns"
    assert out.calls == calls == model.calls
    assert out.turns == limit
    assert len(h) == length


async def test_always_tool_model_budget(tmp_path: Path) -> None:
    model = always_tool_model(cost=3)
    out, h, _ = await run_turn(model, [NOOP], workspace=tmp_path, limits=Limits(max_budget_usd=10))
    assert out.subtype == "error_max_budget_usd"
    assert out.calls == 4
    assert out.cost_usd == 12
    assert is_valid(h, at_rest=True)


async def test_unlimited_turns_never_stop_on_their_own(tmp_path: Path) -> None:
    interrupt = asyncio.Event()
    n = 0

    def script(_history):
        nonlocal n
        n += 1
        if n == 300:
            interrupt.set()  # only the outside can stop it
        return assistant(tool_call(f"c{n}", "Noop"))

    out, h, _ = await run_turn(
        ScriptedModel(script), [NOOP], workspace=tmp_path, interrupt=interrupt
    )
    assert out.subtype == "interrupted"
    assert n == 300
    check_invariant(h)


async def test_refused_call_leaves_environment_and_loop_continues(tmp_path: Path) -> None:
    touched: list[str] = []
    tool = FnTool("Touch", lambda args, ctx: touched.append(args["x"]) or "touched")

    async def gate(use, _tool):
        return GateDecision(use.input["x"] != "forbidden", "the user said no")

    model = ScriptedModel(
        [
            assistant(tool_call("t1", "Touch", x="forbidden"), tool_call("t2", "Touch", x="ok")),
            "finished",
        ]
    )
    out, h, _ = await run_turn(model, [tool], workspace=tmp_path, gate=gate)
    assert out.subtype == "success" and out.calls == 2
    assert touched == ["ok"]
    r1, r2 = h[2].content[:2]
    assert isinstance(r1, ToolResultBlock) and r1.is_error and "the user said no" in str(r1.content)
    assert isinstance(r2, ToolResultBlock) and not r2.is_error
    # the model saw the refusal on its next call
    assert model.requests[1].messages[2].content[0] == r1


@settings(max_examples=60, deadline=None)
@given(
    # multiples of 1/8 add up exactly in binary floating point, as the bound assumes
    budget=st.integers(4, 400).map(lambda k: k / 8),
    costs=st.lists(st.integers(1, 40).map(lambda k: k / 8), min_size=1, max_size=20),
)
def test_budget_overshoot_is_less_than_one_response(budget: float, costs: list[float]) -> None:
    calls = 0

    def script(_history):
        nonlocal calls
        cost = costs[calls % len(costs)]
        calls += 1
        return ModelResponse(assistant(tool_call(f"c{calls}", "Noop")), "tool_use", Usage(), cost)

    async def main():
        return await run_turn(
            ScriptedModel(script), [NOOP], workspace=Path("."), limits=Limits(max_budget_usd=budget)
        )

    out, _, _ = asyncio.run(main())
    assert out.subtype == "error_max_budget_usd"
    c_max, c_min = max(costs), min(costs)
    assert budget <= out.cost_usd < budget + c_max
    assert out.calls <= math.ceil(budget / c_min)


async def test_read_only_calls_run_concurrently_results_in_order(tmp_path: Path) -> None:
    started = {"a": asyncio.Event(), "b": asyncio.Event()}

    async def slow(args, ctx):
        started[args["k"]].set()
        other = "b" if args["k"] == "a" else "a"
        # each call waits until the other one is running: sequential execution would hang
        await asyncio.wait_for(started[other].wait(), timeout=5)
        if args["k"] == "a":
            await asyncio.sleep(0.01)  # finish last, to show results are still in tool_use order
        return f"result {args['k']}"

    tool = FnTool("Look", slow, read_only=True)
    model = ScriptedModel(
        [assistant(tool_call("a", "Look", k="a"), tool_call("b", "Look", k="b")), "ok"]
    )
    out, h, rec = await run_turn(model, [tool], workspace=tmp_path)
    assert out.subtype == "success"
    assert [b.tool_use_id for b in h[2].content] == ["a", "b"]
    assert [b.content for b in h[2].content] == ["result a", "result b"]


async def test_state_changing_calls_run_one_at_a_time_in_order(tmp_path: Path) -> None:
    line: list[str] = []
    running = 0
    peak = 0

    async def edit(args, ctx):
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0)
        line[:] = [args["text"]]
        running -= 1
        return "edited"

    tool = FnTool("Set", edit)
    calls = [tool_call(f"s{i}", "Set", text=t) for i, t in enumerate(["first", "second", "third"])]
    model = ScriptedModel([assistant(*calls), "ok"])
    await run_turn(model, [tool], workspace=tmp_path)
    assert line == ["third"]  # the model's order decides the outcome
    assert peak == 1
