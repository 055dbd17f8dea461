"""/memory hands the real terminal to $EDITOR and takes it back (tmux, fake API server).

The editor is a small script: it prints a line, reads what is typed (so the keys must reach
it, not eddy), appends that to AGENTS.md and exits. Afterwards eddy must be drawn again and
take typing: a prompt is sent and its answer shows.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.fakes.fake_api import FakeAnthropic, Reply, text
from tests.helpers.tmux import Pane, eddy_command

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

EDITOR = """#!/bin/sh
[ -t 0 ] && tty=terminal || tty=no-terminal
printf 'FAKE EDITOR on %s (%s): type a line\\n' "$1" "$tty"
IFS= read -r line
printf -- '- %s\\n' "$line" >> "$1"
"""


def test_memory_runs_the_editor_and_eddy_comes_back(
    fake_api: FakeAnthropic,
    tmp_path: Path,
    pane: Pane,
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    memory = workspace / "AGENTS.md"
    memory.write_text("# AGENTS.md\n")
    editor = tmp_path / "fake-editor.sh"
    editor.write_text(EDITOR)
    editor.chmod(0o755)
    fake_api.push(Reply([text("Hello after the editor.")]))
    command = eddy_command(fake_api, env={"EDITOR": str(editor)}, unset="VISUAL")
    pane.start(command, workspace)
    pane.wait(lambda s: "claude-sonnet-5-5" in s and "›" in s, "the prompt and status line")

    pane.type("/memory")
    pane.wait(lambda s: "/memory" in s, "the typed command")
    pane.keys("Enter")
    screen = pane.wait(lambda s: "FAKE EDITOR on" in s, "the editor")
    assert "(terminal)" in screen and str(memory) in screen.replace("\n", "")
    pane.type("run the tests with pytest")
    pane.keys("Enter")
    pane.wait(lambda s: "Project memory:" in s and "›" in s, "eddy drawn again")
    assert memory.read_text() == "# AGENTS.md\n- run the tests with pytest\n"

    pane.type("say hello")
    pane.keys("Enter")
    pane.wait(lambda s: "Hello after the editor." in s, "the answer to a new prompt")
    assert len(fake_api.requests) == 1  # the editor's input never reached eddy as a prompt
    sent = fake_api.requests[0]["messages"]
    assert sent[-1]["content"][-1]["text"] == "say hello"
