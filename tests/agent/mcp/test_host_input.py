"""The MCP host run by anything but eddy: a message and exit status 2, never a wait or a
traceback (agent/mcp/host.py's ``main``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
HOST = [sys.executable, "-P", "-m", "agent.mcp"]


def test_no_pipes_is_not_eddy(tmp_path: Path) -> None:
    """stdin on /dev/null (asyncio cannot watch it: the host used to wait for ever) and
    stdout on a file."""
    out = tmp_path / "out"
    with open(out, "wb") as stdout, open("/dev/null", "rb") as stdin:
        done = subprocess.run(
            HOST, cwd=ROOT, stdin=stdin, stdout=stdout, stderr=subprocess.PIPE, timeout=60
        )
    assert done.returncode == 2
    assert b"pipes on stdin and stdout" in done.stderr and b"Traceback" not in done.stderr


@pytest.mark.parametrize("first", [b"\n", b"garbage\n", b"[1]\n", b'{"servers": 3}\n'])
def test_a_first_line_that_is_not_the_setup(first: bytes) -> None:
    done = subprocess.run(HOST, cwd=ROOT, input=first, capture_output=True, timeout=60)
    assert done.returncode == 2
    assert b"not eddy's setup" in done.stderr and b"Traceback" not in done.stderr
    assert done.stdout == b""


def test_a_closed_stdin_before_the_setup_ends_quietly() -> None:
    done = subprocess.run(HOST, cwd=ROOT, input=b"", capture_output=True, timeout=60)
    assert done.returncode == 0 and b"Traceback" not in done.stderr
