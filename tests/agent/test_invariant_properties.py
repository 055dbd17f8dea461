"""Property: Inv holds for every request and every reachable history (docs/loop.md item 1).

Random scripted models (text, tool calls, cut responses), random gate decisions, random tool
outcomes (result, ToolError, crash, slow), random queued corrections and random interrupt points.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from agent import events as ev
from agent.messages import (
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    check_invariant,
    user,
)
from agent.model.pricing import Usage
from agent.model.protocol import ModelResponse
from agent.turn.outcome import Limits
from agent.turn.runner import GateDecision
from tests.fakes.scripted import ScriptedModel, tool_call
from tests.fakes.tools import FnTool
from tests.helpers.engine import run_turn
from tools.base import ToolError

call_st = st.fixed_dictionaries(
    {
        "tool": st.sampled_from(["Ro", "Rw", "Missing"]),
        "outcome": st.sampled_from(["ok", "tool_error", "crash", "slow", "bad_input"]),
        "gate": st.booleans(),
    }
)
response_st = st.one_of(
    st.fixed_dictionaries({"kind": st.just("text"), "text": st.text(max_size=20)}),
    st.fixed_dictionaries(
        {
            "kind": st.just("tools"),
            "calls": st.lists(call_st, min_size=1, max_size=3),
            "stop": st.sampled_from(["tool_use", "tool_use", "tool_use", "max_tokens", None]),
            "thinking": st.booleans(),
        }
    ),
)


def build_response(spec: dict, n: int) -> ModelResponse:
    if spec["kind"] == "text":
        return ModelResponse(Message("assistant", (TextBlock(spec["text"]),)), "end_turn", Usage())
    blocks: list = []
    if spec["thinking"]:
        blocks.append(ThinkingBlock("hmm", "sig"))
    blocks.append(TextBlock("working"))
    for i, call in enumerate(spec["calls"]):
        args = {"outcome": call["outcome"], "gate": call["gate"]}
        if call["outcome"] == "bad_input":
            args = {"outcome": 3}
        blocks.append(tool_call(f"t{n}_{i}", call["tool"], **args))
    return ModelResponse(Message("assistant", tuple(blocks)), spec["stop"], Usage(), 1.0)


async def behave(args, ctx):
    outcome = args["outcome"]
    if outcome == "tool_error":
        raise ToolError("it failed")
    if outcome == "crash":
        raise RuntimeError("bug in tool")
    if outcome == "slow":
        for _ in range(3):
            await asyncio.sleep(0)
    return "fine"


SCHEMA = {
    "type": "object",
    "properties": {"outcome": {"type": "string"}, "gate": {"type": "boolean"}},
    "required": ["outcome"],
}
TOOLS = [
    FnTool("Ro", behave, read_only=True, schema=SCHEMA),
    FnTool("Rw", behave, read_only=False, schema=SCHEMA),
]


async def gate(use, _tool):
    return GateDecision(bool(use.input.get("gate", True)), "refused by test gate")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    responses=st.lists(response_st, min_size=1, max_size=6),
    max_turns=st.one_of(st.none(), st.integers(0, 4)),
    interrupt_at=st.one_of(st.none(), st.integers(0, 15)),
    queue_at=st.lists(st.integers(0, 40), max_size=3),
    prior=st.sampled_from(["fresh", "after_interrupt"]),
)
def test_invariant_holds_everywhere(responses, max_turns, interrupt_at, queue_at, prior) -> None:
    requests: list[list[Message]] = []
    n = 0

    def script(history):
        nonlocal n
        requests.append(list(history))
        check_invariant(history)  # every request the model receives
        spec = responses[n] if n < len(responses) else {"kind": "text", "text": "end"}
        n += 1
        return build_response(spec, n)

    interrupt = asyncio.Event()
    queue: list[str] = []
    count = 0

    class Emit:
        def __call__(self, event: ev.Event) -> None:
            nonlocal count
            if count == interrupt_at:
                interrupt.set()
            if count in queue_at:
                queue.append(f"correction {count}")
            count += 1

    history = [user("start")]
    if prior == "after_interrupt":
        history = [
            user("start"),
            Message("assistant", (tool_call("old", "Ro", outcome="ok"),)),
            Message(
                "user",
                (
                    ToolResultBlock("old", "x"),
                    TextBlock("[Request interrupted by user]"),
                    TextBlock("go on"),
                ),
            ),
        ]

    async def main():
        from agent.model.protocol import ModelRequest
        from agent.turn.loop import Turn
        from agent.turn.runner import ToolRunner
        from tests.helpers.engine import QueueHost
        from tools.base import ToolContext

        emit = Emit()
        runner = ToolRunner(TOOLS, ToolContext(Path(".")), gate, emit)
        turn = Turn(
            history,
            ScriptedModel(script),
            ModelRequest("claude-sonnet-5-5"),
            runner,
            interrupt,
            QueueHost(queue),
            limits=Limits(max_turns=max_turns),
        )
        return await turn.run()

    out = asyncio.run(main())
    event(out.subtype)
    # the history is resumable: the next prompt (joined or appended) makes a valid request
    nxt = list(history)
    if nxt[-1].role == "user":
        nxt[-1] = nxt[-1].with_blocks(TextBlock("next"))
    else:
        nxt.append(user("next"))
    check_invariant(nxt)
    if max_turns is not None:
        assert out.calls <= max_turns + 1
        assert out.turns <= max_turns
    # every tool_use in the history has exactly one result
    for i, msg in enumerate(history):
        if msg.role == "assistant" and msg.tool_uses:
            ids = [b.tool_use_id for b in history[i + 1].content if isinstance(b, ToolResultBlock)]
            assert ids == [u.id for u in msg.tool_uses]


async def test_invariant_violation_stops_turn_without_sending(tmp_path: Path) -> None:
    model = ScriptedModel(["never"])
    broken = [user("hi"), Message("assistant", (tool_call("x", "Ro", outcome="ok"),)), user("oops")]
    out, h, rec = await run_turn(model, TOOLS, workspace=tmp_path, history=broken)
    assert out.subtype == "error_during_execution"
    assert model.calls == 0
    assert "P2" in (out.error or "")
    assert any(isinstance(e, ev.Error) and e.kind == "invariant" for e in rec.events)
