"""The line-mode fixtures that tests/plain and tests/frontend share (each conftest imports them
and defines its own ``workspace``)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.input import create_pipe_input

from tests.fakes.fake_api import FakeAnthropic
from tests.helpers.plain import Harness, harnesses


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
