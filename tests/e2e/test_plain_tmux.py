"""``eddy --plain`` in a real terminal (tmux) against the fake Messages API, typed like a person.

Type a prompt and read the streamed answer; start a long tool call, type a correction while it
runs, see it queued and delivered; exit with /exit and check the exit status.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.helpers.tmux import Pane, eddy_command

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

WAIT_FOR_GO = "while [ ! -e go ]; do sleep 0.05; done; echo released"


def start_plain(pane: Pane, fake: FakeAnthropic, workspace: Path, after: str) -> None:
    """Run ``eddy --plain`` (bypass mode) against ``fake`` in the pane, then the shell
    command ``after``; wait for the prompt."""
    command = eddy_command(fake, "--plain", "--permission-mode", "bypassPermissions")
    command += f"; {after}"
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
