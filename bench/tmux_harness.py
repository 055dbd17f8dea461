"""Running eddy (and Claude Code) in a real terminal for the benchmarks: a detached tmux
session per run, a scratch data/config directory, and the start-up timing both
``bench_tui.py startup`` and ``bench_resume.py`` use (until the first frame, and until typed
text shows in the prompt)."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
EDDY = ROOT / ".venv" / "bin" / "eddy"
SIZE = (120, 40)
MARKER = "qzxj"


EDDY_PACKAGES = ("agent", "tools", "frontend", "cli", "headless", "acp_agent", "tui", "plain")


def compile_eddy() -> None:
    """Compile eddy's modules, as an installation has them (pip compiles): an editable
    checkout under PYTHONDONTWRITEBYTECODE=1 (set on these machines, and inherited by the
    tmux server) would compile every module again at every start, which a bare Textual app,
    installed and compiled, does not pay."""
    subprocess.run(
        [str(EDDY.with_name("python")), "-m", "compileall", "-q", *EDDY_PACKAGES, "themes"],
        cwd=ROOT,
        check=True,
    )


def scratch_env() -> dict[str, str]:
    env = dict(os.environ)
    tmp = tempfile.mkdtemp(prefix="eddy-bench-")
    env.update(
        EDDY_DATA_DIR=f"{tmp}/data",
        EDDY_CONFIG_DIR=f"{tmp}/config",
        EDDY_TRUSTED_FOLDERS=tempfile.gettempdir(),  # the benchmarks' projects: no question
        TERM="xterm-256color",
    )
    return env


TMUX = ["tmux", "-L", f"eddy-bench-{os.getpid()}"]
"""A tmux server of this bench's own: other users' servers and sessions are left alone, and
theirs ending cannot take ours down."""


class Tmux:
    """One detached tmux session running a command."""

    def __init__(self, name: str, command: list[str], env: dict[str, str], cwd: str) -> None:
        self.name = name
        passed = ("EDDY", "ANTH", "HOME", "CLAUDE", "DISABLE_")
        exports = " ".join(f"{k}={v!r}" for k, v in env.items() if k.startswith(passed))
        shell = f"cd {cwd!r} && env {exports} {' '.join(map(repr, command))}; sleep 5"
        subprocess.run([*TMUX, "kill-session", "-t", name], capture_output=True)
        start = [*TMUX, "new-session", "-d", "-s", name, "-x", str(SIZE[0]), "-y", str(SIZE[1])]
        for _attempt in range(3):  # the server of the last session may be exiting: again
            done = subprocess.run([*start, shell], capture_output=True, text=True)
            if done.returncode == 0:
                return
            time.sleep(0.2)
        raise RuntimeError(f"tmux new-session failed: {done.stderr.strip()}")

    def screen(self) -> str:
        out = subprocess.run(
            [*TMUX, "capture-pane", "-p", "-t", self.name], capture_output=True, text=True
        )
        return out.stdout

    def keys(self, *keys: str, literal: bool = False) -> None:
        cmd = [*TMUX, "send-keys", "-t", self.name, *(["-l"] if literal else []), *keys]
        subprocess.run(cmd, check=True)

    def wait_for(self, text: str, timeout: float = 20, pause: float = 0.0) -> float:
        """Seconds until ``text`` is on screen (polling capture-pane; ``pause`` seconds
        between two looks, so that the poll does not take a core from the app it watches)."""
        start = time.perf_counter()
        while time.perf_counter() - start < timeout:
            if text in self.screen():
                return time.perf_counter() - start
            if pause:
                time.sleep(pause)
        raise TimeoutError(f"{text!r} never appeared")

    def wait_gone(self, text: str, timeout: float = 20) -> None:
        """Wait until ``text`` is no longer on screen."""
        start = time.perf_counter()
        while time.perf_counter() - start < timeout:
            if text not in self.screen():
                return
        raise TimeoutError(f"{text!r} never went away")

    def takes_keys(self) -> None:
        """Wait until the prompt takes keys: ``MARKER`` typed shows (keys sent before the app
        reads them could sit in the tty buffer: resent, after Ctrl+U, if the echo does not
        come quickly). The mark stays in the prompt."""
        while True:
            self.keys(MARKER, literal=True)
            try:
                self.wait_for(MARKER, timeout=0.5)
                return
            except TimeoutError:
                self.keys("C-u")

    def until_typing(self) -> None:
        """``takes_keys``, then the prompt left empty again."""
        self.takes_keys()
        self.keys(*["BSpace"] * len(MARKER))
        self.wait_gone(MARKER)

    def processes(self) -> list[int]:
        """The pids of every process under the pane's shell (the program and its children)."""
        out = subprocess.run(
            [*TMUX, "display", "-p", "-t", self.name, "#{pane_pid}"],
            capture_output=True,
            text=True,
        )
        todo, found = [out.stdout.strip()], []
        while todo:
            kids = subprocess.run(["pgrep", "-P", todo.pop()], capture_output=True, text=True)
            for pid in kids.stdout.split():
                found.append(int(pid))
                todo.append(pid)
        return found

    def cpu_seconds(self) -> float:
        """CPU time (user + system, every thread) used so far by the processes under the
        pane's shell."""
        tick = os.sysconf("SC_CLK_TCK")
        total = 0
        for pid in self.processes():
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue  # ended meanwhile
            total += int(fields[11]) + int(fields[12])  # utime, stime (after the state field)
        return total / tick

    def kill(self) -> None:
        subprocess.run([*TMUX, "kill-session", "-t", self.name], capture_output=True)


def time_startup(
    command: list[str],
    ready: str,
    env: dict[str, str],
    runs: int = 5,
    prepare: Any = None,
) -> tuple:
    """Median (first frame, typing accepted) seconds for ``command``; ``ready`` marks a frame.
    ``prepare(cwd)``, if given, returns the environment for a run in ``cwd``."""
    frames, typing = [], []
    for n in range(runs):
        cwd = tempfile.mkdtemp(prefix="eddy-bench-cwd-")
        if prepare is not None:
            env = prepare(cwd)
        start = time.perf_counter()
        tmux = Tmux(f"eddy-bench-{os.getpid()}-{n}", command, env, cwd)
        try:
            tmux.wait_for(ready)
            frames.append(time.perf_counter() - start)
            tmux.takes_keys()  # a resent mark counts as not ready
            typing.append(time.perf_counter() - start)
        finally:
            tmux.kill()
    return statistics.median(frames), statistics.median(typing)


def claude_env(cwd: str, base_url: str = "http://127.0.0.1:9") -> dict[str, str]:
    """A scratch HOME in which Claude Code is past onboarding, trusts ``cwd`` and accepts the
    key, so it opens straight to its prompt (by default nothing is sent: the base URL is
    unreachable; a fake Messages API's ``base_url`` answers its prompts)."""
    home = tempfile.mkdtemp(prefix="claude-bench-home-")
    key = "sk-ant-bench-not-used"
    config = {
        "hasCompletedOnboarding": True,
        "theme": "dark",
        "customApiKeyResponses": {"approved": [key[-20:]], "rejected": []},
        "projects": {cwd: {"hasTrustDialogAccepted": True, "hasCompletedProjectOnboarding": True}},
    }
    Path(home, ".claude.json").write_text(json.dumps(config))
    return {
        "HOME": home,
        "ANTHROPIC_API_KEY": key,
        "ANTHROPIC_BASE_URL": base_url,
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }


def claude_version(claude: str) -> str:
    out = subprocess.run([claude, "--version"], capture_output=True, text=True, timeout=30)
    return out.stdout.strip() or "unknown version"
