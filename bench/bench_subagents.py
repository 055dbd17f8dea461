"""Subagent overhead: 8 children in parallel, each making 50 model calls (49 tool turns on a
no-op tool), against a zero-latency model, through a real Session (gate, events, locks,
child transcripts off). Prints the harness time per child model call (target < 2 ms) and,
for comparison, per call of the main agent doing the same calls alone.
Run: .venv/bin/python bench/bench_subagents.py
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent import ops  # noqa: E402
from agent.messages import Message, TextBlock, ToolUseBlock  # noqa: E402
from agent.model.pricing import Usage  # noqa: E402
from agent.model.protocol import ModelRequest, ModelResponse  # noqa: E402
from agent.session.config import SessionConfig  # noqa: E402
from agent.session.core import Session  # noqa: E402
from agent.subagents.attach import attach_subagents  # noqa: E402
from agent.subagents.definitions import load_agents
from tools import default_tools  # noqa: E402
from tools.base import ToolResult  # noqa: E402

CHILDREN = 8
CALLS_PER_CHILD = 50


class NoopTool:
    name = "Noop"
    description = "does nothing"
    input_schema: dict[str, Any] = {"type": "object"}
    read_only = False

    async def run(self, args: dict[str, Any], ctx: Any) -> ToolResult:
        return ToolResult("ok")

    def paths(self, args: dict[str, Any], ctx: Any) -> list[Any]:
        return []

    def summary(self, args: dict[str, Any]) -> str:
        return ""


class TreeScript:
    """Zero latency: the root starts the children (or, alone, makes their calls itself)."""

    def __init__(self, alone: bool) -> None:
        self.alone = alone
        self.calls = 0

    async def respond(self, request: ModelRequest, sink: Any) -> ModelResponse:
        self.calls += 1
        h = request.messages
        first, turns = h[0].text, (len(h) - 1) // 2
        if first == "root" and not self.alone:
            if turns == 0:
                calls = [
                    ToolUseBlock(f"a{i}", "Agent", {"description": "d", "prompt": f"child {i}",
                                                    "subagent_type": "general-purpose"})
                    for i in range(CHILDREN)
                ]  # fmt: skip
                return ModelResponse(Message("assistant", tuple(calls)), "tool_use", Usage(1, 1))
            return ModelResponse(Message("assistant", (TextBlock("done"),)), "end_turn", Usage())
        limit = CALLS_PER_CHILD * (CHILDREN if self.alone else 1)
        if turns < limit - 1:
            use = ToolUseBlock(f"n{turns}", "Noop", {})
            return ModelResponse(Message("assistant", (use,)), "tool_use", Usage(1, 1))
        return ModelResponse(Message("assistant", (TextBlock("child done"),)), "end_turn", Usage())


async def run(alone: bool) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp)
        config = SessionConfig(workspace=ws, model="claude-sonnet-5-5")
        config.policy.mode = "bypassPermissions"
        model = TreeScript(alone)
        session = Session(config, model, [*default_tools(), NoopTool()], lambda e: None)
        attach_subagents(session, load_agents(ws, home=ws / "home", config=ws / "cfg"))
        start = time.perf_counter()
        session.submit(ops.SubmitPrompt("root"))
        await session.wait_idle()
        elapsed = time.perf_counter() - start
        await session.close()
        return elapsed, model.calls


def main() -> None:
    tree_s, tree_calls = asyncio.run(run(alone=False))
    alone_s, alone_calls = asyncio.run(run(alone=True))
    child_calls = CHILDREN * CALLS_PER_CHILD
    assert tree_calls == child_calls + 2, tree_calls
    per_child = tree_s / child_calls * 1000
    per_alone = alone_s / alone_calls * 1000
    print(f"{CHILDREN} parallel children x {CALLS_PER_CHILD} calls: {tree_s * 1000:.0f} ms, "
          f"{per_child:.3f} ms per child model call (target < 2 ms)")  # fmt: skip
    print(f"the main agent alone, {alone_calls} calls: {alone_s * 1000:.0f} ms, "
          f"{per_alone:.3f} ms per call")  # fmt: skip
    print(f"subagent overhead per call over the plain loop: {per_child - per_alone:+.3f} ms")


if __name__ == "__main__":
    main()
