"""Glob and Grep on a 50,000-file tree: eddy against Claude Code, as the model sees them.

Both agents run headless (``-p``) against the fake Messages API in the cached generated git
tree ``big_repo(50000, 100)`` (bench/fixtures.py: 50,000 tracked files, 100 MB, plus an ignored
``node_modules/`` of 5,000). Each run is one tool call: the first response asks for it, the
second ends the turn. The clock is the API's: the gap from the end of the response that asks
for the call to the arrival of the request that carries its result (the tool's time plus the
harness around it, for both agents). eddy and Claude Code alternate, call by call; each figure is
the median of RUNS runs (after one warm-up run of each), with the spread (min-max) and the load
average. Beside them, in the same loop: eddy's tool object alone (``TOOL.run`` in this process)
and the floor ``rg --files`` (Glob) or the same ``rg`` search (Grep) as a bare process.

The two agents' tools do not do the same work: Claude Code's Glob lists with ``--no-ignore``
(node_modules included, no ignore file read) in one ``rg --sort=modified``; eddy's honours
.gitignore (more work for rg: reading and matching the ignore files, leaving ``.git`` out) in
one ``rg --sortr=modified`` per CPU, each on a share of the top-level directories. Claude
Code's Grep runs rg without ``--sort`` (its parallel walk); eddy's too, and orders the output
by path. The number of lines each returned is printed, to check that both answered.

Run: .venv/bin/python bench/bench_search.py [RUNS [CASE]]   (CASE: a part of a case's label;
CLAUDE_BIN: Claude Code's native binary)
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_headless import PACKAGES, claude_home  # noqa: E402
from bench.fixtures import big_repo  # noqa: E402
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use  # noqa: E402
from tools.base import ToolContext  # noqa: E402
from tools.glob import TOOL as GLOB  # noqa: E402
from tools.grep import TOOL as GREP  # noqa: E402
from tools.search_files import find_rg  # noqa: E402

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 7
ONLY = sys.argv[2] if len(sys.argv) > 2 else ""
FILES, MEGABYTES = 50_000, 100
KEY = "sk-ant-bench-not-a-key"


@dataclass(frozen=True)
class Case:
    label: str
    tool: str
    args: dict[str, Any]
    floor: list[str]
    """The bare rg command timed beside (arguments after ``rg``)."""


CASES = [
    Case("Glob **/*.py", "Glob", {"pattern": "**/*.py"}, ["--files", "--hidden"]),
    Case(
        "Glob src001/**/*.ts",
        "Glob",
        {"pattern": "src001/**/*.ts"},
        ["--files", "--hidden", "src001"],
    ),
    Case(
        "Grep -l (100 files match)",
        "Grep",
        {"pattern": "unique 00012", "output_mode": "files_with_matches"},
        ["-l", "--hidden", "unique 00012"],
    ),
    Case(
        "Grep content, head_limit 50",
        "Grep",
        {"pattern": "unique 0001", "output_mode": "content", "head_limit": 50},
        ["-n", "--hidden", "unique 0001"],
    ),
]


def responder(case: Case) -> Any:
    """The first main-loop request asks for the call, the next one ends the turn; a request
    without tools (a client's side call: a title, a quota check) gets a short text."""

    def reply(body: dict[str, Any]) -> Reply:
        if not body.get("tools"):
            return Reply([text("ok")])
        asked = sum(1 for m in body.get("messages", []) if m.get("role") == "assistant")
        if asked == 0:
            return Reply([tool_use("toolu_bench_1", case.tool, case.args)], "tool_use")
        return Reply([text("Done.")])

    return reply


def result_of(body: dict[str, Any]) -> str | None:
    """The text of the tool_result in a request, if it carries one."""
    for message in body.get("messages", []):
        content = message.get("content")
        if message.get("role") != "user" or not isinstance(content, list):
            continue
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                inner = block.get("content")
                if isinstance(inner, list):
                    return "\n".join(b.get("text", "") for b in inner if isinstance(b, dict))
                return str(inner)
    return None


@dataclass
class Gap:
    seconds: float
    lines: int
    side_requests: int
    """Requests that arrived between the asking response and the result (0 when exact)."""


def timed_call(fake: FakeAnthropic, argv: list[str], env: dict[str, str], cwd: Path) -> Gap:
    """Run one agent for one call; the gap from the asking response to the result's request."""
    fake.timeline.clear()
    fake.requests.clear()
    out = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        raise SystemExit(
            f"{argv[0]} failed ({out.returncode}):\n{out.stdout[-1500:]}\n{out.stderr[-1500:]}"
        )
    arrivals = [t for what, t in fake.timeline if what == "request"]
    replies = [t for what, t in fake.timeline if what == "replied"]
    with_result = [i for i, body in enumerate(fake.requests) if result_of(body) is not None]
    if not with_result:
        raise SystemExit(f"{argv[0]} never sent the tool's result:\n{out.stdout[-1500:]}")
    j = with_result[0]
    asked_end = max(t for t in replies if t <= arrivals[j])
    side = sum(1 for t in arrivals[:j] if t > asked_end)
    result = result_of(fake.requests[j]) or ""
    return Gap(arrivals[j] - asked_end, len(result.splitlines()), side)


def in_process(case: Case, tree: Path) -> float:
    """eddy's tool object alone, in this process."""
    tool = GLOB if case.tool == "Glob" else GREP
    ctx = ToolContext(workspace=tree)
    start = time.perf_counter()
    asyncio.run(tool.run(dict(case.args), ctx))
    return time.perf_counter() - start


def bare_rg(case: Case, tree: Path) -> float:
    rg = find_rg() or "rg"
    start = time.perf_counter()
    subprocess.run([rg, *case.floor], cwd=tree, capture_output=True, check=False)
    return time.perf_counter() - start


def ms(values: list[float]) -> str:
    return (
        f"median {statistics.median(values) * 1000:6.0f} ms  "
        f"(min {min(values) * 1000:.0f}, max {max(values) * 1000:.0f})"
    )


def main() -> None:
    subprocess.run([sys.executable, "-m", "compileall", "-q", *PACKAGES], cwd=ROOT, check=True)
    tree = big_repo(FILES, MEGABYTES)
    claude = os.environ.get("CLAUDE_BIN") or shutil.which("claude")
    eddy = str(Path(sys.executable).with_name("eddy"))
    loads = [os.getloadavg()[0]]
    print(f"tree: {tree} ({FILES:,} tracked files, {MEGABYTES} MB, node_modules ignored)")
    print(f"rg: {find_rg()}; Claude Code: {claude or 'not found (set CLAUDE_BIN): no ratio'}")
    with FakeAnthropic() as fake, tempfile.TemporaryDirectory() as tmp:
        fake.validate = False  # Claude Code sends shapes the fake does not model
        base = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE"))}
        base |= {"ANTHROPIC_BASE_URL": fake.base_url, "ANTHROPIC_API_KEY": KEY}
        eddy_env = base | {"EDDY_DATA_DIR": str(Path(tmp) / "eddy-data")}
        eddy_argv = [eddy, "-p", "search", "--allowed-tools", "Glob,Grep"]
        claude_env = base | {
            "HOME": claude_home(tree, KEY),
            "DISABLE_AUTOUPDATER": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        }
        claude_argv = [claude or "", "-p", "search", "--allowedTools", "Glob,Grep"]
        summary = []
        for case in [c for c in CASES if ONLY in c.label]:
            fake.responder = responder(case)
            e_gaps: list[Gap] = []
            c_gaps: list[Gap] = []
            alone: list[float] = []
            floor: list[float] = []
            for i in range(RUNS + 1):  # run 0 warms the caches and is not counted
                e = timed_call(fake, eddy_argv, eddy_env, tree)
                c = timed_call(fake, claude_argv, claude_env, tree) if claude else None
                a, f = in_process(case, tree), bare_rg(case, tree)
                if i:
                    e_gaps.append(e)
                    if c:
                        c_gaps.append(c)
                    alone.append(a)
                    floor.append(f)
            loads.append(os.getloadavg()[0])
            print(f"\n{case.label}: {json.dumps(case.args)}")
            print(f"  eddy          {ms([g.seconds for g in e_gaps])}  {e_gaps[-1].lines} lines")
            if c_gaps:
                print(
                    f"  Claude Code   {ms([g.seconds for g in c_gaps])}  {c_gaps[-1].lines} lines"
                )
            print(f"  eddy's tool object alone      {ms(alone)}")
            print(f"  bare rg {' '.join(case.floor):<22} {ms(floor)}")
            side = sum(g.side_requests for g in e_gaps + c_gaps)
            if side:
                print(
                    f"  ({side} side requests arrived inside the gaps: those gaps are upper bounds)"
                )
            if c_gaps:
                ratio = statistics.median(g.seconds for g in e_gaps) / statistics.median(
                    g.seconds for g in c_gaps
                )
                print(f"  eddy / Claude Code = {ratio:.2f}x (target <= 1.0x)")
                summary.append((case.label, ratio))
    cores = os.cpu_count()
    print(f"\nload average (1 min) over the runs: {min(loads):.2f}-{max(loads):.2f}, {cores} cores")
    for label, ratio in summary:
        print(f"  {label:<30} {ratio:.2f}x")


if __name__ == "__main__":
    main()
