"""A session's turns: a prompt (or the queued corrections) becomes a user message, runs the
turn loop (agent/loop.py) with the session's hooks, compaction and MCP refresh around each model
call, and ends with one ``TurnFinished``. Functions of a
:class:`agent.session.core.Session`, kept apart because this is the one long path the rest of the
session only feeds (``run_prompt`` is spawned for each prompt)."""

from __future__ import annotations

import asyncio
import functools
import time
from typing import TYPE_CHECKING, Any

from agent import events as ev
from agent.hooks.engine import unless_interrupted
from agent.loop import Turn, TurnOutcome
from agent.pricing import Usage

if TYPE_CHECKING:
    from agent.session.core import Session


async def run_prompt(session: Session, text: str) -> None:
    delivered: tuple[str, ...] = ()
    while True:
        turn_id = next(session._turn_ids)
        await session.shells.catch_up()  # what background shells changed: the last prompt's
        context: list[str] = []
        if session.config.hooks.groups:  # SessionStart, UserPromptSubmit; Esc stops them
            done, value = await unless_interrupted(
                session.hooks.before_prompt(text, transcript_resumed(session)), session._interrupt
            )
            blocked, context = value if done else ("Interrupted while hooks ran.", [])
            if blocked is not None:
                _prompt_blocked(session, turn_id, text, blocked)
                return
        session.add_prompt(text, delivered, tuple(context), await _attachments(session, text))
        session._emit(ev.TurnStarted(turn_id, text))
        session._report_checkpoint_error(turn_id)  # the checkpoint begun with the prompt
        started = time.monotonic()
        session.runner.turn_id = turn_id
        turn = Turn(
            before_call=functools.partial(_before_call, session),
            on_stop=session.hooks.on_stop if session.config.hooks.has("Stop") else None,
            history=session.history,
            model=session.model,
            spec=session.spec,
            runner=session.runner,
            emit=session._emit,
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
            session._emit(ev.Notice(turn_id, text))
        elif outcome.subtype in ("success", "interrupted") and session.queue:
            delivered = tuple(session.corrections.take_all())
            text = "\n\n".join(delivered)
            session._interrupt = asyncio.Event()
            continue
        session.hooks.idle_started()
        return


def _budget_spent(session: Session) -> bool:
    """Whether the session's cap B is reached (the running trees' spend included)."""
    cap = session.config.limits.max_budget_usd
    return cap is not None and session.spend.live(session.config.headless) >= cap


def transcript_resumed(session: Session) -> bool:
    """This session continues a saved one (SessionStart's source is ``resume``)."""
    return session.transcript is not None and session.transcript.loaded is not None


def hook_fields(session: Session) -> dict[str, Any]:
    """The fields every hook's stdin has."""
    transcript = session.transcript
    return {
        "session_id": session.config.session_id,
        "transcript_path": str(transcript.path) if transcript is not None else "",
        "cwd": str(session.config.workspace),
        "permission_mode": session.config.policy.mode,
    }


def _prompt_blocked(session: Session, turn_id: int, text: str, reason: str) -> None:
    """A hook stopped the prompt: nothing was sent, the history is unchanged, and the
    front ends put the prompt back in the input. The turn still starts and finishes."""
    session._emit(ev.TurnStarted(turn_id, text))
    session._emit(ev.PromptBlocked(text, reason, turn_id))
    error = f"The prompt was not sent: {reason}"
    session._emit(
        ev.TurnFinished(
            turn_id, "error_during_execution", 0, 0, 0.0, session.total_cost, 0, {}, "", error
        )
    )


async def _attachments(session: Session, text: str) -> tuple[str, ...]:
    """What the prompt hooks attach to ``text`` (MCP resources); Esc skips them."""
    out: list[str] = []
    for hook in session.prompt_hooks:
        task = asyncio.ensure_future(hook(text))
        stop = asyncio.ensure_future(session._interrupt.wait())
        await asyncio.wait({task, stop}, return_when=asyncio.FIRST_COMPLETED)
        stop.cancel()
        if not task.done():  # Esc: the turn that follows stops at once
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            break
        if not task.cancelled() and task.exception() is None:
            out += task.result()
    return tuple(out)


async def _before_call(session: Session, turn: Turn) -> bool:
    """Before each model call: the hooks (tools may change here), then compaction."""
    for hook in session.before_model_call:
        await hook()
    return await session.compactor.before_call(turn)


def _finish(session: Session, turn: Turn, outcome: TurnOutcome, started: float) -> None:
    session.spend.add(turn)
    session._emit(
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
