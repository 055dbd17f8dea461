"""Fixtures for tests that run the same thing in the TUI and in line mode."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.input import create_pipe_input

from tests.fakes.fake_api import FakeAnthropic
from tests.helpers.plain import Harness, harnesses
from tests.helpers.tui import isolate_dirs, project_dir


@pytest.fixture(autouse=True)
def eddy_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Keep data, config and prompt history in the test's tmp dir; no key, no colour flags."""
    return isolate_dirs(tmp_path, monkeypatch)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """The TUI tests' project directory (a fixed name), used by both UIs here."""
    return project_dir(tmp_path)


@pytest.fixture
def pipe() -> Iterator[Any]:
    with create_pipe_input() as inp:
        yield inp


@pytest.fixture
async def harness(
    fake_api: FakeAnthropic, workspace: Path, pipe: Any
) -> AsyncIterator[Callable[..., Harness]]:
    """``harness(*flags)`` makes a line-mode app over the fake API; all are stopped after."""
    async with harnesses(fake_api, workspace, pipe) as make:
        yield make
