"""Fixtures of the line-mode tests: a workspace, prompt-toolkit's pipe input, a Harness maker."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.plain_fixtures import harness, pipe  # noqa: F401 (fixtures)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws
