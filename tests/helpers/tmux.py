"""eddy in a real terminal for the end-to-end tests: a tmux server of the test's own, and the
command line that starts the installed ``eddy`` against the fake Messages API."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from tests.fakes.fake_api import FakeAnthropic


class Pane:
    """A tmux server of its own (``-L``), one session, one pane running a command."""

    def __init__(self, socket: str) -> None:
        self.socket = socket

    def tmux(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=10
        )
        return done.stdout

    def start(self, command: str, cwd: Path) -> None:
        self.tmux("new-session", "-d", "-s", "eddy", "-x", "120", "-y", "40", "-c", str(cwd))
        self.tmux("send-keys", "-t", "eddy", command, "Enter")

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "eddy", *keys)

    def type(self, text: str) -> None:
        self.tmux("send-keys", "-t", "eddy", "-l", text)

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", "eddy")

    def wait(self, condition: Callable[[str], bool], what: str, timeout: float = 20) -> str:
        """Poll the screen until ``condition`` holds on it."""
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if condition(screen):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; the screen:\n{screen}")
            time.sleep(0.05)

    def kill(self) -> None:
        self.tmux("kill-server")


def eddy_command(
    fake: FakeAnthropic, *args: str, env: dict[str, str] | None = None, unset: str = ""
) -> str:
    """The shell command running the installed ``eddy ARGS`` against ``fake``, with this
    test's data and config directories (``unset``: more variables to remove, space-separated)."""
    exe = Path(sys.executable).with_name("eddy")
    eddy = str(exe) if exe.exists() else f"{sys.executable} -m cli.main"
    variables = {
        "ANTHROPIC_BASE_URL": fake.base_url,
        "ANTHROPIC_API_KEY": "test-key",
        "EDDY_DATA_DIR": os.environ["EDDY_DATA_DIR"],
        "EDDY_CONFIG_DIR": os.environ["EDDY_CONFIG_DIR"],
        "EDDY_TRUSTED_FOLDERS": os.environ["EDDY_TRUSTED_FOLDERS"],
        "TERM": "xterm-256color",
        **(env or {}),
    }
    removed = " ".join(f"-u {name}" for name in ["ANTHROPIC_AUTH_TOKEN", *unset.split()])
    assigned = " ".join(f"{k}={shlex.quote(v)}" for k, v in variables.items())
    return f"env {removed} {assigned} {eddy} {' '.join(args)}".rstrip()
