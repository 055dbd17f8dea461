"""A session's prompts: a prompt (or the queued corrections) becomes a user message and one run
of the turn loop (agent/turn/loop.py), with the session's extensions and compaction around each
model call, and ends with one ``TurnFinished``.

``PromptRunner`` gets the session's parts it needs (the conversation, the queue, the spend, the
model and its tools, the extensions) and the stop signal Esc sets; the session spawns
``PromptRunner.run`` for each prompt.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from agent import events as ev
from agent.extension import Extensions, PromptAddition, StopRequest
from agent.messages import Message
from agent.model.pricing import Usage
from agent.model.protocol import Model, ModelRequest
from agent.session.budget import Spend
from agent.session.config import SessionConfig
from agent.session.conversation import Conversation, CorrectionQueue
from agent.turn.loop import Turn, TurnHost
from agent.turn.outcome import TurnInterrupted, TurnOutcome
from agent.turn.race import race_interrupt
from agent.turn.runner import ToolRunner

if TYPE_CHECKING:
    from agent.session.compaction import Compactor
    from agent.session.reports import BackgroundReports
    from agent.session.shells import ShellRegistry

Emit = Callable[[ev.Event], None]


class StopSignal:
    """Esc for the work the session runs: ``ops.Interrupt`` sets it; each new piece of work
    (a prompt, a ``!command``, the queue sent after an Esc) starts with a fresh one."""

    def __init__(self) -> None:
        self.event = asyncio.Event()

    def set(self) -> None:
        """Stop the running work."""
        self.event.set()

    def renew(self) -> asyncio.Event:
        """A fresh, unset signal for the next piece of work."""
        self.event = asyncio.Event()
        return self.event


class PromptRunner(TurnHost):
    """Runs a session's prompts, one turn each (and the queue after it); the host of each
    turn (its corrections, the extensions and compaction before a call, Stop after it).

    Args:
        config: the session's settings (limits, headless).
        conversation: the history.
        corrections: the queue of corrections.
        spend: what the session spent (and the turns still spending).
        model: the model.
        spec: the stable request parts.
        runner: the tool runner (its tool set is what each request offers).
        extensions: the session's extensions.
        compactor: compacts before a call that would nearly fill the window.
        shells: the background shells (what they changed is recorded before a prompt).
        reports: the reports of background work the model has not read: they follow the
            next prompt, or the running turn's next results, or are a turn's prompt.
        stop: the stop signal Esc sets.
        emit: the session's event sink.
        add_prompt: adds a prompt to the history (and the transcript, and the rewind list):
            ``(text, delivered corrections, added blocks)``.
        add_reports: adds the notifications of a turn that reports start to the history
            (and the transcript): no rewind point, nobody's words.
        report_checkpoint_error: shows a failed checkpoint save, given the turn's id.
    """

    def __init__(
        self,
        *,
        config: SessionConfig,
        conversation: Conversation,
        corrections: CorrectionQueue,
        spend: Spend,
        model: Model,
        spec: ModelRequest,
        runner: ToolRunner,
        extensions: Extensions,
        compactor: Compactor,
        shells: ShellRegistry,
        reports: BackgroundReports,
        stop: StopSignal,
        emit: Emit,
        add_prompt: Callable[[str, tuple[str, ...], tuple[str, ...]], None],
        add_reports: Callable[[tuple[str, ...]], None],
        report_checkpoint_error: Callable[[int], None],
    ) -> None:
        self.config = config
        self.conversation = conversation
        self.corrections = corrections
        self.spend = spend
        self.model = model
        self.spec = spec
        self.runner = runner
        self.extensions = extensions
        self.compactor = compactor
        self.shells = shells
        self.reports = reports
        self.stop = stop
        self.emit = emit
        self.add_prompt = add_prompt
        self.add_reports = add_reports
        self.report_checkpoint_error = report_checkpoint_error
        self._turn_ids = itertools.count(1)
        self.last_subtype: str | None = None
        """How the last turn ended (a report starts no turn after a limit, for one)."""
        self.last_origin: str = "user"
        """Who started the last turn: ``user`` or ``background`` (``TurnStarted.origin``)."""

    async def run(self, text: str, shown: str = "", *, by_reports: bool = False) -> None:
        """Run ``text`` as a prompt; then, while one is queued and nothing stops it, the
        queue as the next prompt.

        Args:
            text: the prompt (not used when ``by_reports``).
            shown: what the user typed, when it is not ``text`` (a custom command's
                ``/review calc.py``): ``TurnStarted.shown``.
            by_reports: the reports of background work start this turn by themselves, eddy
                being idle (agent/session/reports.py): their notifications, taken now (with
                those that came while the checkpoint scan ran), are its prompt, which is no
                rewind point (what the turn changes belongs to the user's last prompt) and no
                one's words (no UserPromptSubmit, no @-mentions).
        """
        delivered: tuple[str, ...] = ()
        while True:
            await self.shells.catch_up()  # what background shells changed: the last prompt's
            if by_reports:
                reports = self.reports.take()
                if not reports:
                    return
                turn_id = next(self._turn_ids)
                self.add_reports(tuple(r.text for r in reports))
                summaries = "\n".join(r.summary for r in reports)
                self.emit(ev.TurnStarted(turn_id, summaries, origin="background"))
                self.last_origin = "background"
                by_reports = False
            else:
                turn_id = next(self._turn_ids)
                # the extensions' word on the prompt (hooks, MCP resources)
                try:
                    added = await race_interrupt(self.stop.event, self.extensions.on_prompt(text))
                except TurnInterrupted:
                    added = PromptAddition("Interrupted before the prompt was sent.")
                if added.blocked is not None:
                    self._blocked(turn_id, text, added.blocked)
                    return
                # the reports of background work that waited for a prompt follow it
                held = tuple(r.text for r in self.reports.take())
                self.add_prompt(text, delivered, (*added.blocks, *held))
                self.emit(ev.TurnStarted(turn_id, text, shown))
                shown = ""  # the queue sent next is shown as itself
                self.last_origin = "user"
            self.report_checkpoint_error(turn_id)  # the checkpoint begun with the prompt
            outcome = await self._turn(turn_id)
            # Interrupt with a queue sends it at once; a finished turn makes it the next
            # prompt, unless the budget is spent: nobody asked for that call (a correction
            # that came too late), so it waits for the user
            queue = self.corrections.items
            if outcome.subtype == "success" and queue and self.budget_spent():
                text = "The budget is spent: what is queued waits for your next prompt (/budget)."
                self.emit(ev.Notice(turn_id, text))
            elif outcome.subtype in ("success", "interrupted") and queue:
                delivered = tuple(self.corrections.take_all())
                text = "\n\n".join(delivered)
                self.stop.renew()
                continue
            return

    async def _turn(self, turn_id: int) -> TurnOutcome:
        """One run of the loop over the history; its ``TurnFinished`` is emitted."""
        config = self.config
        started = time.monotonic()
        self.runner.turn_id = turn_id
        turn = Turn(
            self.conversation.history,
            self.model,
            self.spec,
            self.runner,
            self.stop.event,
            self,
            limits=self.spend.turn_limits(config.limits, config.headless),
            turn_id=turn_id,
            checked_upto=self.conversation.checked_upto,
        )
        self.spend.running.append(turn)  # until _finish counts it
        try:
            outcome = await turn.run()  # catches every other exit, bugs included
        except asyncio.CancelledError:
            self._finish(turn, TurnOutcome("interrupted", 0, 0, 0.0, Usage()), started)
            raise
        self.conversation.checked_upto = turn.checked_upto
        self._finish(turn, outcome, started)
        return outcome

    def budget_spent(self) -> bool:
        """Whether the session's cap B is reached (the running trees' spend included)."""
        cap = self.config.limits.max_budget_usd
        return cap is not None and self.spend.live(self.config.headless) >= cap

    def _blocked(self, turn_id: int, text: str, reason: str) -> None:
        """An extension stopped the prompt: nothing was sent, the history is unchanged, and
        the front ends put the prompt back in the input. The turn still starts and finishes."""
        self.emit(ev.TurnStarted(turn_id, text))
        self.emit(ev.PromptBlocked(text, reason, turn_id))
        error = f"The prompt was not sent: {reason}"
        total = self.spend.total_cost
        self.emit(
            ev.TurnFinished(turn_id, "error_during_execution", 0, 0, 0.0, total, 0, {}, "", error)
        )

    def take_queue(self) -> list[str]:
        """The corrections queued while the calls ran (they follow the results)."""
        return self.corrections.take_all()

    def take_reports(self) -> list[str]:
        """The reports of background work that ended while the calls ran (they follow the
        results and the corrections)."""
        return [r.text for r in self.reports.take()]

    def held_reason(self) -> str | None:
        """Why a report may not start a turn by itself now, or None: the last turn stopped
        at a limit (the user set it: nothing runs past it unasked), the budget is spent, or
        the user stopped a turn that reports had started (Esc: they are at the keyboard)."""
        if self.last_subtype == "error_max_turns":
            return "The last turn stopped at its turn limit (/turns)"
        if self.last_subtype == "error_max_budget_usd" or self.budget_spent():
            return "The budget is spent (/budget)"
        if self.last_subtype == "interrupted" and self.last_origin == "background":
            return "You stopped the last turn that background work started"
        return None

    async def before_call(self, turn: Turn) -> bool:
        """Before each model call: the extensions (the tool set may change here), then
        compaction."""
        await self.extensions.before_model_call()
        return await self.compactor.before_call(turn)

    async def on_stop(self, history: list[Message], active: bool) -> str | None:
        """The model answered without tools: an extension may send it back (Stop hooks)."""
        return await self.extensions.on_stop(StopRequest(history, active))

    def _finish(self, turn: Turn, outcome: TurnOutcome, started: float) -> None:
        self.spend.add(turn)
        self.last_subtype = outcome.subtype
        self.emit(
            ev.TurnFinished(
                turn.turn_id,
                outcome.subtype,
                turn.turns,
                turn.calls,
                turn.cost,
                self.spend.total_cost,
                int((time.monotonic() - started) * 1000),
                turn.usage.to_dict(),
                outcome.result,
                outcome.error,
                outcome.stop_reason,
                outcome.dropped_tool_calls,
            )
        )
