"""Fixtures for TUI tests: every test keeps its data, config and history in tmp dirs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.tui import isolate_dirs, project_dir


@pytest.fixture(autouse=True)
def eddy_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Keep data, config and prompt history in the test's tmp dir; no key, no colour flags."""
    return isolate_dirs(tmp_path, monkeypatch)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A project directory with a fixed name (it shows in the banner of snapshots)."""
    return project_dir(tmp_path)
