"""What a session has spent, and the spending cap as the session applies it (``/budget``,
settings, ``--max-budget-usd``).

Interactive, the cap is on the session's total: what the status line shows, including what
was spent before a resume. Headless, it is on the run (like Claude Code's print mode): the
spend the result's ``total_cost_usd`` reports. The loop checks one turn against what is left.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agent.loop import Limits, Turn
from agent.pricing import Usage


@dataclass
class Spend:
    """A session's running totals; the session adds each finished turn, nothing else writes.

    Attributes:
        total_cost: the session's spend, including what it had when resumed.
        total_usage: the tokens this process used.
        turns: the tool turns of the whole session.
        cost_at_start: the total when this process resumed the session.
    """

    total_cost: float = 0.0
    total_usage: Usage = field(default_factory=Usage)
    turns: int = 0
    cost_at_start: float = 0.0

    def resume(self, total_cost: float, turns: int) -> None:
        """Continue from a saved session's totals."""
        self.total_cost = self.cost_at_start = total_cost
        self.turns = turns

    def add(self, turn: Turn) -> None:
        """Count a finished (or stopped) turn."""
        self.total_cost += turn.cost
        self.total_usage = self.total_usage + turn.usage
        self.turns += turn.turns

    @property
    def run_cost(self) -> float:
        """What this process spent (the session's total, less what it had when resumed)."""
        return self.total_cost - self.cost_at_start

    def budget_spent(self, headless: bool) -> float:
        """The spend the cap is checked against: the run's headless, the session's otherwise."""
        return self.run_cost if headless else self.total_cost

    def turn_limits(self, limits: Limits, headless: bool) -> Limits:
        """The limits of the next turn: T as set; B what is left of the cap after the spend
        it is checked against, which the stop message names ("this run" / "this session")."""
        if limits.max_budget_usd is None:
            return Limits(limits.max_turns, None)
        spent = self.budget_spent(headless)
        scope = "this run" if headless else "this session"
        left = max(0.0, limits.max_budget_usd - spent)
        return Limits(limits.max_turns, left, spent_before=spent, budget_scope=scope)
