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
        self.streaming_text = ""
        """Text of the block being streamed: the user saw it, so Esc keeps it."""

    def text(self, delta: str) -> None:
        self.streaming_text += delta
        self._emit(ev.TextDelta(self._turn_id, delta))

    def thinking(self, delta: str) -> None:
        self._emit(ev.ThinkingDelta(self._turn_id, delta))

    def block_done(self, block: Block) -> None:
        self.streaming_text = ""
        self.done.append(block)

    def retrying(self, notice: str) -> None:
        self._emit(ev.Notice(self._turn_id, notice))

    def partial(self) -> Message:
        """What the user saw of an unfinished response (its tool calls never run)."""
        tail = (TextBlock(self.streaming_text),) if self.streaming_text.strip() else ()
        return Message("assistant", (*self.done, *tail))
