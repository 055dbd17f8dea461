"""Shared fixtures for the whole test suite."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.fake_api import FakeAnthropic


@pytest.fixture
def fake_api() -> Iterator[FakeAnthropic]:
    """A started fake Messages API on 127.0.0.1 (script it with ``push`` or ``responder``)."""
    with FakeAnthropic() as server:
        yield server
