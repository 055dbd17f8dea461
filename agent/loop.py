"""One turn of the agent loop, as in LOOP-MODEL.md.

    a = model(h)                        -- one model call (streamed)
    no tool_use in a   -> success       (h becomes h·a)
    t == T             -> error_max_turns (calls not run, h unchanged)
    cost >= B          -> error_max_budget_usd (calls not run, h unchanged)
    else gate each call, run it or refuse it; b = user[results..., queued corrections]
    h = h·a·b, t += 1, repeat

Interruption (Esc) is an ``asyncio.Event`` the loop races every wait against; when it fires,
the loop repairs the history so that every tool_use has exactly one result and a note says the
user interrupted. The history is checked against the invariant before every model call.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from agent import events as ev
from agent.messages import (
    Block,
    InvariantViolation,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    check_invariant,
)
from agent.model import Model, ModelError, ModelRequest, ModelResponse
from agent.pricing import Usage, context_window, cost_usd
from agent.toolrun import ToolRunner

INTERRUPT_NOTE = "[Request interrupted by user]"

Emit = Callable[[ev.Event], None]


@dataclass
class Limits:
    """The only bounds an agent loop has: a turn limit T and a budget B (None = unlimited)."""

    max_turns: int | None = None
    max_budget_usd: float | None = None
    spent_before: float = 0.0
    """Spent before this turn, of the cap B was cut from (only for the stop message)."""
    budget_scope: str = ""
    """What the cap is on ("this session", "this run"), for the stop message."""


@dataclass
class RequestSpec:
    """The stable parts of every request: model, system blocks, tool params, max_tokens."""

    model: str
    system: list[dict[str, Any]] = field(default_factory=list)
    tools: list[dict[str, Any]] = field(default_factory=list)
    max_tokens: int = 32_000
    thinking: dict[str, Any] | None = None


@dataclass
class TurnOutcome:
    subtype: ev.TurnSubtype
    calls: int
    turns: int
    cost_usd: float
    usage: Usage
    result: str = ""
    error: str | None = None


class Interrupted(Exception):
    """Raised inside the loop when the user's interrupt wins a race."""


class _Sink:
    """Streams deltas out as events and keeps the blocks that completed."""

    def __init__(self, emit: Emit, turn_id: int) -> None:
        self._emit = emit
        self._turn_id = turn_id
        self.done: list[Block] = []

    def text(self, delta: str) -> None:
        self._emit(ev.TextDelta(self._turn_id, delta))

    def thinking(self, delta: str) -> None:
        self._emit(ev.ThinkingDelta(self._turn_id, delta))

    def block_done(self, block: Block) -> None:
        self.done.append(block)


def _clean(message: Message, keep_tools: bool) -> Message | None:
    """Drop empty text blocks (the API rejects them) and, unless ``keep_tools``, tool calls."""
    blocks = tuple(
        b
        for b in message.content
        if not (isinstance(b, TextBlock) and not b.text)
        and (keep_tools or not isinstance(b, ToolUseBlock))
    )
    if not any(not isinstance(b, ToolResultBlock) for b in blocks):
        return None
    if not keep_tools and all(not isinstance(b, TextBlock) for b in blocks):
        return None  # thinking alone is not a useful (or valid) final message
    return Message("assistant", blocks)


