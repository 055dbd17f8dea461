"""The state a session keeps about its conversation: the history, its size, the queue.

Narrow state objects below ``Session`` (agent/session/core.py): the session decides what
happens, these keep their fields consistent. A running turn appends to ``Conversation.history``
(the same list); every other change goes through a method here, so the invariant-check mark
and the context estimate are never forgotten.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from agent import events as ev
from agent.messages import Block, Message
from agent.session.context import estimate_context

if TYPE_CHECKING:
    from agent.model.protocol import ModelRequest
    from agent.store.transcript import Transcript
    from agent.turn.toolset import ToolSet

Write = Callable[[Callable[["Transcript"], Any]], None]


class Conversation:
    """The history and what is known about the context it makes.

    Args:
        spec: the session's request spec (its system counts in the estimate).
        tools: the session's tools (their parameters count in the estimate).

    Attributes:
        history: the messages (shared with the running turn: rewritten in place only).
        context_tokens: the context the next call starts from: the last call's prompt and
            response, or an estimate after a compaction, a rewind or a resume without a call.
        checked_upto: how much of ``history`` the invariant check has seen already.
    """

    def __init__(self, spec: ModelRequest, tools: ToolSet) -> None:
        self.history: list[Message] = []
        self.context_tokens = 0
        self.checked_upto = 0
        self._spec = spec
        self._tools = tools

    def estimate(self) -> int:
        """Estimate the context of the next request (when no call has measured it)."""
        return estimate_context(self.history, self._spec.system, self._tools.params())

    def load(self, history: list[Message], context_tokens: int | None) -> None:
        """Continue a saved conversation (its recorded context, or an estimate)."""
        self.history = history
        self.checked_upto = 0
        self.context_tokens = context_tokens if context_tokens is not None else self.estimate()

    def add_user(self, blocks: Sequence[Block]) -> None:
        """Add user text; after an interrupt or a ``!command`` it joins the trailing user
        message (P1: the history alternates and ends with the user before a call)."""
        if self.history and self.history[-1].role == "user":
            self.history[-1] = self.history[-1].with_blocks(*blocks)
        else:
            self.history.append(Message("user", tuple(blocks)))

    def rewrite(self, messages: list[Message]) -> None:
        """Replace the history (compaction, rewind): in place, because a running turn shares
        the list; all of it is checked again, and the context is estimated anew (the last
        call saw messages that are gone)."""
        self.history[:] = messages
        self.checked_upto = 0
        self.context_tokens = self.estimate()


class CorrectionQueue:
    """What the user typed while a turn ran, not yet delivered to the model.

    Args:
        write: writes to the session's transcript (failures are the session's to report).
        emit: the session's event sink (every change is a ``QueueChanged``).
    """

    def __init__(self, write: Write, emit: Callable[[ev.Event], None]) -> None:
        self.items: list[str] = []
        self._write = write
        self._emit = emit

    def __bool__(self) -> bool:
        return bool(self.items)

    def add(self, text: str) -> None:
        """Queue ``text`` (blank text is ignored)."""
        if text.strip():
            self.items.append(text)
            self._write(lambda t: t.queued(text))
            self._emit(ev.QueueChanged(tuple(self.items)))

    def take_back(self, index: int) -> str | None:
        """Remove item ``index`` (-1: the newest) to edit it; None if there is none."""
        if not self.items:
            return None
        index %= len(self.items)
        text = self.items.pop(index)
        self._write(lambda t: t.unqueued(index, text))
        self._emit(ev.QueueChanged(tuple(self.items)))
        return text

    def take_all(self) -> list[str]:
        """Everything queued, in order; the queue is empty afterwards."""
        taken, self.items = self.items, []
        if taken:
            self._emit(ev.QueueChanged(()))
        return taken
