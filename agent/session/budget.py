"""What a session has spent, and the spending cap as the session applies it (``/budget``,
settings, ``--max-budget-usd``).

Interactive, the cap is on the session's total: what the status line shows, including what
was spent before a resume. Headless, it is on the run (like Claude Code's print mode): the
spend the result's ``total_cost_usd`` reports. The loop checks one turn against what
is left, counting as it happens what the other running turns of the session spend from the
same cap (background agents, agent/subagents/host.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agent.model.pricing import Usage
from agent.turn.loop import Turn
from agent.turn.outcome import Limits


@dataclass
class Spend:
    """A session's running totals; the session adds each finished turn, nothing else writes.

    Attributes:
        total_cost: the session's spend, including what it had when resumed.
        total_usage: the tokens this process used.
        turns: the prompts the session answered (one each, however many tool turns it
            took), the count the resume picker shows for a saved session.
        cost_at_start: the total when this process resumed the session.
    """

    total_cost: float = 0.0
    total_usage: Usage = field(default_factory=Usage)
    turns: int = 0
    cost_at_start: float = 0.0
    running: list[Turn] = field(default_factory=list)
    """The turns spending from the cap now, each the root of its tree: the prompt's turn and
    the background agents (which outlive it). ``add`` moves one into the totals."""

    def resume(self, total_cost: float, turns: int) -> None:
        """Continue from a saved session's totals."""
        self.total_cost = self.cost_at_start = total_cost
        self.turns = turns

    def add(self, turn: Turn) -> None:
        """Count a finished (or stopped) turn (it is no longer running)."""
        self.total_cost += turn.cost
        self.total_usage = self.total_usage + turn.usage
        self.turns += 1
        self.stopped(turn)

    def add_background(self, turn: Turn) -> None:
        """Count a finished background agent's spend (its turns are its own, not the
        session's tool turns)."""
        self.total_cost += turn.cost
        self.stopped(turn)

    def stopped(self, turn: Turn) -> None:
        """``turn`` spends no more (its cost is counted, or was never to be)."""
        if turn in self.running:
            self.running.remove(turn)

    def live(self, headless: bool) -> float:
        """The spend the cap is checked against, with what the running turns have spent so
        far: what one more response of any of them is weighed against."""
        return self.budget_spent(headless) + sum(t.cost for t in self.running)

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
        return Limits(
            limits.max_turns,
            left,
            spent_before=spent,
            budget_scope=scope,
            live=lambda: self.live(headless),
        )
