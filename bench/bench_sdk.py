"""An Agent SDK's first prompt: eddy and Claude Code driven as the SDKs drive them.

Both run as ``-p --input-format stream-json --output-format stream-json --verbose`` against
the fake Messages API (its own thread here), fed the lines the SDKs write. Three clocks, each
the median of alternating runs (a fresh process each), with the spread:

- ``initialize``: from writing the ``initialize`` control request to reading its answer;
- ``first prompt after a pause``: a ``ClaudeSDKClient`` that waits for its user: the user
  message written ``PAUSE_S`` after the ``initialize`` answer, until the API reads its
  request (the fake stamps each request's arrival);
- ``prompt at once``: ``query()``: ``initialize`` and the user message written as soon as
  the process starts, from the process's start until the API reads the request.

With ``CLAUDE_BIN`` (or ``claude`` on PATH) Claude Code runs the same and the ratio is
printed. Run: .venv/bin/python bench/bench_sdk.py [runs]
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
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_headless import PACKAGES, claude_home  # noqa: E402

from tests.fakes.fake_api import FakeAnthropic, Reply, text  # noqa: E402

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 5
PAUSE_S = 2.0
KEY = "sk-ant-bench-not-a-key"
FLAGS = ["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"]
INITIALIZE = {"type": "control_request", "request_id": "init", "request": {"subtype": "initialize"}}
USER = {
    "type": "user",
    "message": {"role": "user", "content": "hello"},
    "parent_tool_use_id": None,
    "session_id": "default",
}


class Agent:
    """How to start one of the two agents in a fresh folder."""

    def __init__(self, name: str, argv: list[str], fake: FakeAnthropic, tmp: Path) -> None:
        self.name, self.argv, self.fake, self.tmp = name, argv, fake, tmp
        self.runs = 0

    def start(self) -> tuple[subprocess.Popen[str], float]:
        self.runs += 1
        cwd = self.tmp / f"{self.name}-{self.runs}"
        cwd.mkdir()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE"))}
        env |= {"ANTHROPIC_BASE_URL": self.fake.base_url, "ANTHROPIC_API_KEY": KEY}
        if self.name == "eddy":
            env |= {"EDDY_DATA_DIR": str(cwd / ".data"), "EDDY_TRUSTED_FOLDERS": str(cwd)}
        else:
            env |= {"HOME": claude_home(cwd, KEY), "DISABLE_AUTOUPDATER": "1"}
        self.fake.validate = self.name == "eddy"  # Claude Code sends shapes it does not model
        self.fake.push(Reply([text("Hi.")]))
        start = time.time()
        proc = subprocess.Popen(
            [*self.argv, *FLAGS],
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        return proc, start


def send(proc: subprocess.Popen[str], message: dict[str, Any]) -> None:
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(message) + "\n")
    proc.stdin.flush()


def until_line(proc: subprocess.Popen[str], wanted: str) -> None:
    assert proc.stdout is not None
    for line in proc.stdout:
        if wanted in line:
            return
    raise SystemExit(f"the agent ended before writing {wanted!r}")


def request_after(fake: FakeAnthropic, count: int, timeout: float = 60) -> float:
    """When (time.time()) the API read request number ``count`` (0-based)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        stamps = [t for what, t in fake.timeline if what == "request"]
        if len(stamps) > count:
            return stamps[count]
        time.sleep(0.0005)
    raise SystemExit("no request reached the API")


def stop(proc: subprocess.Popen[str]) -> None:
    proc.kill()
    proc.wait()


def paused(agent: Agent) -> tuple[float, float]:
    """(initialize answered, first prompt after a pause) in seconds."""
    fake = agent.fake
    fake.timeline.clear()
    proc, _ = agent.start()
    try:
        sent = time.time()
        send(proc, INITIALIZE)
        until_line(proc, '"control_response"')
        answered = time.time() - sent
        time.sleep(PAUSE_S)
        sent = time.time()
        send(proc, USER)
        return answered, request_after(fake, 0) - sent
    finally:
        stop(proc)


def at_once(agent: Agent) -> float:
    """From the process's start to the API reading the prompt sent with ``initialize``."""
    fake = agent.fake
    fake.timeline.clear()
    proc, start = agent.start()
    try:
        send(proc, INITIALIZE)
        send(proc, USER)
        return request_after(fake, 0) - start
    finally:
        stop(proc)


def line(what: str, ours: list[float], theirs: list[float]) -> str:
    med = statistics.median
    said = f"{what}: eddy {med(ours) * 1000:.0f} ms ({min(ours) * 1000:.0f}-{max(ours) * 1000:.0f})"
    if theirs:
        said += (
            f", Claude Code {med(theirs) * 1000:.0f} ms ({min(theirs) * 1000:.0f}-"
            f"{max(theirs) * 1000:.0f}): {med(ours) / med(theirs):.2f}x"
        )
    return said


def main() -> None:
    # compiled once, as an installation is (bench_headless.py says why)
    subprocess.run([sys.executable, "-m", "compileall", "-q", *PACKAGES], cwd=ROOT, check=True)
    claude = os.environ.get("CLAUDE_BIN") or shutil.which("claude")
    eddy = str(Path(sys.executable).with_name("eddy"))
    figures: dict[str, dict[str, list[float]]] = {}
    with FakeAnthropic() as fake, tempfile.TemporaryDirectory() as tmp:
        agents = [Agent("eddy", [eddy], fake, Path(tmp))]
        if claude:
            agents.append(Agent("claude", [claude], fake, Path(tmp)))
        for _ in range(RUNS):  # alternating, so the machine's drift hits both alike
            for agent in agents:
                got = figures.setdefault(agent.name, {"init": [], "paused": [], "at_once": []})
                answered, first = paused(agent)
                got["init"].append(answered)
                got["paused"].append(first)
                got["at_once"].append(at_once(agent))
    ours, theirs = figures["eddy"], figures.get("claude", {})
    print(
        f"Agent SDK's first prompt (stream-json, fake Messages API; medians of {RUNS} "
        f"alternating runs; load {os.getloadavg()[0]:.1f}):"
    )
    print("  " + line("initialize answered", ours["init"], theirs.get("init", [])))
    print(
        "  "
        + line(
            f"first prompt {PAUSE_S:.0f} s after it, to its request",
            ours["paused"],
            theirs.get("paused", []),
        )
    )
    print(
        "  "
        + line(
            "prompt with initialize, start to request", ours["at_once"], theirs.get("at_once", [])
        )
    )
    if not claude:
        print("claude: not found (install @anthropic-ai/claude-code, set CLAUDE_BIN), no ratio")


if __name__ == "__main__":
    main()
