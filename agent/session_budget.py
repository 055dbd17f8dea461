"""The spending cap as the session applies it (``/budget``, settings, ``--max-budget-usd``).

Interactive, the cap is on the session's total: what the status line shows, including what
was spent before a resume. Headless, it is on the run (like Claude Code's print mode): the
spend the result's ``total_cost_usd`` reports. The loop checks one turn against what is left.
"""

from __future__ import annotations

from agent import events as ev
from agent.loop import Limits

BUDGET_STOP_PREFIX = "Stopped: spent $"
"""How the loop's notice of a budget stop begins (``Turn._settle`` in agent/loop.py)."""


def turn_limits(limits: Limits, spent: float) -> Limits:
    """The limits of the next turn: T as set; B what is left of the cap after ``spent``."""
    if limits.max_budget_usd is None:
        return Limits(limits.max_turns, None)
    return Limits(limits.max_turns, max(0.0, limits.max_budget_usd - spent))


def restate_budget_stop(event: ev.Event, cap: float | None, spent: float, scope: str) -> ev.Event:
    """The loop's budget-stop notice told in the cap's own figures; other events unchanged.

    The loop knows only its turn (what it spent of what it was left), which reads wrong
    after earlier turns: the user set the cap on ``scope``'s spend, so say that.

    Args:
        event: an event of the running turn.
        cap: the cap (None: no cap).
        spent: what ``scope`` has spent, including the running turn.
        scope: "this session" or "this run".
    """
    if cap is None or not isinstance(event, ev.Notice):
        return event
    if not event.text.startswith(BUDGET_STOP_PREFIX):
        return event
    return ev.Notice(
        event.turn_id, f"Stopped: {scope} has spent ${spent:.4f} of its ${cap:.4f} budget."
    )
