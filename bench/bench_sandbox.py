"""The sandbox's cost per command (issue 16): ``true`` under bubblewrap vs bare.

Runs ``bash -c true`` N times bare and N times under the workspace profile's bwrap command
line (the one the Bash tool uses: private /tmp, the workspace bound, secrets hidden, every
namespace unshared), then the same through the Bash tool itself. Prints the median and p90
per command, the difference and the ratio (target: under 15 ms added). Asserts nothing.
Run: .venv/bin/python bench/bench_sandbox.py [-n N]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent.sandbox.detect import availability
from agent.sandbox.runner import Sandbox  # noqa: E402
from tools.base import ToolContext  # noqa: E402
from tools.bash import BashTool  # noqa: E402
from tools.childenv import child_env  # noqa: E402


def timed(fn: Callable[[], object], n: int) -> list[float]:
    """``n`` wall-clock timings of ``fn`` in milliseconds."""
    out = []
    for _ in range(n):
        start = time.perf_counter()
        fn()
        out.append((time.perf_counter() - start) * 1000)
    return out


def report(label: str, bare: list[float], boxed: list[float]) -> None:
    b, s = statistics.median(bare), statistics.median(boxed)
    p90 = statistics.quantiles(boxed, n=10)[-1]
    print(
        f"{label}: bare {b:.1f} ms, sandboxed {s:.1f} ms (p90 {p90:.1f} ms); "
        f"+{s - b:.1f} ms per command, ratio {s / b:.2f}x"
    )


async def tool_timings(ctx: ToolContext, grant: str | None, n: int) -> list[float]:
    tool = BashTool()
    out = []
    for _ in range(n):
        start = time.perf_counter()
        await tool.run({"command": "true"}, ctx.for_call(lambda _t: None, grant))  # type: ignore[arg-type]
        out.append((time.perf_counter() - start) * 1000)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", type=int, default=200)
    n = parser.parse_args().n
    found = availability()
    if found.backend != "bwrap":
        print(f"no bubblewrap sandbox here: {found.why}")
        return
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp)
        sandbox = Sandbox()
        bare_argv = ["/bin/bash", "-c", "true"]
        boxed_argv = sandbox.wrap(bare_argv, cwd=ws, grant="rule", command="true", roots=(ws,))
        env = child_env()

        def run(argv: list[str]) -> Callable[[], object]:
            return lambda: subprocess.run(argv, cwd=ws, env=env, check=True)

        run(boxed_argv)()  # warm the page cache
        report(f"bash -c true x{n}", timed(run(bare_argv), n), timed(run(boxed_argv), n))
        ctx = ToolContext(ws, sandbox=sandbox)
        bare = asyncio.run(tool_timings(ctx, "user", n))
        boxed = asyncio.run(tool_timings(ctx, "rule", n))
        report(f"Bash tool 'true' x{n}", bare, boxed)


if __name__ == "__main__":
    main()
