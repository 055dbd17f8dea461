"""Bash in a big git repository: eddy headless against Claude Code, through the fake Messages API.

Both agents run ``-p`` in the same generated repository (``bench/fixtures.py`` ``big_repo``,
copied once per size with ``scratch_copy``, its index refreshed as in a repository someone works
in), with the same permission settings (``Bash`` allowed by a rule; each agent's own sandbox
default), alternating runs. The model asks for one Bash call per response: ``true`` eight times,
then answers.

The clock: a Bash call costs the gap from the end of the response that asks for it to the
arrival of the next request, as the fake API sees them. "first Bash" is the first such gap of a
run (eddy's checkpoint store takes its first snapshot then, unless the session prepared it in
the background meanwhile); "later" is the median of the other seven. Medians over the runs, with
the spread (min-max) and the load average.

It also prints how each cost grows from the smaller tree to the larger one, and eddy's checkpoint
store on disk after a run against the size of the working tree.

``--think S`` makes the model take S seconds before its first tool call, as a real one does
(default 0: the first Bash comes as soon as the session is up, the worst case for a snapshot
taken in the background).

Run: .venv/bin/python bench/bench_bigrepo.py [runs] [--sizes 20000:300,100000:1500] [--think S]
With CLAUDE_BIN unset (and no ``claude`` on PATH) only eddy runs.
"""

from __future__ import annotations

import argparse
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
from bench.fixtures import big_repo, scratch_copy  # noqa: E402
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use  # noqa: E402

CALLS = 8


def steps(body: dict[str, Any]) -> int:
    """How many assistant messages a request carries: the conversation's step."""
    return sum(1 for m in body.get("messages", []) if m.get("role") == "assistant")


class TimedFake(FakeAnthropic):
    """The fake API, noting when each conversation request (one with tools) arrives and when
    its response has been sent: ``(step, "start" | "end", time)``."""

    def __init__(self) -> None:
        super().__init__()
        self.marks: list[tuple[int, str, float]] = []

    def _reply(self, h: Any, body: dict[str, Any], item: Any) -> None:
        super()._reply(h, body, item)
        if body.get("tools"):
            self.marks.append((steps(body), "end", time.time()))


def responder(fake: TimedFake, think: float = 0.0) -> Any:
    """One Bash ``true`` per response, ``CALLS`` times, then a text answer; a request without
    tools (a client's side call) gets a short text. The first response comes ``think`` seconds
    late (the model's time before its first tool call; 0: the worst case for a snapshot)."""

    def reply(body: dict[str, Any]) -> Reply:
        if not body.get("tools"):
            return Reply([text("ok")])
        done = steps(body)
        fake.marks.append((done, "start", time.time()))
        if done == 0 and think:
            time.sleep(think)
        if done >= CALLS:
            return Reply([text("Done.")])
        call = {"command": "true", "description": "Do nothing"}
        return Reply([tool_use(f"toolu_{done}", "Bash", call)], "tool_use")

    return reply


@dataclass
class Run:
    first: float
    later: float
    wall: float
    to_request: float
    """Launch -> the first request (what the first snapshot, taken meanwhile, may delay)."""


def timed_run(
    fake: TimedFake, argv: list[str], env: dict[str, str], repo: Path, think: float
) -> Run:
    fake.marks.clear()
    fake.responder = responder(fake, think)
    start = time.time()
    out = subprocess.run(argv, cwd=repo, env=env, capture_output=True, text=True, timeout=600)
    wall = time.time() - start
    if out.returncode != 0:
        said = f"{out.stdout[-1500:]}\n{out.stderr[-1500:]}"
        raise SystemExit(f"{argv[0]} failed ({out.returncode}):\n{said}")
    first_seen: dict[tuple[int, str], float] = {}
    for step, what, t in fake.marks:  # a retried request counts from its first arrival
        first_seen.setdefault((step, what), t)
    gaps = []
    for k in range(CALLS):
        end, nxt = first_seen.get((k, "end")), first_seen.get((k + 1, "start"))
        if end is None or nxt is None:
            raise SystemExit(f"{argv[0]}: Bash call {k + 1} of {CALLS} was not seen")
        gaps.append(nxt - end)
    return Run(gaps[0], statistics.median(gaps[1:]), wall, first_seen[(0, "start")] - start)


def du(path: Path) -> int:
    total = 0
    for dirpath, _dirs, names in os.walk(path):
        for n in names:
            try:
                total += os.lstat(os.path.join(dirpath, n)).st_size
            except OSError:
                continue
    return total


def work_tree_bytes(repo: Path) -> int:
    """The working tree's files (not .git, not the ignored node_modules)."""
    total = 0
    for dirpath, dirs, names in os.walk(repo):
        dirs[:] = [d for d in dirs if d not in (".git", "node_modules")]
        for n in names:
            total += os.lstat(os.path.join(dirpath, n)).st_size
    return total


def ms(x: float) -> str:
    return f"{x * 1000:7.0f} ms"


def spread(xs: list[float]) -> str:
    return f"({min(xs) * 1000:.0f}-{max(xs) * 1000:.0f})"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("runs", nargs="?", type=int, default=5)
    ap.add_argument("--sizes", default="20000:300,100000:1500")
    ap.add_argument("--think", type=float, default=0.0, help="the model's seconds before Bash")
    args = ap.parse_args()
    sizes = [(int(f), float(m)) for f, m in (s.split(":") for s in args.sizes.split(","))]
    subprocess.run([sys.executable, "-m", "compileall", "-q", *PACKAGES], cwd=ROOT, check=True)
    exe = Path(sys.executable).with_name("eddy")
    claude = os.environ.get("CLAUDE_BIN") or shutil.which("claude")
    key = "sk-ant-bench-not-a-key"
    results: dict[tuple[int, float], dict[str, list[Run]]] = {}
    stores: dict[tuple[int, float], tuple[int, int]] = {}
    with TimedFake() as fake, tempfile.TemporaryDirectory(prefix="bench-bigrepo-") as tmp:
        fake.validate = False
        base = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE"))}
        base |= {"ANTHROPIC_BASE_URL": fake.base_url, "ANTHROPIC_API_KEY": key}
        for files, mb in sizes:
            repo = scratch_copy(big_repo(files, mb), Path(tmp))
            subprocess.run(["git", "update-index", "-q", "--refresh"], cwd=repo, check=False)
            runs: dict[str, list[Run]] = {"eddy": [], "claude": []}
            home = claude_home(repo, key)
            for i in range(args.runs):
                data = Path(tmp) / f"data-{files}-{i}"
                env = base | {"EDDY_DATA_DIR": str(data)}
                argv = [str(exe), "-p", "run true 8 times", "--allowed-tools", "Bash"]
                runs["eddy"].append(timed_run(fake, argv, env, repo, args.think))
                store = [p for p in data.rglob("*.checkpoints") if p.is_dir()]
                stores[(files, mb)] = (sum(du(p) for p in store), work_tree_bytes(repo))
                shutil.rmtree(data, ignore_errors=True)
                if claude:
                    cenv = base | {
                        "HOME": home,
                        "DISABLE_AUTOUPDATER": "1",
                        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                    }
                    cargv = [claude, "-p", "run true 8 times", "--allowedTools", "Bash"]
                    runs["claude"].append(timed_run(fake, cargv, cenv, repo, args.think))
            results[(files, mb)] = runs
            shutil.rmtree(repo, ignore_errors=True)
            shutil.rmtree(home, ignore_errors=True)

    load = os.getloadavg()
    print(f"Bash in a big git repository, eddy -p vs Claude Code ({claude or 'not found'})")
    print(
        f"  medians of {args.runs} alternating runs (spread); load average {load[0]:.2f}, "
        f"{load[1]:.2f} on {os.cpu_count()} cores"
    )
    print("  clock: end of the response asking for Bash -> arrival of the next request")
    print(f"  the model answers at once, but takes {args.think:g} s before its first Bash call")
    for (files, mb), runs in results.items():
        e, c = runs["eddy"], runs["claude"]
        ef, el = [r.first for r in e], [r.later for r in e]
        print(f"{files:,} files, {mb:g} MB:")
        line = f"  first Bash  eddy {ms(statistics.median(ef))} {spread(ef)}"
        if c:
            cf = [r.first for r in c]
            ratio = statistics.median(ef) / statistics.median(cf)
            line += f"  Claude Code {ms(statistics.median(cf))} {spread(cf)}  {ratio:.2f}x"
        print(line + "  (target <= 2x)")
        line = f"  later Bash  eddy {ms(statistics.median(el))} {spread(el)}"
        if c:
            cl = [r.later for r in c]
            ratio = statistics.median(el) / statistics.median(cl)
            line += f"  Claude Code {ms(statistics.median(cl))} {spread(cl)}  {ratio:.2f}x"
        print(line + "  (target <= 1.5x)")
        er = [r.to_request for r in e]
        line = f"  launch -> first request  eddy {ms(statistics.median(er))} {spread(er)}"
        if c:
            cr = [r.to_request for r in c]
            line += f"  Claude Code {ms(statistics.median(cr))} {spread(cr)}"
        print(line)
        store, tree = stores[(files, mb)]
        print(
            f"  checkpoint store after a run: {store / 1e6:.2f} MB for a {tree / 1e6:.0f} MB "
            f"working tree ({store / max(1, tree):.2%})"
        )
    if len(results) >= 2:
        (small, rs), (large, rl) = list(results.items())[0], list(results.items())[-1]
        grow = large[0] / small[0]
        print(f"growth from {small[0]:,} to {large[0]:,} files ({grow:.0f}x the tree):")
        for who in ("eddy", "claude"):
            if not rs[who]:
                continue
            for what in ("first", "later"):
                a = statistics.median(getattr(r, what) for r in rs[who])
                b = statistics.median(getattr(r, what) for r in rl[who])
                print(
                    f"  {who:6} {what} Bash: {a * 1000:.0f} -> {b * 1000:.0f} ms "
                    f"({b / max(a, 1e-9):.2f}x)"
                )


if __name__ == "__main__":
    main()
