"""Fixtures of the end-to-end tests."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from tests.helpers.tmux import Pane


@pytest.fixture
def pane() -> Iterator[Pane]:
    p = Pane(f"eddy-test-{uuid.uuid4().hex[:8]}")
    yield p
    p.kill()
