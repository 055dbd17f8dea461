"""Recording engine events and waiting for one, without sleeping."""

from __future__ import annotations

import asyncio
from typing import Any

from agent import events as ev


class Events:
    """Records engine events (the app's event hook) and lets a test wait for one."""

    def __init__(self) -> None:
        self.all: list[ev.Event] = []
        self._changed = asyncio.Event()

    def __call__(self, event: ev.Event) -> None:
        self.all.append(event)
        self._changed.set()

    def of(self, cls: type) -> list[Any]:
        return [e for e in self.all if isinstance(e, cls)]

    async def wait_for(self, cls: type, n: int = 1, timeout: float = 10) -> Any:
        """The ``n``-th event of type ``cls``, once it has been emitted."""

        async def wait() -> Any:
            while len(self.of(cls)) < n:
                self._changed.clear()
                await self._changed.wait()
            return self.of(cls)[n - 1]

        return await asyncio.wait_for(wait(), timeout=timeout)

    async def wait_until(self, predicate: Any, timeout: float = 10) -> None:
        """Wait until ``predicate()`` is true, re-checking after each event."""

        async def wait() -> None:
            while not predicate():
                self._changed.clear()
                await self._changed.wait()

        await asyncio.wait_for(wait(), timeout=timeout)
