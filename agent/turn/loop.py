"""One turn of the agent loop, as in docs/loop.md ("One step of the loop").

    1. a = model(h)                      -- one model call (streamed)
    2. no tool_use in a  -> success      (h becomes h·a)
    3. t == T            -> error_max_turns (calls not run, h unchanged)
       cost >= B         -> error_max_budget_usd (calls not run, h unchanged)
    4. gate each call, run it or refuse it; b = user[results..., queued corrections]
       h = h·a·b, t += 1, repeat

The unusual exits are exceptions caught in one place, ``Turn.run``: a limit or a failed call
(``TurnStopped``), Esc (``TurnInterrupted``), cancellation, and a bug in the engine. Each
leaves the history valid: every tool_use gets exactly one result. Every assistant message
enters the history through ``normalise_assistant``, and the history is checked against the
invariant before every model call. The limits, the outcome and those exceptions are defined in
agent/turn/outcome.py, the interrupt race in agent/turn/race.py.
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
from collections.abc import Awaitable
from typing import Any

from agent import events as ev
from agent.messages import (
    InvariantViolation,
    Message,
    TextBlock,
    check_invariant,
    tool_use_index,
    unanswered_server_calls,
)
from agent.model.pricing import Usage, context_window, cost_usd
from agent.model.protocol import Model, ModelError, ModelRequest, ModelResponse
from agent.turn.normalise import normalise_assistant, without_server_calls
from agent.turn.outcome import (
    MAX_PAUSE_CONTINUATIONS,
    MAX_STOP_HOOK_BLOCKS,
    Limits,
    TurnInterrupted,
    TurnOutcome,
    TurnStopped,
    end_notice,
)
from agent.turn.race import race_interrupt
from agent.turn.runner import ToolRunner
from agent.turn.sink import TurnSink

INTERRUPT_NOTE = "[Request interrupted by user]"


CURRENT_TURN: contextvars.ContextVar[Turn | None] = contextvars.ContextVar(
    "eddy_current_turn", default=None
)
"""The turn whose loop is running in this task: a tool it runs (the Agent tool) finds its
parent turn here (tasks copy the context, so a nested turn shadows it only inside itself)."""


class TurnHost:
    """What a turn asks of whoever runs it (the session's prompt runner, a subagent). Each
    method does nothing until overridden."""

    def take_queue(self) -> list[str]:
        """The corrections queued since the last call, taken (they follow the results)."""
        return []

    def take_reports(self) -> list[str]:
        """Reports of background work that ended since the last call, taken (they follow the
        corrections; nobody typed them, so they are no ``CorrectionsDelivered``)."""
        return []

    async def before_call(self, turn: Turn) -> bool:
        """Before each model call (extensions, automatic compaction); True if it rewrote the
        history."""
        return False

    async def on_stop(self, history: list[Message], active: bool) -> str | None:
        """The model answered without tools (``active``: a text already sent it back in
        this turn); a text sends it back once more, counted against T and B."""
        return None


class Turn:
    """Runs one turn over a shared history (a list its host owns).

    Args:
        history: the conversation; ends with the user message that started this turn.
        model: the model.
        spec: the stable request parts (its ``messages`` and ``tools`` are ignored: the
            history is sent, with the runner's tool set's parameters).
        runner: executes tool calls (schema checks, gate, concurrency, cancellation); its
            ``tools`` are what each request offers, its ``emit`` where the turn's events go.
        interrupt: set when the user presses Esc.
        host: the corrections, and what runs before each call and after the last.
        limits: T and B for this turn.
        turn_id: names the turn in every event.
        checked_upto: messages before this index already passed the invariant check.
    """

    def __init__(
        self,
        history: list[Message],
        model: Model,
        spec: ModelRequest,
        runner: ToolRunner,
        interrupt: asyncio.Event,
        host: TurnHost | None = None,
        *,
        limits: Limits | None = None,
        turn_id: int = 1,
        checked_upto: int = 0,
    ) -> None:
        self.history = history
        self.model = model
        self.spec = spec
        self.runner = runner
        self.emit = runner.emit
        self.host = host or TurnHost()
        self.interrupt = interrupt
        self.limits = limits or Limits()
        self.turn_id = turn_id
        self.calls = 0
        self.turns = 0
        self.cost = 0.0
        self.usage = Usage()
        self.context_tokens = 0
        self.checked_upto = checked_upto
        self.stop_blocks = 0
        """How often Stop hooks sent the model back in this turn (``stop_hook_active``)."""
        self._window = context_window(spec.model)
        self._sink: TurnSink | None = None
        self._ids: dict[str, int] = {}
        self._ids_upto = 0
        self.parent: Turn | None = None
        """The turn whose Agent call runs this one (a subagent's turn; None for the root).
        Its cost also counts in every ancestor's, and its budget check is the root's."""

    def spent(self) -> float:
        """What counts against this turn's budget so far: its root's tree's spend, or (with
        ``Limits.live``) everything spent from the same cap since the root started."""
        root = self.root()
        live = root.limits.live
        return root.cost if live is None else live() - root.limits.spent_before

    def root(self) -> Turn:
        """The turn at the top of this turn's tree (itself, when it is no subagent's)."""
        turn = self
        while turn.parent is not None:
            turn = turn.parent
        return turn

    async def race(self, aw: Awaitable[Any]) -> Any:
        """Await ``aw`` unless the user interrupts first (then cancel it and raise).

        Raises:
            TurnInterrupted: the interrupt fired first.
        """
        return await race_interrupt(self.interrupt, aw)

    def _tool_ids(self) -> dict[str, int]:
        """The history's tool_use ids (``tool_use_index``), extended as the history grows so
        that a long session is not scanned again for every request."""
        if self._ids_upto > len(self.history):
            self._ids, self._ids_upto = {}, 0
        tool_use_index(self.history, self._ids_upto, self._ids)
        self._ids_upto = len(self.history)
        return self._ids

    def _outcome(self, subtype: ev.TurnSubtype, **fields: Any) -> TurnOutcome:
        return TurnOutcome(subtype, self.calls, self.turns, self.cost, self.usage, **fields)

    async def run(self) -> TurnOutcome:
        """Run the loop until the model stops, a limit is hit, a failure, or an interrupt.

        The one place where every unusual exit is caught; the history is valid after each.
        Cancellation (shutdown) is re-raised once the history is closed.
        """
        token = CURRENT_TURN.set(self)
        try:
            return await self._run_caught()
        finally:
            CURRENT_TURN.reset(token)

    async def _run_caught(self) -> TurnOutcome:
        try:
            return await self._loop()
        except TurnStopped as stop:
            if stop.kind is None:
                self.emit(ev.Notice(self.turn_id, stop.message))
                return self._outcome(stop.subtype)
            self.emit(ev.Error(self.turn_id, stop.message, stop.kind))
            return self._outcome(stop.subtype, error=stop.message)
        except TurnInterrupted:
            self.close_interrupted()
            return self._outcome("interrupted")
        except asyncio.CancelledError:
            self.close_interrupted()
            raise
        except Exception as exc:  # a bug in the engine: report it, keep the session usable
            self.close_interrupted()
            msg = f"internal error: {type(exc).__name__}: {exc}"
            self.emit(ev.Error(self.turn_id, msg, "internal"))
            return self._outcome("error_during_execution", error=msg)

    async def _loop(self) -> TurnOutcome:
        while True:
            # 1. a = model(h)
            response = await self._call_model()
            a = response.message
            # 2. no tool_use in a: stop, success; h becomes h·a
            if not (response.stop_reason == "tool_use" and a.tool_uses):
                outcome = self._final(response)
                if not await self._stop_hook_continues(outcome):
                    return outcome
                continue
            # 3. t == T: stop, error_max_turns; the calls are not run and h is unchanged
            t, b = self.limits.max_turns, self.root().limits.max_budget_usd
            if t is not None and self.turns >= t:
                raise TurnStopped("error_max_turns", f"Stopped: reached the turn limit ({t}).")
            #    the budget: total >= B and the response asks for tools: stop, without them
            #    (B is the whole tree's: a subagent checks its root's spend, children included,
            #    and background agents' spend from the same cap as it happens)
            if b is not None and self.spent() >= b:
                raise TurnStopped("error_max_budget_usd", self._budget_stop(b))
            # 4. gate and run each call; b = user[results, corrections]; h = h·a·b; t += 1
            a = self._append_assistant(a, keep_tools=True, stop=response.stop_reason)
            results = await self.runner.run_all(a.tool_uses, self.race)
            corrections = self.host.take_queue()
            notes = (*corrections, *self.host.take_reports())
            self.history.append(Message("user", (*results, *(TextBlock(c) for c in notes))))
            if corrections:
                self.emit(ev.CorrectionsDelivered(self.turn_id, tuple(corrections)))
            self.turns += 1
            if self.runner.halt_reason is not None:  # a hook's continue: false; h is valid
                raise TurnStopped("success", f"Stopped: {self.runner.halt_reason}")

    async def _stop_hook_continues(self, outcome: TurnOutcome) -> bool:
        """Stop hooks after an ordinary answer: True if one blocked and the loop goes on,
        the reason (and any queued corrections) appended as the next user message."""
        if outcome.stop_reason not in ("end_turn", "stop_sequence"):
            return False
        if self.stop_blocks >= MAX_STOP_HOOK_BLOCKS:
            text = f"Stop hooks blocked {MAX_STOP_HOOK_BLOCKS} times in a row; the turn ends."
            self.emit(ev.Notice(self.turn_id, text))
            return False
        reason = await self.race(self.host.on_stop(self.history, self.stop_blocks > 0))
        if reason is None or not reason.strip():
            return False
        # one more model call, counted like a tool turn against T and B
        t, b = self.limits.max_turns, self.root().limits.max_budget_usd
        if t is not None and self.turns >= t:
            raise TurnStopped("error_max_turns", f"Stopped: reached the turn limit ({t}).")
        if b is not None and self.spent() >= b:
            raise TurnStopped("error_max_budget_usd", self._budget_stop(b))
        self.stop_blocks += 1
        self.turns += 1
        corrections = self.host.take_queue()
        notes = (*corrections, *self.host.take_reports())
        blocks = (TextBlock(f"Stop hook feedback:\n{reason}"), *(TextBlock(c) for c in notes))
        last = self.history[-1] if self.history else None
        if last is not None and last.role == "user":  # an empty answer was not kept
            self.history[-1] = last.with_blocks(*blocks)
        else:
            self.history.append(Message("user", blocks))
        if corrections:
            self.emit(ev.CorrectionsDelivered(self.turn_id, tuple(corrections)))
        return True

    async def _call_model(self) -> ModelResponse:
        """One model call on a checked history, continued while the API pauses the turn."""
        response = await self._request()
        for _ in range(MAX_PAUSE_CONTINUATIONS):
            if response.stop_reason != "pause_turn":
                break
            # The API's documented continuation: send the paused response back as the last
            # message; the next response carries on from it (and holds the server results).
            paused = normalise_assistant(response.message, self._tool_ids())
            if paused is None or paused.tool_uses or not unanswered_server_calls(paused):
                break  # nothing to continue, or client calls the API cannot continue past
            self.history.append(paused)
            try:
                more = await self._request(continuing=True)
            finally:
                self.history.pop()
                self.checked_upto = min(self.checked_upto, len(self.history))
            merged = Message("assistant", (*paused.content, *more.message.content))
            response = dataclasses.replace(more, message=merged)
        return response

    async def _request(self, *, continuing: bool = False) -> ModelResponse:
        """Check the history, send it, account the response.

        ``continuing`` (a paused response is the last message): no compaction before it,
        which could not keep that message last.
        """
        if not continuing and await self.race(self.host.before_call(self)):
            self.checked_upto = self._ids_upto = 0  # rewritten: check and index it all again
            self._ids = {}
        try:
            start = max(0, self.checked_upto - 1)
            check_invariant(self.history, start, id_index=self._tool_ids())
        except InvariantViolation as exc:
            msg = f"internal error, request not sent: {exc}"
            raise TurnStopped("error_during_execution", msg, "invariant") from exc
        self.checked_upto = len(self.history)
        self._sink = TurnSink(self.emit, self.turn_id)
        self.calls += 1
        self.emit(ev.ModelCallStarted(self.turn_id, self.calls, self.context_tokens))
        request = dataclasses.replace(
            self.spec, messages=self.history, tools=self.runner.tools.params()
        )
        try:
            response: ModelResponse = await self.race(self.model.respond(request, self._sink))
        except ModelError as exc:
            raise TurnStopped("error_during_execution", exc.user_message, exc.kind) from exc
        self._sink = None
        self._account(response)
        if response.stop_reason is None:
            text = "The response stream ended before the model finished; nothing was run."
            raise TurnStopped(
                "error_during_execution", text + " Send a message to retry.", "stream_error"
            )
        return response

    def _append_assistant(
        self, a: Message, *, keep_tools: bool, stop: str | None = None, quiet: bool = False
    ) -> Message:
        """Append ``a`` through the normaliser (and say so); return what was appended."""
        kept = normalise_assistant(a, self._tool_ids(), keep_tools=keep_tools)
        if kept is None:
            return Message("assistant", ())
        unanswered = unanswered_server_calls(kept)
        if unanswered:  # a pause we stopped continuing: no server call may stay unanswered
            kept = without_server_calls(kept, unanswered)
            if not kept.content:
                return kept
        self.history.append(kept)
        if not quiet:
            self.emit(ev.AssistantMessage(self.turn_id, kept.to_param(), stop))
        return kept

    def _final(self, response: ModelResponse) -> TurnOutcome:
        """Step 2: the response ends the turn; say why when it is not an ordinary end."""
        msg, stop = response.message, response.stop_reason
        dropped = len(msg.tool_uses)
        notice = end_notice(stop, dropped)
        if notice is not None:
            self.emit(ev.Notice(self.turn_id, notice))
        self._append_assistant(msg, keep_tools=False, stop=stop)
        return self._outcome(
            "success", result=msg.text, stop_reason=stop, dropped_tool_calls=dropped
        )

    def _account(self, response: ModelResponse) -> None:
        cost = response.cost_usd
        if cost is None:
            cost = cost_usd(self.spec.model, response.usage)
        self.cost += cost
        ancestor = self.parent
        while ancestor is not None:  # the tree's spend counts as it happens (docs/loop.md)
            ancestor.cost += cost
            ancestor = ancestor.parent
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

    def _budget_stop(self, b: float) -> str:
        """The notice of a budget stop, in the figures of what the cap is on."""
        lim = self.limits
        if self.parent is not None:
            spent = self.spent()
            return f"Stopped: the agents of this turn have spent ${spent:.4f} of ${b:.4f} budget."
        if not lim.budget_scope:
            return f"Stopped: spent ${self.spent():.4f} of ${b:.4f} budget."
        spent, cap = lim.spent_before + self.spent(), lim.spent_before + b
        return f"Stopped: {lim.budget_scope} has spent ${spent:.4f} of its ${cap:.4f} budget."

    def close_interrupted(self) -> None:
        """Make the history valid after an interrupt (docs/loop.md "Esc").

        A response cut short keeps what the user saw of it (its complete text, never a tool
        call); every tool call in the history gets its result; a note says the user
        interrupted. Safe to call more than once per interrupt only via ``run``.
        """
        sink, self._sink = self._sink, None
        partial: Message | None = None
        if sink is not None and self.history and self.history[-1].role == "user":
            partial = self._append_assistant(sink.partial(), keep_tools=False, quiet=True)
        last = self.history[-1] if self.history else None
        if last is not None and last.role == "assistant" and last.tool_uses:
            results = self.runner.interrupted_results(last.tool_uses)
            self.history.append(Message("user", (*results, TextBlock(INTERRUPT_NOTE))))
        elif last is not None and last.role == "user":
            self.history[-1] = last.with_blocks(TextBlock(INTERRUPT_NOTE))
        else:
            self.history.append(Message("user", (TextBlock(INTERRUPT_NOTE),)))
        self.emit(ev.Interrupted(self.turn_id))
        if partial is not None and partial.content:
            # after Interrupted: front ends end the streamed text as interrupted, not final
            self.emit(ev.AssistantMessage(self.turn_id, partial.to_param(), None))
