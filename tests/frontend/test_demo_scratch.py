"""``eddy --demo`` works in a scratch copy of a sample project and removes it at exit
(issue 25: ``/tmp/eddy-demo-*`` folders were never removed)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from frontend.demo import SCRATCH_PREFIX, prepare_workspace, remove_workspace


def test_remove_workspace_removes_only_scratch_folders(tmp_path: Path) -> None:
    scratch = prepare_workspace(tmp_path, remove_at_exit=False)
    assert scratch.name.startswith(SCRATCH_PREFIX) and (scratch / "stats.py").is_file()
    mine = tmp_path / "my-project"
    mine.mkdir()
    remove_workspace(mine)  # not a scratch folder: left alone
    remove_workspace(scratch)
    assert mine.is_dir() and not scratch.exists()


@pytest.mark.slow
def test_a_line_mode_demo_leaves_no_scratch_folder_and_no_resume_hint(tmp_path: Path) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update(TMPDIR=str(temp), TERM="xterm")
    exe = Path(sys.executable).with_name("eddy")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "cli.main"]
    done = subprocess.run(
        [*cmd, "--plain", "--demo"],
        input="what is this project?\n",
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert done.returncode == 0, done.stderr
    assert "That was the whole scripted demo." in done.stdout
    assert "eddy --resume" not in done.stdout  # its folder is gone: nothing to resume
    assert list(temp.iterdir()) == []
