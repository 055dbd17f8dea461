"""What a no-op PreToolUse hook adds to each tool call (issue 19; target < 30 ms per call).

A session runs N tool calls through the real loop, gate and runner (a scripted model, so no
network; a trivial tool) three ways in the same run: without hooks, with a no-op hook
(``true``), and with a no-op bash script hook that reads its stdin. Prints the time per call
of each, the added time per call and the ratio against no hook. Asserts nothing.
Run: .venv/bin/python bench/bench_hooks.py [--calls N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent import ops  # noqa: E402
from agent.hooks.config import HookConfig, load_hooks  # noqa: E402
from agent.messages import assistant  # noqa: E402
from agent.permissions.policy import Policy, Rule  # noqa: E402
from agent.session.config import SessionConfig  # noqa: E402
from agent.session.core import Session  # noqa: E402
from tests.fakes.scripted import ScriptedModel, tool_call  # noqa: E402
from tools.base import ToolContext, ToolResult  # noqa: E402


class Noop:
    """A tool that does nothing (what is measured is the path around it)."""

    name = "Noop"
    description = "does nothing"
    input_schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    read_only = False

    async def run(self, args: dict, ctx: ToolContext) -> ToolResult:
        return ToolResult("ok")

    def paths(self, args: dict, ctx: ToolContext) -> list:
        return []

    def summary(self, args: dict) -> str:
        return ""


async def per_call_ms(workspace: Path, hooks: HookConfig, calls: int) -> float:
    """Milliseconds per tool call over ``calls`` calls of one turn."""
    script = [assistant(tool_call(f"t{i}", "Noop", n=i)) for i in range(calls)] + ["done"]
    config = SessionConfig(
        workspace=workspace,
        model="claude-sonnet-5-5",
        policy=Policy(allow=[Rule.parse("Noop")]),
        hooks=hooks,
    )
    session = Session(config, ScriptedModel(script), [Noop()], lambda e: None)
    start = time.perf_counter()
    session.submit(ops.SubmitPrompt("go"))
    await session.wait_idle()
    elapsed = (time.perf_counter() - start) * 1000
    await session.close()
    return elapsed / calls


def hook_config(command: str) -> HookConfig:
    data = {"hooks": {"PreToolUse": [{"matcher": "Noop", "hooks": [{"command": command}]}]}}
    problems: list[str] = []
    config = load_hooks([("bench", data)], problems)
    assert not problems, problems
    return config


async def main(calls: int, rounds: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp)
        script = ws / "noop.sh"
        script.write_text("#!/bin/bash\ncat > /dev/null\nexit 0\n")
        script.chmod(0o755)
        variants = {
            "no hook": HookConfig(),
            "hook `true`": hook_config("true"),
            "hook noop.sh (bash)": hook_config(str(script)),
        }
        results: dict[str, list[float]] = {name: [] for name in variants}
        for _ in range(rounds):  # interleaved, so load on the machine hits each alike
            for name, config in variants.items():
                results[name].append(await per_call_ms(ws, config, calls))
        base = statistics.median(results["no hook"])
        cpus = os.cpu_count()
        print(f"{calls} tool calls per run, {rounds} runs each, median per call (cpus: {cpus})")
        summary = {}
        for name, values in results.items():
            med = statistics.median(values)
            added = med - base
            ratio = med / base if base else float("inf")
            summary[name] = {"per_call_ms": round(med, 2), "added_ms": round(added, 2)}
            line = f"  {name:<22} {med:8.2f} ms/call"
            if name != "no hook":
                verdict = "OK" if added < 30 else "OVER TARGET"
                line += (
                    f"   +{added:6.2f} ms/call ({ratio:5.1f}x no hook)  target < 30 ms: {verdict}"
                )
            print(line)
        print(json.dumps(summary))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    asyncio.run(main(args.calls, args.rounds))
