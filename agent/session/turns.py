"""A session's turns: a prompt (or the queued corrections) becomes a user message, runs the
turn loop (agent/loop.py) with the session's hooks, compaction and MCP refresh around each model
call, and ends with one ``TurnFinished``. Functions of a
:class:`agent.session.core.Session`, kept apart because this is the one long path the rest of the
session only feeds (``run_prompt`` is spawned for each prompt)."""

from __future__ import annotations

import asyncio
import functools
import time
from typing import TYPE_CHECKING

from agent import events as ev
from agent.extension import PromptAddition, StopRequest
from agent.hooks.engine import unless_interrupted
from agent.loop import Turn, TurnOutcome
from agent.messages import Message
from agent.pricing import Usage

if TYPE_CHECKING:
    from agent.session.core import Session


async def run_prompt(session: Session, text: str) -> None:
    delivered: tuple[str, ...] = ()
    while True:
        turn_id = next(session._turn_ids)
        await session.shells.catch_up()  # what background shells changed: the last prompt's
        # the extensions' word on the prompt (hooks, MCP resources, background reports)
        done, added = await unless_interrupted(
            session.extensions.on_prompt(text), session._interrupt
        )
        if not done:
            added = PromptAddition("Interrupted before the prompt was sent.")
        if added.blocked is not None:
            _prompt_blocked(session, turn_id, text, added.blocked)
            return
        session.add_prompt(text, delivered, added.blocks)
        session.emit(ev.TurnStarted(turn_id, text))
        session._report_checkpoint_error(turn_id)  # the checkpoint begun with the prompt
        started = time.monotonic()
        session.runner.turn_id = turn_id
        turn = Turn(
            before_call=functools.partial(_before_call, session),
            on_stop=functools.partial(_on_stop, session),
            history=session.history,
            model=session.model,
            spec=session.spec,
            runner=session.runner,
            emit=session.emit,
            take_queue=session.corrections.take_all,
            interrupt=session._interrupt,
            limits=session.spend.turn_limits(session.config.limits, session.config.headless),
            turn_id=turn_id,
            checked_upto=session.conversation.checked_upto,
        )
        session.spend.running.append(turn)  # until _finish counts it
        try:
            outcome = await turn.run()  # catches every other exit, bugs included
        except asyncio.CancelledError:
            _finish(session, turn, TurnOutcome("interrupted", 0, 0, 0.0, Usage()), started)
            raise
        session.conversation.checked_upto = turn.checked_upto
        _finish(session, turn, outcome, started)
        # Interrupt with a queue sends it at once; a finished turn makes it the next prompt,
        # unless the budget is spent: nobody asked for that call (a background agent's report
        # or a correction that came too late), so it waits for the user's next prompt
        if outcome.subtype == "success" and session.queue and _budget_spent(session):
            text = "The budget is spent: what is queued waits for your next prompt (/budget)."
            session.emit(ev.Notice(turn_id, text))
        elif outcome.subtype in ("success", "interrupted") and session.queue:
            delivered = tuple(session.corrections.take_all())
            text = "\n\n".join(delivered)
            session._interrupt = asyncio.Event()
            continue
        return


def _budget_spent(session: Session) -> bool:
    """Whether the session's cap B is reached (the running trees' spend included)."""
    cap = session.config.limits.max_budget_usd
    return cap is not None and session.spend.live(session.config.headless) >= cap


def _prompt_blocked(session: Session, turn_id: int, text: str, reason: str) -> None:
    """A hook stopped the prompt: nothing was sent, the history is unchanged, and the
    front ends put the prompt back in the input. The turn still starts and finishes."""
    session.emit(ev.TurnStarted(turn_id, text))
    session.emit(ev.PromptBlocked(text, reason, turn_id))
    error = f"The prompt was not sent: {reason}"
    session.emit(
        ev.TurnFinished(
            turn_id, "error_during_execution", 0, 0, 0.0, session.total_cost, 0, {}, "", error
        )
    )


async def _before_call(session: Session, turn: Turn) -> bool:
    """Before each model call: the extensions (the tool set may change here), then
    compaction."""
    await session.extensions.before_model_call()
    return await session.compactor.before_call(turn)


async def _on_stop(session: Session, history: list[Message], active: bool) -> str | None:
    """The model answered without tools: an extension may send it back (Stop hooks)."""
    return await session.extensions.on_stop(StopRequest(history, active))


def _finish(session: Session, turn: Turn, outcome: TurnOutcome, started: float) -> None:
    session.spend.add(turn)
    session.emit(
        ev.TurnFinished(
            turn.turn_id,
            outcome.subtype,
            turn.turns,
            turn.calls,
            turn.cost,
            session.total_cost,
            int((time.monotonic() - started) * 1000),
            turn.usage.to_dict(),
            outcome.result,
            outcome.error,
            outcome.stop_reason,
            outcome.dropped_tool_calls,
        )
    )
