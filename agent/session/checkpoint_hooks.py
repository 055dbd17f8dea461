"""The tools' checkpoint hooks (``tools.base.ChangeHooks``) for one session.

The session builds its tool context once, with this object as its ``checkpoints``; a store
attached later (``Session.attach_checkpoints``) is where the hooks record from then on.
Before a foreground shell command, what the background shells changed since the store's
last scan is recorded first, so a rewind can tell the two apart.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent.checkpoints.engine import CheckpointStore


class CheckpointHooks:
    """Records changes in the session's checkpoint store; nothing until one is attached.

    Args:
        catch_up: records what the background shells changed since the last scan
            (``ShellRegistry.catch_up``).
    """

    def __init__(self, catch_up: Callable[[], Awaitable[None]]) -> None:
        self.store: CheckpointStore | None = None
        """The store the hooks record in (set by ``Session.attach_checkpoints``)."""
        self._catch_up = catch_up

    async def before_change(self, paths: list[Path]) -> None:
        """Before Write, Edit, MultiEdit, NotebookEdit change ``paths``."""
        if self.store is not None:
            await self.store.before_change(paths)

    async def before_shell(self) -> None:
        """Before a shell command runs: the background shells' changes first."""
        if self.store is not None:
            await self._catch_up()
            await self.store.before_shell()

    async def after_shell(self) -> None:
        """After a shell command ends, however it ends."""
        if self.store is not None:
            await self.store.after_shell()
