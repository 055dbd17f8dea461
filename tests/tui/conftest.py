"""Fixtures for TUI tests: every test keeps its data, config and history in tmp dirs."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def eddy_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Keep data, config and prompt history in the test's tmp dir; no key, no colour flags."""
    monkeypatch.setenv("EDDY_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("EDDY_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    return tmp_path


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A project directory with a fixed name (it shows in the banner of snapshots)."""
    root = tmp_path / "project"
    root.mkdir()
    return root
