"""Shared fixtures for the whole test suite."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.fake_api import FakeAnthropic

E2E_DIR = Path(__file__).parent / "e2e"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test in tests/e2e is an ``e2e`` test (``-m "not slow and not e2e"`` skips them),
    new files included, without a marker line in each. A ``fuzz`` test (a long fuzz run) runs
    only when ``-m`` names it."""
    fuzz = "fuzz" in (config.getoption("markexpr", "") or "")
    for item in items:
        if item.path.is_relative_to(E2E_DIR):
            item.add_marker(pytest.mark.e2e)
        if not fuzz and item.get_closest_marker("fuzz") is not None:
            item.add_marker(pytest.mark.skip(reason="a long fuzz run: select it with -m fuzz"))


@pytest.fixture
def fake_api() -> Iterator[FakeAnthropic]:
    """A started fake Messages API on 127.0.0.1 (script it with ``push`` or ``responder``)."""
    with FakeAnthropic() as server:
        yield server


@pytest.fixture(autouse=True)
def _isolated_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """No test reads or writes the real user data or config directories; the folders tests
    work in (all below pytest's base temporary directory) are trusted (agent/settings/trust.py)."""
    home = tmp_path_factory.mktemp("eddy-home")
    monkeypatch.setenv("EDDY_DATA_DIR", str(home / "data"))
    monkeypatch.setenv("EDDY_CONFIG_DIR", str(home / "config"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / "claude"))  # Claude Code's ~/.claude
    monkeypatch.setenv("EDDY_MANAGED_SETTINGS", str(home / "managed-settings.json"))
    monkeypatch.setenv("EDDY_TRUSTED_FOLDERS", str(tmp_path_factory.getbasetemp()))
