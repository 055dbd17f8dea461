"""The subagent tests never read the real ``~/.claude/agents``."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _no_real_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("home")))
