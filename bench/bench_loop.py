"""Harness overhead: 1,000 turns with a zero-latency scripted model and a no-op tool.

The history grows to 2,000+ messages; the loop must not copy it or do quadratic work per turn.
Prints total and per-turn time, and the per-turn time over the first and last 100 turns (a
ratio near 1 means no growth with history length). Run: .venv/bin/python bench/bench_loop.py
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent.messages import Message, ToolUseBlock, user  # noqa: E402
from agent.model.pricing import Usage  # noqa: E402
from agent.model.protocol import ModelRequest, ModelResponse  # noqa: E402
from agent.turn.loop import Turn  # noqa: E402
from agent.turn.runner import ToolRunner, allow_all_gate  # noqa: E402
from tools.base import ToolContext, ToolResult  # noqa: E402

TURNS = 1000


class NoopTool:
    name = "Noop"
    description = "does nothing"
    input_schema = {"type": "object"}
    read_only = False

    async def run(self, args, ctx):
        return ToolResult("ok")

    def paths(self, args, ctx):
        return []

    def summary(self, args):
        return ""


class ZeroLatencyModel:
    """Answers instantly; records when each call arrives."""

    name = "zero"

    def __init__(self) -> None:
        self.stamps: list[float] = []
        self.usage = Usage(10, 5)

    async def respond(self, request, sink):
        self.stamps.append(time.perf_counter())
        n = len(self.stamps)
        if n > TURNS:
            return ModelResponse(Message("assistant", ()), "end_turn", self.usage, 0.0)
        block = ToolUseBlock(f"toolu_{n}", "Noop", {})
        sink.block_done(block)
        return ModelResponse(Message("assistant", (block,)), "tool_use", self.usage, 0.0)


async def main() -> None:
    model = ZeroLatencyModel()
    events = 0

    def emit(_event) -> None:
        nonlocal events
        events += 1

    history = [user("go")]
    runner = ToolRunner([NoopTool()], ToolContext(Path(".")), allow_all_gate(), emit)
    turn = Turn(history, model, ModelRequest("claude-sonnet-5-5"), runner, asyncio.Event())
    start = time.perf_counter()
    out = await turn.run()
    total = time.perf_counter() - start
    s = model.stamps
    first = (s[100] - s[0]) / 100 * 1000
    last = (s[-1] - s[-101]) / 100 * 1000
    print(f"turns: {out.turns}, model calls: {out.calls}, history: {len(history)} messages")
    print(f"events emitted: {events}")
    print(f"total: {total * 1000:.1f} ms, per turn: {total / out.turns * 1000:.3f} ms")
    print(f"per turn, first 100 turns: {first:.3f} ms; last 100 turns: {last:.3f} ms")
    print(f"last/first ratio: {last / first:.2f} (target: per turn < 1 ms at the end)")


if __name__ == "__main__":
    asyncio.run(main())
