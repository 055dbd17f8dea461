"""Helpers for engine tests: one Turn of the real loop over scripted models and test tools."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from agent import events as ev
from agent.messages import Message, user
from agent.model.protocol import Model, ModelRequest
from agent.turn.loop import Turn, TurnHost
from agent.turn.outcome import Limits, TurnOutcome
from agent.turn.runner import Gate, ToolRunner, allow_all_gate
from tools.base import Tool, ToolContext


class Recorder:
    """Collects events; ``of(cls)`` filters them."""

    def __init__(self) -> None:
        self.events: list[ev.Event] = []

    def __call__(self, event: ev.Event) -> None:
        self.events.append(event)

    def of(self, cls: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, cls)]


class QueueHost(TurnHost):
    """A turn's host that hands over the corrections in ``queue`` (a test appends to it)."""

    def __init__(self, queue: list[str]) -> None:
        self.queue = queue

    def take_queue(self) -> list[str]:
        taken = list(self.queue)
        self.queue.clear()
        return taken


async def run_turn(
    model: Model,
    tools: list[Tool],
    *,
    workspace: Path,
    prompt: str = "go",
    gate: Gate | None = None,
    limits: Limits | None = None,
    queue: list[str] | None = None,
    interrupt: asyncio.Event | None = None,
    history: list[Message] | None = None,
) -> tuple[TurnOutcome, list[Message], Recorder]:
    """Run one turn of the real loop; returns its outcome, the history and the events."""
    rec = Recorder()
    ctx = ToolContext(workspace)
    runner = ToolRunner(tools, ctx, gate or allow_all_gate(), rec)
    h = history if history is not None else [user(prompt)]
    q = queue if queue is not None else []
    turn = Turn(
        h,
        model,
        ModelRequest("claude-sonnet-5-5"),
        runner,
        interrupt or asyncio.Event(),
        QueueHost(q),
        limits=limits,
    )
    outcome = await turn.run()
    return outcome, h, rec
