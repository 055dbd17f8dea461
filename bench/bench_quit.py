"""Quitting and starting the interactive app in a real terminal (tmux); prints figures.

1. quit: eddy (TUI and ``--plain``) running in tmux with a key, at its prompt; time from the
   keypress (``/exit`` + Enter, Ctrl+D) or the signal (SIGTERM) until the shell after it runs
   (``sh -c 'eddy; echo EXITED'``: the word is on screen only once the process is gone), and
   check the transcript was written (the session's file exists and ends with a newline).
2. start: eddy until it accepts typing, beside a bare Textual app with one Input (the floor any
   Textual UI pays), and Claude Code when ``CLAUDE_BIN`` is set, alternating in one run.

Run: .venv/bin/python bench/bench_quit.py [quit|start] [runs]
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from tmux_harness import (  # noqa: E402
    EDDY,
    MARKER,
    TMUX,
    Tmux,
    claude_env,
    compile_eddy,
    scratch_env,
    time_startup,
)

PART = sys.argv[1] if len(sys.argv) > 1 else "all"
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 5
DONE = "EXITED-NOW"
BARE_APP = """
from textual.app import App
from textual.widgets import Input, Static

class Bare(App):
    def compose(self):
        yield Static("bare textual")
        yield Input()

Bare().run()
"""


def pane_child(tmux: Tmux) -> int:
    """The pid of the program the pane's shell runs (eddy)."""
    out = subprocess.run(
        [*TMUX, "display", "-p", "-t", tmux.name, "#{pane_pid}"], capture_output=True, text=True
    )
    shell = out.stdout.strip()
    kids = subprocess.run(["pgrep", "-P", shell], capture_output=True, text=True).stdout.split()
    inner = subprocess.run(["pgrep", "-P", kids[0]], capture_output=True, text=True).stdout.split()
    return int((inner or kids)[0])


def wait_typing(tmux: Tmux) -> None:
    tmux.takes_keys()
    tmux.keys("C-u")
    for _ in range(200):  # the prompt is empty again (Ctrl+D quits only on an empty prompt)
        if MARKER not in tmux.screen():
            return
        time.sleep(0.01)


def time_quit(how: str, plain: bool) -> tuple[float, bool]:
    env = scratch_env() | {
        "ANTHROPIC_API_KEY": "sk-ant-bench",
        "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",
    }
    cwd = tempfile.mkdtemp(prefix="eddy-bench-quit-")
    cmd = f"{EDDY} {'--plain' if plain else ''}; echo {DONE}"
    tmux = Tmux(f"eddy-quit-{os.getpid()}", ["sh", "-c", cmd], env, cwd)
    try:
        tmux.wait_for("eddy in", timeout=30)
        wait_typing(tmux)
        pid = pane_child(tmux)
        if how == "/exit":  # typed first: the time runs from the Enter
            tmux.keys("/exit", literal=True)
            tmux.wait_for("/exit")
        start = time.perf_counter()
        if how == "/exit":
            tmux.keys("Enter")
        elif how == "ctrl+d":
            tmux.keys("C-d")
        else:
            os.kill(pid, 15)
        tmux.wait_for(DONE, timeout=30)
        elapsed = time.perf_counter() - start
        files = list(Path(env["EDDY_DATA_DIR"]).rglob("*.jsonl"))
        saved = bool(files) and all(f.read_bytes().endswith(b"\n") for f in files)
        return elapsed, saved
    finally:
        tmux.kill()
        shutil.rmtree(cwd, ignore_errors=True)


def bench_quit() -> None:
    print(
        f"quit: keypress or signal until the shell runs again, median of {RUNS} runs "
        f"(load {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores)"
    )
    for plain in (False, True):
        for how in ("/exit", "ctrl+d", "SIGTERM"):
            results = [time_quit(how, plain) for _ in range(RUNS)]
            med = statistics.median(t for t, _ in results)
            saved = all(s for _, s in results)
            ui = "line mode" if plain else "TUI"
            print(
                f"  {ui:9} {how:8} {med:.3f} s (max {max(t for t, _ in results):.3f}); "
                f"transcript saved every time: {saved}  (target <= 0.2 s)"
            )


def bench_start() -> None:
    env = scratch_env() | {"ANTHROPIC_API_KEY": "sk-ant-bench-not-used"}
    bare = Path(tempfile.mkdtemp(prefix="eddy-bench-bare-")) / "bare.py"
    bare.write_text(BARE_APP)
    python = str(ROOT / ".venv" / "bin" / "python")
    claude = os.environ.get("CLAUDE_BIN") or shutil.which("claude")
    eddy, floor, cc = [], [], []
    for _ in range(RUNS):  # alternating, one run each per round, so load hits all alike
        eddy.append(time_startup([str(EDDY)], "eddy in", env, runs=1)[1])
        floor.append(time_startup([python, str(bare)], "bare textual", env, runs=1)[1])
        if claude:
            cc.append(time_startup([claude], "Claude Code", {}, runs=1, prepare=claude_env)[1])
    e, f = statistics.median(eddy), statistics.median(floor)
    print(f"start until typing, medians of {RUNS} alternating runs (load {os.getloadavg()[0]:.2f})")
    print(f"  eddy {e:.3f} s; bare Textual app {f:.3f} s: {e / f:.2f}x (target <= 1.25x)")
    if cc:
        c = statistics.median(cc)
        print(f"  Claude Code {c:.3f} s: eddy / Claude Code = {e / c:.2f}x (target <= 0.8x)")
    else:
        print("  Claude Code: not found (set CLAUDE_BIN), no ratio")


if __name__ == "__main__":
    compile_eddy()
    if PART in ("all", "quit"):
        bench_quit()
    if PART in ("all", "start"):
        bench_start()
