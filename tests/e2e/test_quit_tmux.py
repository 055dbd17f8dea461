"""Quitting ends the process at once (``os._exit`` after the session is closed: cli/main.py,
frontend/termination.end_process) and loses nothing: in a real terminal, with a shell command
still running, /exit or Ctrl+D in the TUI and in line mode leave the transcript whole and
valid, the prompt in the prompt history, the checkpoint store loadable, a file the turn edited
in its checkpoint, and no process of the command's group alive."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agent.checkpoints.engine import CheckpointStore, session_checkpoint_dir
from agent.messages import ToolResultBlock, check_invariant
from agent.paths import project_data_dir
from agent.store.listing import latest_session
from agent.store.load import load
from tests.fakes.fake_api import FakeAnthropic, Reply, tool_use
from tests.helpers.tmux import Pane, eddy_command

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

WRITE = {"file_path": "new.txt", "content": "written by the turn\n"}
LONG = {"command": "echo $$ > leader.pid; sleep 300 & sleep 300; echo never"}


def group_alive(pgid: int) -> bool:
    """Whether a process of group ``pgid`` still runs. Zombies do not count: killed processes
    whose parent (eddy) has gone are reparented to PID 1, which here (a sandbox's init) never
    reaps them; they run nothing."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


@pytest.mark.parametrize("plain", [False, True], ids=["tui", "plain"])
@pytest.mark.parametrize("how", ["/exit", "ctrl+d"])
def test_quitting_mid_command_keeps_everything_and_leaves_no_process(
    fake_api: FakeAnthropic, tmp_path: Path, pane: Pane, plain: bool, how: str
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    fake_api.push(
        Reply([tool_use("toolu_1", "Write", WRITE), tool_use("toolu_2", "Bash", LONG)], "tool_use"),
    )
    flags = ["--permission-mode", "bypassPermissions", *(["--plain"] if plain else [])]
    pane.start(f"{eddy_command(fake_api, *flags)}; echo EXITED-$?", workspace)
    pane.wait(lambda s: "claude-sonnet-5-5" in s and "›" in s, "the prompt")
    pane.type("change the notes")
    pane.keys("Enter")
    pane.wait(lambda s: (workspace / "leader.pid").exists(), "the command to start")
    leader = int((workspace / "leader.pid").read_text())
    assert group_alive(leader)
    if how == "/exit":
        pane.type("/exit")
        pane.keys("Enter")
    else:
        pane.keys("C-d")
    pane.wait(lambda s: "EXITED-0" in s, "eddy to exit and the shell to go on")

    assert not group_alive(leader), "the running command's processes outlived eddy"
    assert (workspace / "new.txt").read_text() == "written by the turn\n"
    path = latest_session(workspace)
    assert path is not None
    assert path.read_bytes().endswith(b"\n")  # the last record whole
    loaded = load(path)
    assert not loaded.problems
    history = loaded.history
    check_invariant(history)
    assert history[0].content[0].text == "change the notes"
    asked = next(i for i, m in enumerate(history) if m.role == "assistant")
    answer = history[asked + 1].content
    results = [b for b in answer if isinstance(b, ToolResultBlock)]
    assert [r.tool_use_id for r in results] == ["toolu_1", "toolu_2"]
    prompts = (project_data_dir(workspace) / "prompt_history.jsonl").read_text()
    assert "change the notes" in prompts
    store = CheckpointStore(workspace, session_checkpoint_dir(workspace, loaded.session_id))
    assert store.load_problem is None
    (summary,) = store.list()  # the prompt's checkpoint, with the Write in it
    assert summary.files, summary