class Turn:
    """Runs one turn over a shared history (a list the session owns).

    Args:
        history: the conversation; ends with the user message that started this turn.
        model: the model.
        spec: the stable request parts.
        runner: executes tool calls (schema checks, gate, concurrency, cancellation).
        emit: the event sink.
        take_queue: returns and clears the queued corrections.
        interrupt: set by the session when the user presses Esc.
        limits: T and B for this turn.
        turn_id: names the turn in every event.
    """

    def __init__(
        self,
        *,
        history: list[Message],
        model: Model,
        spec: RequestSpec,
        runner: ToolRunner,
        emit: Emit,
        take_queue: Callable[[], list[str]],
        interrupt: asyncio.Event,
        limits: Limits | None = None,
        turn_id: int = 1,
        checked_upto: int = 0,
        before_call: Callable[[Turn], Awaitable[bool]] | None = None,
    ) -> None:
        self.history = history
        self.model = model
        self.spec = spec
        self.runner = runner
        self.emit = emit
        self.take_queue = take_queue
        self.interrupt = interrupt
        self.limits = limits or Limits()
        self.turn_id = turn_id
        self.calls = 0
        self.turns = 0
        self.cost = 0.0
        self.usage = Usage()
        self.context_tokens = 0
        self.checked_upto = checked_upto
        self.before_call = before_call
        """Awaited before each model call (automatic compaction); True if it rewrote history."""
        self._window = context_window(spec.model)
        self._sink: _Sink | None = None

    async def race(self, aw: Awaitable[Any]) -> Any:
        """Await ``aw`` unless the user interrupts first (then cancel it and raise)."""
        if self.interrupt.is_set():
            if asyncio.iscoroutine(aw):
                aw.close()
            raise Interrupted
        task = asyncio.ensure_future(aw)
        waiter = asyncio.ensure_future(self.interrupt.wait())
        try:
            done, _ = await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            task.cancel()
            waiter.cancel()
            raise
        if task in done:
            waiter.cancel()
            return task.result()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        raise Interrupted

    def _budget_stop(self, b: float) -> str:
        """The notice of a budget stop, in the figures of what the cap is on."""
        lim = self.limits
        if not lim.budget_scope:
            return f"Stopped: spent ${self.cost:.4f} of ${b:.4f} budget."
        spent, cap = lim.spent_before + self.cost, lim.spent_before + b
        return f"Stopped: {lim.budget_scope} has spent ${spent:.4f} of its ${cap:.4f} budget."

    def _outcome(
        self, subtype: ev.TurnSubtype, result: str = "", error: str | None = None
    ) -> TurnOutcome:
        return TurnOutcome(subtype, self.calls, self.turns, self.cost, self.usage, result, error)

    async def run(self) -> TurnOutcome:
        """Run the loop until the model stops, a limit is hit, a failure, or an interrupt."""
        try:
            return await self._loop()
        except Interrupted:
            self._close_interrupted()
            return self._outcome("interrupted")
        except asyncio.CancelledError:
            self._close_interrupted()
            raise

    async def _loop(self) -> TurnOutcome:
        while True:
            if self.before_call is not None and await self.race(self.before_call(self)):
                self.checked_upto = 0
            try:
                check_invariant(self.history, max(0, self.checked_upto - 1))
            except InvariantViolation as exc:
                msg = f"internal error, request not sent: {exc}"
                self.emit(ev.Error(self.turn_id, msg, "invariant"))
                return self._outcome("error_during_execution", error=msg)
            self.checked_upto = len(self.history)
            sink = _Sink(self.emit, self.turn_id)
            self._sink = sink
            self.calls += 1
            self.emit(ev.ModelCallStarted(self.turn_id, self.calls, self.context_tokens))
            request = ModelRequest(
                self.spec.model,
                self.history,
                self.spec.system,
                self.spec.tools,
                self.spec.max_tokens,
                self.spec.thinking,
            )
            try:
                response: ModelResponse = await self.race(self.model.respond(request, sink))
            except ModelError as exc:
                self.emit(ev.Error(self.turn_id, exc.user_message, exc.kind))
                return self._outcome("error_during_execution", error=exc.user_message)
            self._sink = None
            self._account(response)
            outcome = self._settle(response)
            if outcome is not None:
                return outcome
            a = response.message
            self.history.append(a)
            self.emit(ev.AssistantMessage(self.turn_id, a.to_param(), response.stop_reason))
            results = await self.runner.run_all(a.tool_uses, self.race)
            corrections = self.take_queue()
            b = Message("user", (*results, *(TextBlock(c) for c in corrections)))
            self.history.append(b)
            if corrections:
                self.emit(ev.CorrectionsDelivered(self.turn_id, tuple(corrections)))
            self.turns += 1

    def _account(self, response: ModelResponse) -> None:
        cost = response.cost_usd
        if cost is None:
            cost = cost_usd(self.spec.model, response.usage)
        self.cost += cost
        self.usage = self.usage + response.usage
        self.context_tokens = response.usage.prompt_tokens + response.usage.output_tokens
        self.emit(
            ev.UsageUpdated(
                self.turn_id,
                response.usage.to_dict(),
                cost,
                self.cost,
                self.context_tokens,
                self._window,
            )
        )

    def _settle(self, response: ModelResponse) -> TurnOutcome | None:
        """Decide whether this response ends the turn; append it when it does."""
        msg, stop = response.message, response.stop_reason
        if stop is None:
            text = "The response stream ended before the model finished; nothing was run."
            self.emit(ev.Error(self.turn_id, text + " Send a message to retry.", "stream_error"))
            return self._outcome("error_during_execution", error=text)
        if stop == "tool_use" and msg.tool_uses:
            t, b = self.limits.max_turns, self.limits.max_budget_usd
            if t is not None and self.turns >= t:
                self.emit(ev.Notice(self.turn_id, f"Stopped: reached the turn limit ({t})."))
                return self._outcome("error_max_turns")
            if b is not None and self.cost >= b:
                self.emit(ev.Notice(self.turn_id, self._budget_stop(b)))
                return self._outcome("error_max_budget_usd")
            return None
        if msg.tool_uses:
            why = {
                "max_tokens": "the response hit max_tokens",
                "refusal": "the model refused",
            }.get(stop, f"the response stopped with {stop}")
            self.emit(ev.Notice(self.turn_id, f"Tool calls not run: {why}."))
        elif stop == "max_tokens":
            self.emit(ev.Notice(self.turn_id, "The response was cut off at max_tokens."))
        elif stop == "refusal":
            self.emit(ev.Notice(self.turn_id, "The model declined to continue (refusal)."))
        final = _clean(msg, keep_tools=False)
        if final is not None:
            self.history.append(final)
            self.emit(ev.AssistantMessage(self.turn_id, final.to_param(), stop))
        return self._outcome("success", result=msg.text)

    def _close_interrupted(self) -> None:
        """Make the history valid after an interrupt (LOOP-MODEL.md "Esc")."""
        sink = self._sink
        if sink is not None and self.history and self.history[-1].role == "user":
            partial = _clean(Message("assistant", tuple(sink.done)), keep_tools=False)
            if partial is not None:
                self.history.append(partial)
                self.emit(ev.AssistantMessage(self.turn_id, partial.to_param(), None))
        self._sink = None
        last = self.history[-1] if self.history else None
        if last is not None and last.role == "assistant" and last.tool_uses:
            results = self.runner.interrupted_results(last.tool_uses)
            self.history.append(Message("user", (*results, TextBlock(INTERRUPT_NOTE))))
        elif last is not None and last.role == "user":
            self.history[-1] = last.with_blocks(TextBlock(INTERRUPT_NOTE))
        else:
            self.history.append(Message("user", (TextBlock(INTERRUPT_NOTE),)))
        self.emit(ev.Interrupted(self.turn_id))
