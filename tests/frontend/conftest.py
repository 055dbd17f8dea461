"""Fixtures for tests that run the same thing in the TUI and in line mode."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.plain_fixtures import harness, pipe  # noqa: F401 (fixtures)
from tests.helpers.tui import isolate_dirs, project_dir


@pytest.fixture(autouse=True)
def eddy_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Keep data, config and prompt history in the test's tmp dir; no key, no colour flags."""
    return isolate_dirs(tmp_path, monkeypatch)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """The TUI tests' project directory (a fixed name), used by both UIs here."""
    return project_dir(tmp_path)
