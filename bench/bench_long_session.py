"""A 200-tool-turn headless session (issue 32, "Long sessions"): eddy vs Claude Code.

The fake Messages API scripts 200 tool turns, Read and Bash alternating (a 4 KB file; a short
``echo``), then a final answer. Both agents run ``-p`` against it with the same allowed tools,
alternating, in one process. Clocks, all as the fake API sees them:

- the per-turn gap: the last byte of response k-1 -> the arrival of request k (the agent's
  own work between two model calls: parse the response, run the tool, build and send the next
  request); the medians of turns 1-40 and 161-200, and their ratio (target <= 1.5x);
- wall time: process start to exit (target: eddy <= 0.8x Claude Code's);
- peak RSS of the agent's process (its ``VmHWM``; target: eddy <= 80 MB).

Prints medians of ``RUNS`` alternating runs each, the spread (min-max) and the load average.
Run: .venv/bin/python bench/bench_long_session.py [runs] [turns]
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_headless import PACKAGES, claude_home  # noqa: E402

from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use  # noqa: E402

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 5
TURNS = int(sys.argv[2]) if len(sys.argv) > 2 else 200
EARLY = range(1, 41)
LATE = range(TURNS - 39, TURNS + 1)
KEY = "sk-ant-bench-not-a-key"
NOTES = "".join(
    f"line {i:03d}: the parser reads section {i} and checks its bounds\n" for i in range(64)
)


class TimedFake(FakeAnthropic):
    """The fake API, timing each main-loop request (one that offers tools) by its step."""

    def __init__(self) -> None:
        super().__init__()
        self._local = threading.local()
        self.steps: dict[int, tuple[float, float]] = {}

    def _handle(self, h: Any) -> None:
        self._local.step = None
        arrived = time.time()
        super()._handle(h)
        step = self._local.step
        if step is not None:
            self.steps[step] = (arrived, time.time())

    def mark(self, step: int) -> None:
        self._local.step = step

    def forget(self) -> None:
        """Drop the bodies kept so far: 200 growing requests would take hundreds of MB here."""
        with self._lock:
            self.requests.clear()
            self.raw_bodies.clear()
            self.headers.clear()


def responder(fake: TimedFake, repo: Path) -> Any:
    """Step k (k assistant messages so far) < TURNS: a tool call; then the answer."""
    notes = str(repo / "notes.txt")

    def reply(body: dict[str, Any]) -> Reply:
        if not body.get("tools"):
            return Reply([text("ok")])  # a side call (title, quota check)
        done = sum(1 for m in body.get("messages", []) if m.get("role") == "assistant")
        fake.mark(done)
        fake.forget()
        if done >= TURNS:
            return Reply([text("All done.")])
        call = (
            tool_use(f"toolu_{done:04d}", "Read", {"file_path": notes})
            if done % 2 == 0
            else tool_use(
                f"toolu_{done:04d}",
                "Bash",
                {"command": f"echo turn {done}", "description": "Say the turn"},
            )
        )
        return Reply([text(f"Step {done}."), call], "tool_use")

    return reply


class PeakRss:
    """The high-water mark of a process's resident memory (``VmHWM``), read every 50 ms until
    it ends. Not ``wait4``'s ``ru_maxrss``: that also counts this benchmark's own memory,
    which a forked child inherits before it runs the agent."""

    def __init__(self, pid: int) -> None:
        self.kb = 0
        self._path = Path(f"/proc/{pid}/status")
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while not self._done.wait(0.05):
            try:
                lines = self._path.read_text().splitlines()
            except OSError:
                return
            for line in lines:
                if line.startswith("VmHWM:"):
                    self.kb = max(self.kb, int(line.split()[1]))

    def stop(self) -> None:
        self._done.set()
        self._thread.join()


@dataclass
class Run:
    wall: float
    early: float
    late: float
    rss_mb: float
    read: float
    bash: float
    api: float


def timed_run(fake: TimedFake, argv: list[str], env: dict[str, str], repo: Path) -> Run:
    fake.steps.clear()
    fake.responder = responder(fake, repo)
    start = time.time()
    with open(repo / "out.txt", "w") as out, open(repo / "err.txt", "w") as err:
        proc = subprocess.Popen(argv, cwd=repo, env=env, stdout=out, stderr=err)
        peak = PeakRss(proc.pid)
        proc.wait()
    end = time.time()
    peak.stop()
    if proc.returncode != 0 or len(fake.steps) != TURNS + 1:
        said = (repo / "out.txt").read_text()[-1500:] + (repo / "err.txt").read_text()[-1500:]
        raise SystemExit(f"{argv[0]} failed ({proc.returncode}, {len(fake.steps)} steps):\n{said}")
    gap = {k: fake.steps[k][0] - fake.steps[k - 1][1] for k in range(1, TURNS + 1)}
    return Run(
        end - start,
        statistics.median(gap[k] for k in EARLY),
        statistics.median(gap[k] for k in LATE),
        peak.kb / 1024,
        statistics.median(gap[k] for k in gap if k % 2 == 1),  # response k-1 asked for a Read
        statistics.median(gap[k] for k in gap if k % 2 == 0),
        sum(replied - arrived for arrived, replied in fake.steps.values()),
    )


def fresh_repo(parent: Path, n: int) -> Path:
    repo = parent / f"r{n}"
    repo.mkdir()
    (repo / "notes.txt").write_text(NOTES)
    return repo


def summary(name: str, runs: list[Run]) -> dict[str, float]:
    def med(field: str) -> float:
        return statistics.median(getattr(r, field) for r in runs)

    def spread(field: str, scale: float = 1.0, unit: str = "") -> str:
        values = [getattr(r, field) * scale for r in runs]
        return f"{min(values):.0f}-{max(values):.0f}{unit}"

    early, late = med("early"), med("late")
    print(f"{name}:")
    print(
        f"  wall time            {med('wall'):.2f} s ({min(r.wall for r in runs):.2f}-"
        f"{max(r.wall for r in runs):.2f})"
    )
    print(f"  gap, turns 1-40      {early * 1000:.1f} ms ({spread('early', 1000)})")
    print(
        f"  gap, turns {LATE.start}-{LATE.stop - 1}  {late * 1000:.1f} ms "
        f"({spread('late', 1000)}); late / early = {late / early:.2f}x (target <= 1.5x)"
    )
    print(
        f"  gap by tool (all turns): Read {med('read') * 1000:.1f} ms, "
        f"Bash {med('bash') * 1000:.1f} ms; the fake API's own time {med('api'):.2f} s"
    )
    print(f"  peak RSS             {med('rss_mb'):.0f} MB ({spread('rss_mb', 1, ' MB')})")
    return {"wall": med("wall"), "early": early, "late": late, "rss": med("rss_mb")}


def main() -> None:
    subprocess.run([sys.executable, "-m", "compileall", "-q", *PACKAGES], cwd=ROOT, check=True)
    exe = Path(sys.executable).with_name("eddy")
    claude = os.environ.get("CLAUDE_BIN") or shutil.which("claude")
    prompt = "Work through the notes, one step at a time."
    eddy_runs: list[Run] = []
    claude_runs: list[Run] = []
    with TimedFake() as fake, tempfile.TemporaryDirectory() as tmp:
        base = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE"))}
        base |= {"ANTHROPIC_BASE_URL": fake.base_url, "ANTHROPIC_API_KEY": KEY}
        for n in range(RUNS):
            repo = fresh_repo(Path(tmp), 2 * n)
            env = base | {"EDDY_DATA_DIR": str(repo.with_name(repo.name + ".data"))}
            fake.validate = True
            argv = [str(exe), "-p", prompt, "--allowed-tools", "Bash,Read"]
            eddy_runs.append(timed_run(fake, argv, env, repo))
            if claude:
                crepo = fresh_repo(Path(tmp), 2 * n + 1)
                cenv = base | {
                    "HOME": claude_home(crepo, KEY),
                    "DISABLE_AUTOUPDATER": "1",
                    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                }
                fake.validate = False  # Claude Code sends shapes the fake does not model
                cargv = [claude, "-p", prompt, "--allowedTools", "Bash,Read"]
                claude_runs.append(timed_run(fake, cargv, cenv, crepo))
    print(
        f"{TURNS} tool turns (Read / Bash alternating), headless; medians of {RUNS} "
        f"alternating runs (spread min-max); load average {os.getloadavg()[0]:.2f} on "
        f"{os.cpu_count()} cores"
    )
    mine = summary("eddy -p", eddy_runs)
    if not claude_runs:
        print("Claude Code: not found (set CLAUDE_BIN), no ratio")
        return
    theirs = summary(f"Claude Code ({Path(claude).name})", claude_runs)
    print(
        f"eddy / Claude Code: wall {mine['wall'] / theirs['wall']:.2f}x (target <= 0.8x); "
        f"late gap {mine['late'] / theirs['late']:.2f}x; RSS {mine['rss'] / theirs['rss']:.2f}x"
    )


if __name__ == "__main__":
    main()
