"""`eddy -p` on the three-turn fix-the-test scenario against the fake Messages API server.

Prints every figure of issue 24's table, medians of alternating runs in the same process:

- wall time of the whole run (process start to exit);
- launch -> first request (the fake API timestamps each request's arrival), beside the floor
  every run pays, ``python -c "import anthropic"`` measured in the same loop;
- last response -> exit (the fake timestamps the last byte of each reply);
- eddy's own overhead: wall minus the SDK import, the model's time (request arrival to last
  byte, summed) and the tools' time (the two test runs, timed on their own in the same loop);
- with ``CLAUDE_BIN`` set (or ``claude`` on PATH): the same scenario run by Claude Code, and the
  ratio eddy / Claude Code.

It also checks, via ``-X importtime`` on one extra run, that the headless path imports no UI
library. Run: .venv/bin/python bench/bench_headless.py [runs]
"""

from __future__ import annotations

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

from tests.e2e.test_headless import CALC, TEST  # noqa: E402
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use  # noqa: E402

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 5
UI_PACKAGES = ("textual", "rich", "prompt_toolkit", "tui", "plain")


def script(repo: Path) -> list[Reply]:
    """The fix: run the tests, read both files, edit, run the tests again, answer. Absolute
    paths, so Claude Code (which requires them) runs the very same calls."""
    run_tests = {"command": "python3 test_calc.py", "description": "Run the tests"}
    calc, test = str(repo / "calc.py"), str(repo / "test_calc.py")
    edit = {"file_path": calc, "old_string": "a - b", "new_string": "a + b"}
    return [
        Reply([text("Running the tests."), tool_use("toolu_1", "Bash", run_tests)], "tool_use"),
        Reply(
            [
                tool_use("toolu_2", "Read", {"file_path": calc}),
                tool_use("toolu_3", "Read", {"file_path": test}),
            ],
            "tool_use",
        ),
        Reply(
            [tool_use("toolu_4", "Edit", edit), tool_use("toolu_5", "Bash", run_tests)], "tool_use"
        ),
        Reply([text("Fixed: `add` subtracted instead of adding. The tests pass.")]),
    ]


def responder(repo: Path) -> Any:
    """The step is the number of assistant messages already in the request; a request without
    tools (a client's side call: a title, a quota check) gets a short text."""
    steps = script(repo)

    def reply(body: dict[str, Any]) -> Reply:
        if not body.get("tools"):
            return Reply([text("ok")])
        done = sum(1 for m in body.get("messages", []) if m.get("role") == "assistant")
        return steps[min(done, len(steps) - 1)]

    return reply


@dataclass
class Run:
    wall: float
    to_first_request: float
    last_reply_to_exit: float
    model: float


def timed_run(
    fake: FakeAnthropic, argv: list[str], env: dict[str, str], repo: Path, *, validate: bool = True
) -> Run:
    fake.validate = validate
    fake.timeline.clear()
    fake.responder = responder(repo)
    start = time.time()
    out = subprocess.run(argv, cwd=repo, env=env, capture_output=True, text=True, timeout=300)
    end = time.time()
    if out.returncode != 0 or "a + b" not in (repo / "calc.py").read_text():
        said = f"{out.stdout[-1500:]}\n{out.stderr[-1500:]}"
        raise SystemExit(f"{argv[0]} failed ({out.returncode}):\n{said}")
    requests = [t for what, t in fake.timeline if what == "request"]
    replies = [t for what, t in fake.timeline if what == "replied"]
    model = sum(r - q for q, r in zip(requests, replies, strict=False))
    return Run(end - start, requests[0] - start, end - replies[-1], model)


def fresh_repo(parent: Path, n: int) -> Path:
    repo = parent / f"r{n}"
    repo.mkdir()
    (repo / "calc.py").write_text(CALC)
    (repo / "test_calc.py").write_text(TEST)
    return repo


def claude_home(repo: Path, key: str) -> str:
    """A scratch HOME in which Claude Code is past onboarding and trusts ``repo``."""
    home = tempfile.mkdtemp(prefix="claude-bench-home-")
    config = {
        "hasCompletedOnboarding": True,
        "customApiKeyResponses": {"approved": [key[-20:]], "rejected": []},
        "projects": {str(repo): {"hasTrustDialogAccepted": True}},
    }
    Path(home, ".claude.json").write_text(json.dumps(config))
    return home


def seconds(a: float) -> str:
    return f"{a:.2f} s"


PACKAGES = ("agent", "tools", "frontend", "cli", "headless", "acp_agent")


