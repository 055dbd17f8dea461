"""`eddy -p` on the three-turn fix-the-test scenario against the fake Messages API server.

Reports wall time per run (process start to exit) and checks, via ``-X importtime``, that the
headless path imports no UI library. Baseline in the same run: ``python -c "import anthropic"``
(the floor every run pays). Run: .venv/bin/python bench/bench_headless.py
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

from tests.e2e.test_headless import CALC, TEST, fix_script  # noqa: E402
from tests.fakes.fake_api import FakeAnthropic  # noqa: E402

RUNS = 5


def main() -> None:
    exe = Path(sys.executable).with_name("eddy")
    times, baseline = [], []
    ui_modules: set[str] = set()
    with FakeAnthropic() as fake:
        env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
        env |= {"ANTHROPIC_BASE_URL": fake.base_url, "ANTHROPIC_API_KEY": "bench"}
        for _ in range(RUNS):
            with tempfile.TemporaryDirectory() as tmp:
                repo = Path(tmp)
                (repo / "calc.py").write_text(CALC)
                (repo / "test_calc.py").write_text(TEST)
                env["EDDY_DATA_DIR"] = str(repo / ".data")
                fake.push(*fix_script())
                start = time.perf_counter()
                out = subprocess.run(
                    [
                        sys.executable,
                        "-X",
                        "importtime",
                        str(exe),
                        "-p",
                        "fix the failing test",
                        "--allowed-tools",
                        "Bash,Edit",
                    ],
                    cwd=repo,
                    env=env,
                    capture_output=True,
                    text=True,
                )
                times.append(time.perf_counter() - start)
                assert out.returncode == 0, out.stderr[-2000:]
                assert "a + b" in (repo / "calc.py").read_text()
                for line in out.stderr.splitlines():
                    name = line.rsplit("|", 1)[-1].strip()
                    if name.split(".")[0] in ("textual", "rich", "prompt_toolkit", "tui"):
                        ui_modules.add(name)
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", "import anthropic"], check=True)
            baseline.append(time.perf_counter() - start)
    med, base = statistics.median(times), statistics.median(baseline)
    print(f"eddy -p, three tool turns (4 model calls), {RUNS} runs")
    print(f"  wall time: median {med:.2f} s, min {min(times):.2f} s, max {max(times):.2f} s")
    print(f"  baseline `python -c 'import anthropic'`: median {base:.2f} s")
    print(f"  ratio to the baseline: {med / base:.2f}x (harness and tools: {med - base:.2f} s)")
    print(f"  UI modules imported: {sorted(ui_modules) or 'none'}")


if __name__ == "__main__":
    main()
