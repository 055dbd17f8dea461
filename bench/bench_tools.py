"""Glob, Grep (ripgrep and the Python fallback) and Bash on a 20,000-file tree.

Generates a tree of 20,000 files in a temporary directory: 16,000 source files in nested
packages plus an ignored ``node_modules`` of 4,000 files and ignored ``*.log`` files (a
``.gitignore`` at the root, one nested). Times Glob and Grep in each output mode (best and median
of a few runs), the Bash call overhead (``true`` 50 times; target under 20 ms a call) and a
command printing 50 MB. Prints the figures; asserts nothing.
Run: .venv/bin/python bench/bench_tools.py
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tools.base import ToolContext  # noqa: E402
from tools.bash import TOOL as BASH  # noqa: E402
from tools.glob import TOOL as GLOB  # noqa: E402
from tools.grep import GrepTool  # noqa: E402
from tools.search_files import find_rg  # noqa: E402

FILES = 20_000
IGNORED = 4_000
RUNS = 5


def make_tree(root: Path) -> None:
    """Write the tree: packages of modules, an ignored node_modules, ignored logs."""
    (root / ".gitignore").write_text("node_modules/\n*.log\nbuild/\n")
    body = "".join(f"def func_{i}(x):\n    return x + {i}\n\n" for i in range(12))
    made = 0
    for p in range(40):
        for d in range(10):
            pkg = root / "src" / f"pkg{p}" / f"sub{d}"
            pkg.mkdir(parents=True)
            if d == 0:
                (pkg / ".gitignore").write_text("generated_*\n")
            for m in range(40):
                if made >= FILES - IGNORED:
                    break
                ext = (".py", ".ts", ".md", ".log")[m % 4]
                text = body + ("# the needle is here\n" if (p + d + m) % 7 == 0 else "")
                (pkg / f"mod{m}{ext}").write_text(text)
                made += 1
    for n in range(IGNORED):
        pkg = root / "node_modules" / f"dep{n // 100}"
        pkg.mkdir(parents=True, exist_ok=True)
        (pkg / f"index{n % 100}.js").write_text("module.exports = 'needle';\n")


async def timed(fn: Callable[[], Awaitable[Any]], runs: int = RUNS) -> tuple[float, float, Any]:
    """(best, median) seconds over ``runs`` calls, and the last result."""
    times, result = [], None
    for _ in range(runs):
        start = time.perf_counter()
        result = await fn()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times), result


def lines(result: Any) -> int:
    return len(str(result.content).splitlines())


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "ws"
        root.mkdir()
        start = time.perf_counter()
        make_tree(root)
        print(
            f"tree: {FILES} files ({IGNORED} in an ignored node_modules) written in "
            f"{time.perf_counter() - start:.2f} s"
        )
        ctx = ToolContext(workspace=root)

        print("\nGlob (newest first, capped at 100 paths)")
        for pattern in ("**/*.py", "src/pkg3/**/*.ts", "**/*.js", "**/mod1?.md"):
            best, med, res = await timed(partial(GLOB.run, {"pattern": pattern}, ctx))
            print(
                f"  {pattern:<20} best {best * 1000:7.1f} ms  median {med * 1000:7.1f} ms  "
                f"({lines(res)} lines)"
            )

        print(f"\nGrep (rg: {find_rg() or 'not found'})")
        cases: list[dict[str, Any]] = [
            {"pattern": "needle"},
            {"pattern": "needle", "output_mode": "count"},
            {"pattern": "needle", "output_mode": "content", "head_limit": 200},
            {"pattern": "func_1[01]", "output_mode": "content", "-C": 1},
            {"pattern": "NEEDLE", "-i": True, "type": "py"},
        ]
        backends = ["rg", "python"] if find_rg() else ["python"]
        for args in cases:
            label = " ".join(f"{k}={v}" for k, v in args.items())
            print(f"  {label}")
            for backend in backends:
                tool = GrepTool(backend)
                best, med, res = await timed(partial(tool.run, args, ctx), runs=3)
                print(
                    f"    {backend:<7} best {best * 1000:7.1f} ms  median {med * 1000:7.1f} ms  "
                    f"({lines(res)} lines)"
                )

        print("\nBash")
        per_call = []
        for _ in range(50):
            start = time.perf_counter()
            await BASH.run({"command": "true"}, ctx)
            per_call.append(time.perf_counter() - start)
        print(
            f"  'true' x50: mean {statistics.mean(per_call) * 1000:.1f} ms/call, median "
            f"{statistics.median(per_call) * 1000:.1f} ms, max {max(per_call) * 1000:.1f} ms "
            "(target < 20 ms)"
        )
        received = [0]
        big = ctx.for_call(lambda text: received.__setitem__(0, received[0] + len(text)))
        start = time.perf_counter()
        res = await BASH.run({"command": "yes 0123456789 | head -c 50000000"}, big)
        print(
            f"  50 MB of output: {time.perf_counter() - start:.2f} s, {received[0]:,} chars "
            f"streamed, {len(str(res.content)):,} chars kept"
        )


if __name__ == "__main__":
    asyncio.run(main())
