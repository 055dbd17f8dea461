"""What issue 33's trust boundary adds, measured on a big generated repository (issue 32's
fixture): per sandboxed command, the watch over the missing places (before and after) and the
masks of Read deny rules (a rule with a literal base, and ``Read(.env)``, which walks the tree);
per session start, collecting what the project's files grant. Each figure is the median of N
runs, with the spread and the load average; there is no baseline to alternate with (before
this work eddy did none of it), so the figures are the cost itself.
Run: .venv/bin/python bench/bench_trust.py [files] [runs]
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agent.permissions.rule import Rule  # noqa: E402
from agent.sandbox.masks import DeniedPaths, denied_paths  # noqa: E402
from agent.sandbox.watch import PlacesWatch  # noqa: E402
from agent.settings.grants import collect_grants  # noqa: E402
from bench.fixtures import big_repo  # noqa: E402


def timed(fn: Callable[[], object], runs: int) -> tuple[float, float, float]:
    """(median, min, max) in milliseconds."""
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        out.append((time.perf_counter() - start) * 1000)
    return statistics.median(out), min(out), max(out)


def show(label: str, figures: tuple[float, float, float]) -> None:
    median, low, high = figures
    print(f"  {label:<52} {median:8.2f} ms  (spread {low:.2f}-{high:.2f})")


def main() -> None:
    files = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 9
    repo = big_repo(files, 300 if files == 20_000 else files / 100)
    print(f"trust boundary costs on a {files}-file tree, medians of {runs} runs")
    print(f"  load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    show(
        "watch: missing places before + after a command",
        timed(lambda: PlacesWatch.start((repo,), set()).finish(), runs),
    )
    literal = [Rule.parse("Read(./secrets/**)")]
    show(
        "masks: Read(./secrets/**) (a literal base)",
        timed(lambda: denied_paths(literal, repo), runs),
    )
    anywhere = [Rule.parse("Read(.env)")]
    show("masks: Read(.env) (walks the tree)", timed(lambda: denied_paths(anywhere, repo), runs))
    cache = DeniedPaths()
    cache.find(anywhere, repo)
    show(
        "masks: Read(.env), unchanged tree (a stat per directory)",
        timed(lambda: cache.find(anywhere, repo), runs),
    )
    show("session start: collect the project's grants", timed(lambda: collect_grants(repo), runs))


if __name__ == "__main__":
    main()
