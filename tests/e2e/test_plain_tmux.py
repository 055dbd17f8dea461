"""``eddy --plain`` in a real terminal (tmux) against the fake Messages API, typed like a person.

Type a prompt and read the streamed answer; start a long tool call, type a correction while it
runs, see it queued and delivered; exit with /exit and check the exit status.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

WAIT_FOR_GO = "while [ ! -e go ]; do sleep 0.05; done; echo released"


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


@pytest.fixture
def pane() -> Iterator[Pane]:
    p = Pane(f"eddy-test-{uuid.uuid4().hex[:8]}")
    yield p
    p.kill()


def start_plain(pane: Pane, fake: FakeAnthropic, workspace: Path, after: str) -> None:
    """Run ``eddy --plain`` (bypass mode) against ``fake`` in the pane, then the shell
    command ``after``; wait for the prompt."""
    exe = Path(sys.executable).with_name("eddy")
    eddy = str(exe) if exe.exists() else f"{sys.executable} -m agent.cli"
    env = {
        "ANTHROPIC_BASE_URL": fake.base_url,
        "ANTHROPIC_API_KEY": "test-key",
        "EDDY_DATA_DIR": os.environ["EDDY_DATA_DIR"],
        "EDDY_CONFIG_DIR": os.environ["EDDY_CONFIG_DIR"],
        "TERM": "xterm-256color",
    }
    command = (
        "env -u ANTHROPIC_AUTH_TOKEN "
        + " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        + f" {eddy} --plain --permission-mode bypassPermissions; {after}"
    )
    pane.start(command, workspace)
    pane.wait(
        lambda s: any(ln.startswith("›") for ln in s.splitlines()) and "context 0%" in s,
        "the prompt and its toolbar",
    )


def test_eddy_plain_in_tmux(fake_api: FakeAnthropic, tmp_path: Path, pane: Pane) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    fake_api.push(
        Reply([text("Hello from the **fake** model.\n\nIt streamed.")], delay=0.01),
        Reply(
            [text("Starting."), tool_use("toolu_1", "Bash", {"command": WAIT_FOR_GO})], "tool_use"
        ),
        Reply([text("Noted the correction.")]),
    )
    status_file = tmp_path / "status"
    start_plain(pane, fake_api, workspace, f"echo $? > {shlex.quote(str(status_file))}")

    pane.type("say hello")
    pane.keys("Enter")
    screen = pane.wait(lambda s: "It streamed." in s, "the streamed answer")
    assert "Hello from the fake model." in screen  # markdown rendered: no ** left
    assert "› say hello" in screen

    pane.type("run the job")
    pane.keys("Enter")
    pane.wait(lambda s: "▸ Bash(" in s, "the tool call")
    pane.type("use the other approach")
    pane.keys("Enter")
    pane.wait(lambda s: "queued: use the other approach" in s, "the queued correction")
    (workspace / "go").write_text("")
    screen = pane.wait(lambda s: "Noted the correction." in s, "the answer after the tool")
    assert "sent to the model: use the other approach" in screen
    last = fake_api.requests[2]["messages"][-1]["content"]
    assert [b["type"] for b in last] == ["tool_result", "text"]
    assert last[1]["text"] == "use the other approach"

    pane.type("/exit")
    pane.keys("Enter")
    deadline = time.monotonic() + 15
    while not status_file.exists() or not status_file.read_text().strip():
        assert time.monotonic() < deadline, f"eddy did not exit; the screen:\n{pane.screen()}"
        time.sleep(0.05)
    assert status_file.read_text().strip() == "0"
    assert not fake_api.violations


def test_plain_sigterm_leaves_the_terminal_in_its_normal_modes(
    fake_api: FakeAnthropic, tmp_path: Path, pane: Pane
) -> None:
    import subprocess

    workspace = tmp_path / "ws"
    workspace.mkdir()
    fake_api.push(Reply([text("An answer to keep.")]))
    # stty runs the moment eddy is gone, before any shell could repair the terminal
    after = tmp_path / "after"
    start_plain(pane, fake_api, workspace, f"echo $? > {after}; stty -a >> {after}")
    pane.type("keep this")
    pane.keys("Enter")
    pane.wait(lambda s: "An answer to keep." in s, "the answer")
    shell = pane.tmux("display", "-p", "-t", "eddy", "#{pane_pid}").strip()
    found = subprocess.run(["pgrep", "-P", shell, "-f", "eddy"], capture_output=True, text=True)
    (pid,) = found.stdout.split()
    subprocess.run(["kill", "-TERM", pid], check=True)
    pane.wait(lambda s: after.exists() and "icanon" in after.read_text(), "eddy to exit")
    code, *stty = after.read_text().split("\n")
    assert code == "143"
    modes = " ".join(stty).split()
    assert "icanon" in modes and "echo" in modes and "icrnl" in modes  # not left raw
    assert "Session saved" in pane.screen()
