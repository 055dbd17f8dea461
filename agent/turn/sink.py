"""Where one model call's stream goes during a turn: deltas out as events, and what the user saw
kept for an interrupted answer (``partial``)."""

from __future__ import annotations

from collections.abc import Callable

from agent import events as ev
from agent.messages import Block, Message, TextBlock

Emit = Callable[[ev.Event], None]


class TurnSink:
    """Streams deltas out as events; keeps the blocks that completed and the text streaming."""

    def __init__(self, emit: Emit, turn_id: int) -> None:
        self._emit = emit
        self._turn_id = turn_id
        self.done: list[Block] = []
        self._streaming: list[str] = []
        """Text of the block being streamed, as it came: the user saw it, so Esc keeps it
        (joined only then: adding each delta to one string copied it again each time)."""

    def text(self, delta: str) -> None:
        self._streaming.append(delta)
        self._emit(ev.TextDelta(self._turn_id, delta))

    def thinking(self, delta: str) -> None:
        self._emit(ev.ThinkingDelta(self._turn_id, delta))

    def block_done(self, block: Block) -> None:
        self._streaming.clear()
        self.done.append(block)

    def retrying(self, notice: str) -> None:
        self._emit(ev.Notice(self._turn_id, notice))

    def partial(self) -> Message:
        """What the user saw of an unfinished response (its tool calls never run)."""
        text = "".join(self._streaming)
        tail = (TextBlock(text),) if text.strip() else ()
        return Message("assistant", (*self.done, *tail))
