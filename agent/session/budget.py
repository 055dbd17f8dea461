"""The spending cap as the session applies it (``/budget``, settings, ``--max-budget-usd``).

Interactive, the cap is on the session's total: what the status line shows, including what
was spent before a resume. Headless, it is on the run (like Claude Code's print mode): the
spend the result's ``total_cost_usd`` reports. The loop checks one turn against what is left.
"""

from __future__ import annotations

from agent.loop import Limits


def turn_limits(limits: Limits, spent: float, scope: str) -> Limits:
    """The limits of the next turn: T as set; B what is left of the cap after ``spent``
    (``scope``'s spend: "this session" or "this run"), which the stop message tells."""
    if limits.max_budget_usd is None:
        return Limits(limits.max_turns, None)
    left = max(0.0, limits.max_budget_usd - spent)
    return Limits(limits.max_turns, left, spent_before=spent, budget_scope=scope)
