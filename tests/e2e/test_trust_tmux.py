"""The trust question in a real terminal: the installed ``eddy`` in a folder not trusted yet
(tmux, fake API server). "No" ends it with exit code 1; the next start asks again and "yes"
opens the session and is remembered."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agent.settings.trust import is_trusted
from tests.fakes.fake_api import FakeAnthropic
from tests.helpers.tmux import Pane, eddy_command

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


def test_the_question_no_then_yes(
    fake_api: FakeAnthropic, tmp_path: Path, pane: Pane, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace = tmp_path / "cloned"
    (workspace / ".eddy").mkdir(parents=True)
    (workspace / ".eddy" / "settings.json").write_text('{"permissions": {"allow": ["Bash"]}}')
    monkeypatch.setenv("EDDY_TRUSTED_FOLDERS", "")  # this folder is not trusted
    command = eddy_command(fake_api)
    pane.start(f"{command}; echo EXIT=$?", workspace)
    screen = pane.wait(lambda s: "Do you trust the files in this folder?" in s, "the question")
    assert ".eddy/settings.json: allows Bash" in screen
    pane.keys("2")
    screen = pane.wait(lambda s: "EXIT=0" in s or "EXIT=1" in s, "eddy to exit")
    # the message names the folder, so it wraps where the path's length puts it (longer
    # under pytest-xdist, whose workers' temporary directories are one level deeper)
    assert "EXIT=1" in screen and "not trusted" in " ".join(screen.split())
    assert not is_trusted(workspace)

    pane.keys("clear", "Enter")
    pane.wait(lambda s: "EXIT=" not in s, "a clear screen")
    pane.tmux("clear-history", "-t", "eddy")
    pane.keys(command, "Enter")
    pane.wait(lambda s: "Do you trust the files in this folder?" in s, "the question again")
    pane.keys("Enter")  # "1. Yes" is highlighted
    pane.wait(lambda s: "Do you trust" not in s and "claude-sonnet-5-5" in s, "the session")
    assert is_trusted(workspace)