def main() -> None:
    # An installed eddy has its modules compiled (pip does it); an editable checkout under
    # PYTHONDONTWRITEBYTECODE=1 (set on these machines) would recompile every module on every
    # run. Compile once, as an installation would have.
    subprocess.run([sys.executable, "-m", "compileall", "-q", *PACKAGES], cwd=ROOT, check=True)
    exe = Path(sys.executable).with_name("eddy")
    claude = os.environ.get("CLAUDE_BIN") or shutil.which("claude")
    eddy_runs: list[Run] = []
    claude_runs: list[Run] = []
    imports, tools = [], []
    ui_modules: set[str] = set()
    key = "sk-ant-bench-not-a-key"
    with FakeAnthropic() as fake, tempfile.TemporaryDirectory() as tmp:
        base = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE"))}
        base |= {"ANTHROPIC_BASE_URL": fake.base_url, "ANTHROPIC_API_KEY": key}
        n = 0
        for i in range(RUNS + 1):
            n += 1
            repo = fresh_repo(Path(tmp), n)
            env = base | {"EDDY_DATA_DIR": str(repo / ".data")}
            argv = [str(exe), "-p", "fix the failing test", "--allowed-tools", "Bash,Edit"]
            if i == 0:  # one run under -X importtime, for the UI-module check only
                out = subprocess.run(
                    [sys.executable, "-X", "importtime", *argv],
                    cwd=repo,
                    env=env,
                    capture_output=True,
                    text=True,
                    timeout=300,
                )
                for line in out.stderr.splitlines():
                    name = line.rsplit("|", 1)[-1].strip()
                    if name.split(".")[0] in UI_PACKAGES:
                        ui_modules.add(name)
                continue
            eddy_runs.append(timed_run(fake, argv, env, repo))
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", "import anthropic"], check=True)
            imports.append(time.perf_counter() - start)
            start = time.perf_counter()
            for _ in range(2):  # the scenario's two test runs (the first one fails)
                subprocess.run(["python3", "test_calc.py"], cwd=repo, capture_output=True)
            tools.append(time.perf_counter() - start)
            if claude:
                n += 1
                crepo = fresh_repo(Path(tmp), n)
                cenv = base | {
                    "HOME": claude_home(crepo, key),
                    "DISABLE_AUTOUPDATER": "1",
                    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                }
                cargv = [claude, "-p", "fix the failing test", "--allowedTools", "Bash,Edit"]
                claude_runs.append(timed_run(fake, cargv, cenv, crepo, validate=False))

    def med(runs: list[Run], field: str) -> float:
        return statistics.median(getattr(r, field) for r in runs)

    imp, tool = statistics.median(imports), statistics.median(tools)
    wall = med(eddy_runs, "wall")
    first, last = med(eddy_runs, "to_first_request"), med(eddy_runs, "last_reply_to_exit")
    overhead = statistics.median(r.wall - r.model - imp - tool for r in eddy_runs)
    print(f"eddy -p, fix-the-test in three tool turns (4 model calls); medians of {RUNS} runs")
    print(f"  load average at the end: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print("  (eddy's modules compiled to .pyc first, as pip install does)")
    fastest = min(r.wall for r in eddy_runs)
    print(f"  wall time:                 {seconds(wall)} (min {fastest:.2f})")
    print(f"  launch -> first request:   {seconds(first)}; `import anthropic` alone {seconds(imp)}")
    print(f"                             = import + {first - imp:+.2f} s (target <= +0.20 s)")
    print(f"  last response -> exit:     {last:.3f} s (target <= 0.10 s)")
    print(f"  model time (fake API):     {seconds(med(eddy_runs, 'model'))}; tools {seconds(tool)}")
    print(f"  eddy's own overhead:       {seconds(overhead)} (wall - import - model - tools;")
    print("                             target <= 0.30 s)")
    print(f"  UI modules imported:       {sorted(ui_modules) or 'none'}")
    if claude_runs:
        cwall = med(claude_runs, "wall")
        print(f"Claude Code ({claude}), same scenario, alternating runs:")
        ratio = wall / cwall
        print(f"  wall time:                 {seconds(cwall)}; eddy / Claude Code = {ratio:.2f}x")
        print(f"  launch -> first request:   {seconds(med(claude_runs, 'to_first_request'))}")
        print(f"  last response -> exit:     {med(claude_runs, 'last_reply_to_exit'):.3f} s")
    else:
        print("Claude Code: not found (set CLAUDE_BIN to its `claude`), no ratio")


if __name__ == "__main__":
    main()
