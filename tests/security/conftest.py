"""Red-team fixtures: canaries outside the workspace, a fake HOME, the sandbox off, a canary
server (helpers: tests/helpers/sandbox.py)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.sandbox.detect import BWRAP_ENV
from tests.helpers.sandbox import CanaryServer


@pytest.fixture
def outside() -> Iterator[Path]:
    """A directory outside the workspace AND outside /tmp (the sandbox gives commands a
    private /tmp, so a canary there would prove nothing about the read-only filesystem)."""
    base = "/var/tmp" if os.access("/var/tmp", os.W_OK) else None
    path = Path(tempfile.mkdtemp(prefix="eddy-canary-", dir=base))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def fake_home(outside: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """HOME with secrets in it: ``~/.ssh/id_x``, ``~/.aws/credentials``, ``~/.netrc``."""
    home = outside / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_x").write_text("SSH-CANARY\n")
    (home / ".aws").mkdir()
    (home / ".aws" / "credentials").write_text("AWS-CANARY\n")
    (home / ".netrc").write_text("NETRC-CANARY\n")
    (home / ".claude.json").write_text("CLAUDE-CANARY\n")
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.fixture
def no_sandbox(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """eddy as on a machine without bubblewrap: the detector's binary does not exist."""
    monkeypatch.setenv(BWRAP_ENV, str(tmp_path / "no-such-bwrap"))


@pytest.fixture
def canary_server() -> Iterator[CanaryServer]:
    server = CanaryServer()
    try:
        yield server
    finally:
        server.close()
