"""Waiting in tests for what another thread or process makes true: poll the condition every
10 ms until it holds, and fail with what was awaited after ``timeout`` (never a bare sleep)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any


async def until(
    condition: Callable[[], Any], timeout: float = 10.0, what: str | Callable[[], str] = ""
) -> Any:
    """Poll an observable condition until it holds (fails the test after ``timeout``)."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            said = what() if callable(what) else what
            raise AssertionError(f"timed out waiting for {said or condition}")
        await asyncio.sleep(0.01)
