"""Await something unless the user interrupts first: the race every wait of a turn runs in
(a model call, a tool call, a hook), so that Esc can stop any of them (docs/loop.md "Esc")."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any

from agent.turn.outcome import TurnInterrupted


def _retrieve(task: asyncio.Future[Any]) -> None:
    """Mark a cancelled task's outcome as seen."""
    if not task.cancelled():
        task.exception()


def never_start(aw: Awaitable[Any]) -> None:
    """Drop ``aw`` because Esc came before it was awaited: a coroutine is closed (it never
    started); a future already scheduled (a gather of calls) is cancelled before its work
    runs, and its end marked as seen."""
    if asyncio.iscoroutine(aw):
        aw.close()
    elif isinstance(aw, asyncio.Future):
        aw.cancel()
        aw.add_done_callback(_retrieve)


async def race_interrupt(interrupt: asyncio.Event, aw: Awaitable[Any]) -> Any:
    """Await ``aw`` unless ``interrupt`` is set first (then cancel ``aw`` and raise).

    Raises:
        TurnInterrupted: the interrupt fired first (or was already set: ``aw`` never runs).
    """
    if interrupt.is_set():
        never_start(aw)
        raise TurnInterrupted
    task = asyncio.ensure_future(aw)
    waiter = asyncio.ensure_future(interrupt.wait())
    try:
        done, _ = await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        task.cancel()
        waiter.cancel()
        task.add_done_callback(_retrieve)  # no "exception was never retrieved" on shutdown
        raise
    if task in done:
        waiter.cancel()
        return task.result()
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    raise TurnInterrupted
