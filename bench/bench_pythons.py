"""eddy on several Python versions, alternating in one run (issue 24: "compare Python
3.11/3.12/3.13 on the same machine").

Each argument is the ``python`` of a virtual environment with eddy installed (``pip install -e
'.[test]'`` into it). Per interpreter, medians of alternating rounds:

- ``import anthropic`` (the floor of ``eddy -p``'s start);
- ``import tui.app`` (what the TUI imports before its first frame);
- ``eddy -p`` on bench_headless's three-turn fix-the-test scenario (wall time);
- the TUI in tmux until typed text shows in its prompt.

Run: .venv/bin/python bench/bench_pythons.py [runs] PYTHON [PYTHON ...]
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_headless import PACKAGES, fresh_repo, timed_run  # noqa: E402
from tmux_harness import scratch_env, time_startup  # noqa: E402

from tests.fakes.fake_api import FakeAnthropic  # noqa: E402


def version(python: str) -> str:
    out = subprocess.run([python, "-c", "import sys; print(sys.version.split()[0])"],
                         capture_output=True, text=True, check=True)  # fmt: skip
    return out.stdout.strip()


def timed(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, cwd=ROOT, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    args = sys.argv[1:]
    runs = int(args.pop(0)) if args and args[0].isdigit() else 5
    pythons = args or [sys.executable]
    for python in pythons:  # as an installation would have them (see bench_headless)
        subprocess.run([python, "-m", "compileall", "-q", *PACKAGES, "tui", "plain", "themes"],
                       cwd=ROOT, check=True)  # fmt: skip
    figures: dict[str, dict[str, list[float]]] = {
        p: {"anthropic": [], "tui": [], "headless": [], "typing": []} for p in pythons
    }
    key = "sk-ant-bench-not-a-key"
    tui_env = scratch_env() | {"ANTHROPIC_API_KEY": key}
    with FakeAnthropic() as fake, tempfile.TemporaryDirectory() as tmp:
        base = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE"))}
        base |= {"ANTHROPIC_BASE_URL": fake.base_url, "ANTHROPIC_API_KEY": key}
        n = 0
        for _ in range(runs):
            for python in pythons:
                got = figures[python]
                got["anthropic"].append(timed([python, "-c", "import anthropic"]))
                got["tui"].append(timed([python, "-c", "import tui.app"]))
                n += 1
                repo = fresh_repo(Path(tmp), n)
                env = base | {"EDDY_DATA_DIR": str(repo / ".data")}
                eddy = str(Path(python).with_name("eddy"))
                argv = [eddy, "-p", "fix the failing test", "--allowed-tools", "Bash,Edit"]
                got["headless"].append(timed_run(fake, argv, env, repo).wall)
                got["typing"].append(time_startup([eddy], "eddy in", tui_env, runs=1)[1])
    print(f"eddy on {len(pythons)} Pythons, medians of {runs} alternating rounds "
          f"(load {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores)")  # fmt: skip
    first = pythons[0]
    med = {p: {k: statistics.median(v) for k, v in f.items()} for p, f in figures.items()}
    heads = ("import anthropic", "import tui.app", "eddy -p (3 turns)", "TUI until typing")
    print(f"  {'Python':8} " + " ".join(f"{h:>18}" for h in heads))
    for python in pythons:
        m = med[python]
        cells = [
            f"{m[k]:.3f} s ({m[k] / med[first][k]:.2f}x)"
            for k in ("anthropic", "tui", "headless", "typing")
        ]
        print(f"  {version(python):8} " + " ".join(f"{c:>18}" for c in cells))


if __name__ == "__main__":
    main()
