"""The TUI as a person uses it (issue 25), in a real terminal (tmux) against the fake server:
a long answer streamed at a reading pace ends on screen with its last line, and command
output that clears the screen and retitles the window leaves the screen alone."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.helpers.tmux import Pane, eddy_command

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


def start_eddy(pane: Pane, fake: FakeAnthropic, workspace: Path, *flags: str) -> None:
    pane.start(eddy_command(fake, *flags), workspace)
    pane.wait(lambda s: "claude-sonnet-5-5" in s and "›" in s, "the prompt and status line")


def forty_items() -> str:
    """About 5,900 characters: a paragraph, a numbered list of 40, a last sentence."""
    items = "".join(
        f"{i}. Step {i} checks the bounds of the buffer and logs what it found there.\n"
        f"   It then moves on to the next part of the plan without delay.\n"
        for i in range(1, 41)
    )
    return f"Here is the whole plan.\n\n{items}\nThat is the end of the plan, all forty steps.\n"


def test_a_long_answer_at_reading_pace_ends_on_screen(
    fake_api: FakeAnthropic, tmp_path: Path, pane: Pane
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    answer = forty_items()
    assert 5500 < len(answer) < 6500
    fake_api.push(Reply([text(answer)], delay=0.02))  # three words an event: ~100 words/s
    start_eddy(pane, fake_api, workspace)
    pane.type("the plan please")
    pane.keys("Enter")
    screen = pane.wait(
        lambda s: "all forty steps." in s, "the answer's last line on screen", timeout=120
    )
    assert "40. Step 40 checks" in screen


def test_command_output_that_clears_the_screen_leaves_it_alone(
    fake_api: FakeAnthropic, tmp_path: Path, pane: Pane
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    command = r"printf '\033[2J\033[H\033]0;PWNED\007wiped?\033[3A\033[2K done\n'"
    fake_api.push(
        Reply([text("Running it."), tool_use("toolu_1", "Bash", {"command": command})], "tool_use"),
        Reply([text("The command ran.")]),
    )
    start_eddy(pane, fake_api, workspace, "--permission-mode", "bypassPermissions")
    pane.type("run the printf")
    pane.keys("Enter")
    screen = pane.wait(lambda s: "The command ran." in s, "the answer after the command")
    assert "wiped? done" in screen
    # the header, the prompt and the status line are still drawn: nothing cleared them
    assert "run the printf" in screen and "›" in screen and "claude-sonnet-5-5" in screen
    title = pane.tmux("display-message", "-p", "-t", "eddy", "#{pane_title}")
    assert "PWNED" not in title


def test_no_color_paints_no_colour(fake_api: FakeAnthropic, tmp_path: Path, pane: Pane) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    fake_api.push(Reply([text("A **bold** answer with `code`.")]))
    pane.start(eddy_command(fake_api, env={"NO_COLOR": "1"}), workspace)
    pane.wait(lambda s: "claude-sonnet-5-5" in s and "›" in s, "the prompt and status line")
    pane.type("hello")
    pane.keys("Enter")
    pane.wait(lambda s: "A bold answer" in s, "the answer")
    painted = pane.tmux("capture-pane", "-p", "-e", "-t", "eddy")  # with its SGR codes
    codes = {
        part for sgr in re.findall(r"\x1b\[([0-9;:]*)m", painted) for part in re.split(r"[;:]", sgr)
    }
    colours = {c for c in codes if c in {"38", "48"} or (len(c) == 2 and c[0] in "3489")}
    assert not colours - {"39", "49"}, sorted(colours)  # default colours only


def test_exit_prints_the_resume_hint(fake_api: FakeAnthropic, tmp_path: Path, pane: Pane) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    fake_api.push(Reply([text("Noted.")]))
    start_eddy(pane, fake_api, workspace)
    pane.type("remember this")
    pane.keys("Enter")
    pane.wait(lambda s: "Noted." in s, "the answer")
    pane.type("/exit")
    pane.keys("Enter")
    screen = pane.wait(lambda s: "Session saved: eddy --resume" in s, "the resume hint")
    session_id = screen.split("Session saved: eddy --resume", 1)[1].split()[0]
    assert len(session_id) >= 8
