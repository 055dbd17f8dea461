"""The checkpoint store as a session extension: after every executed tool call the store
settles what the call changed (a shell's scan, a file's saved copy), and a save that failed
reaches the user."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from agent.extension import Extension, ToolCall

if TYPE_CHECKING:
    from agent.checkpoints.engine import CheckpointStore


class CheckpointSettler(Extension):
    """Settles ``store`` after each call.

    Args:
        store: the session's checkpoint store.
        report: shows a failed save to the user, once until saves work again (called with
            the current turn's id).
        turn_id: the current turn's id.
    """

    name = "checkpoints"

    def __init__(
        self,
        store: CheckpointStore,
        report: Callable[[int], None],
        turn_id: Callable[[], int],
    ) -> None:
        self.store = store
        self._report = report
        self._turn_id = turn_id

    def tool_ended(self, call: ToolCall) -> None:
        self.store.settle()
        self._report(self._turn_id())
