"""MCP start-up benchmark; prints figures, asserts nothing.

Run: .venv/bin/python bench/bench_mcp.py [tui|headless]   (both by default)

``tui``: launch ``.venv/bin/eddy`` in tmux (as bench_tui.py does) with no MCP server and with 5
stdio servers configured (our fake server, tests/fakes/mcp_stdio_server.py, through
--mcp-config): the median time to the first frame and until typed text shows in the prompt.
The servers start in the background, so the target is: accepts typing within 1.1x of the run
without servers.

``headless`` (issue 32: 5 stdio servers add <= 0.2 s to the first request): ``eddy -p`` and,
with ``CLAUDE_BIN`` set, Claude Code's ``-p``, against the fake Messages API, each with no
server, with 5 ``mini`` servers (bench/mini_mcp_server.py, standard library only: what the
agent's own MCP start costs; run as ``python -S``, never through a ``python3`` that may be a
version manager's shim) and with 5 ``mcp-server-time`` servers (built on the ``mcp``
package: each imports for about a second of CPU on a busy 2-core machine), through
``--mcp-config FILE --strict-mcp-config`` (both agents wait for their servers before the first
request), and with 5 ``mini`` servers and ``MCP_CONNECTION_NONBLOCKING=1`` (Claude Code's
variable, which both agents read: the first request does not wait for the servers). eddy -p
spawns its stdio servers before it imports the MCP SDK (agent/mcp/prespawn.py). The clock:
launch -> the arrival of the first request that offers tools (the main loop's; a side call
does not count). The runs alternate; medians of ``BENCH_RUNS`` (7), the
spread and the load are printed.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
PYTHON = ROOT / ".venv" / "bin" / "python"
SERVER = ROOT / "tests" / "fakes" / "mcp_stdio_server.py"
SERVERS = 5
RUNS = 7

from tmux_harness import EDDY, scratch_env, time_startup  # noqa: E402

from tests.fakes.fake_api import FakeAnthropic, Reply, text  # noqa: E402

TIME_SERVER = ROOT / ".venv" / "bin" / "mcp-server-time"
MINI_SERVER = ROOT / "bench" / "mini_mcp_server.py"


def servers_file(n: int) -> Path:
    entries = {
        f"s{i}": {"command": str(PYTHON), "args": [str(SERVER), "--name", f"s{i}"]}
        for i in range(n)
    }
    path = Path(tempfile.mkdtemp(prefix="eddy-bench-mcp-")) / "servers.json"
    path.write_text(json.dumps({"mcpServers": entries}), encoding="utf-8")
    return path


def main() -> None:
    modes = sys.argv[1:] or ["tui", "headless"]
    if "headless" in modes:
        headless(int(os.environ.get("BENCH_RUNS", "7")))
    if "tui" in modes:
        tui()


class FirstCall(FakeAnthropic):
    """The fake API, noting when the first request that offers tools arrived."""

    def __init__(self) -> None:
        super().__init__(default=Reply([text("ok")]))
        self._local = threading.local()
        self.first: float | None = None

    def _handle(self, h: Any) -> None:
        self._local.arrived = time.time()
        super()._handle(h)

    def _next_item(self, body: dict[str, Any]) -> Any:
        if body.get("tools") and self.first is None:
            self.first = self._local.arrived
        return super()._next_item(body)


def servers_of(kind: str, n: int) -> Path:
    """A config of ``n`` servers: ``mini`` (bench/mini_mcp_server.py, standard library only)
    or ``time`` (``mcp-server-time``, built on the ``mcp`` package)."""
    # the interpreter itself, without site: ``python3`` may be a version manager's shim (a
    # shell script: pyenv's takes ~0.1 s a start), which both agents would pay five times
    mini = [str(PYTHON), "-S", str(MINI_SERVER)]
    command = [str(TIME_SERVER)] if kind == "time" else mini
    entries = {f"{kind}{i}": {"command": command[0], "args": command[1:]} for i in range(n)}
    path = Path(tempfile.mkdtemp(prefix="eddy-bench-mcp-")) / "servers.json"
    path.write_text(json.dumps({"mcpServers": entries}), encoding="utf-8")
    return path


def headless(runs: int) -> None:
    """``-p`` with no MCP server and with 5: launch -> first main request, eddy and Claude."""
    from bench_headless import PACKAGES, claude_home

    subprocess.run([sys.executable, "-m", "compileall", "-q", *PACKAGES], cwd=ROOT, check=True)
    key = "sk-ant-bench-not-a-key"
    claude = os.environ.get("CLAUDE_BIN") or shutil.which("claude")
    kinds = ("mini", "time")
    work = Path(tempfile.mkdtemp(prefix="eddy-bench-mcp-work-"))
    base = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE"))}
    base |= {"ANTHROPIC_API_KEY": key, "EDDY_DATA_DIR": str(work / "data")}
    agents = [("eddy", str(EDDY), base)]
    if claude:
        cenv = base | {
            "HOME": claude_home(work, key),
            "DISABLE_AUTOUPDATER": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        }
        agents.append(("Claude Code", claude, cenv))
    cases: dict[str, tuple[list[str], dict[str, str]]] = {}
    configs = {kind: servers_of(kind, SERVERS) for kind in kinds}
    for name, exe, env in agents:
        cases[f"{name}, no server"] = ([exe, "-p", "hi", "--strict-mcp-config"], env)
        for kind in kinds:
            strict = ["--mcp-config", str(configs[kind]), "--strict-mcp-config"]
            cases[f"{name}, {SERVERS} {kind}"] = ([exe, "-p", "hi", *strict], env)
        # Claude Code's switch (both agents have it): the first request does not wait
        strict = ["--mcp-config", str(configs["mini"]), "--strict-mcp-config"]
        nonblocking = env | {"MCP_CONNECTION_NONBLOCKING": "1"}
        cases[f"{name}, {SERVERS} mini nonblock"] = ([exe, "-p", "hi", *strict], nonblocking)
    first: dict[str, list[float]] = {label: [] for label in cases}
    loads: list[float] = []
    with FirstCall() as fake:
        for _ in range(runs):
            for label, (argv, env) in cases.items():
                fake.validate = label.startswith("eddy")
                fake.first = None
                started = time.time()
                out = subprocess.run(
                    argv,
                    cwd=work,
                    env=env | {"ANTHROPIC_BASE_URL": fake.base_url},
                    capture_output=True,
                    text=True,
                    timeout=120,
                )
                if out.returncode != 0 or fake.first is None:
                    raise SystemExit(f"{label} failed: {out.stdout[-800:]}{out.stderr[-800:]}")
                first[label].append(fake.first - started)
                loads.append(os.getloadavg()[0])
    shutil.rmtree(work, ignore_errors=True)
    print(
        f"-p, launch -> first main request; medians of {runs} alternating runs (min-max); "
        f"load average {min(loads):.1f}-{max(loads):.1f} on {os.cpu_count()} cores"
    )
    med = {label: statistics.median(times) for label, times in first.items()}
    for label, times in first.items():
        print(f"  {label:26s} {med[label]:.3f} s ({min(times):.3f}-{max(times):.3f})")
    for kind in (*kinds, "mini nonblock"):
        added = med[f"eddy, {SERVERS} {kind}"] - med["eddy, no server"]
        line = f"{SERVERS} {kind} servers add: eddy {added:+.3f} s (target <= 0.2 s)"
        if claude:
            theirs = med[f"Claude Code, {SERVERS} {kind}"] - med["Claude Code, no server"]
            line += f"; Claude Code {theirs:+.3f} s"
        print(line)


def tui() -> None:
    if not shutil.which("tmux"):
        print("mcp startup: tmux not found, skipped")
        return
    # a tmux server of our own: other benchmarks running at the same time use the same names
    os.environ["TMUX_TMPDIR"] = tempfile.mkdtemp(prefix="eddy-bench-tmux-")
    env = scratch_env()
    env["ANTHROPIC_API_KEY"] = "sk-ant-bench-not-used"
    env["CLAUDE_CONFIG_DIR"] = tempfile.mkdtemp(prefix="eddy-bench-claude-")  # no ~/.claude.json
    none_frame, none_typing = time_startup([str(EDDY)], "eddy in", env, runs=RUNS)
    cfg = servers_file(SERVERS)
    with_cmd = [str(EDDY), "--mcp-config", str(cfg)]
    mcp_frame, mcp_typing = time_startup(with_cmd, "eddy in", env, runs=RUNS)
    print(f"no MCP server:     first frame {none_frame:.3f}s, accepts typing {none_typing:.3f}s")
    print(
        f"{SERVERS} stdio servers:   first frame {mcp_frame:.3f}s, accepts typing {mcp_typing:.3f}s"
    )
    ratio = mcp_typing / none_typing
    verdict = "within" if ratio <= 1.1 else "NOT within"
    print(f"accepts typing: {ratio:.2f}x of none ({verdict} the 1.1x target; median of {RUNS})")


if __name__ == "__main__":
    main()
