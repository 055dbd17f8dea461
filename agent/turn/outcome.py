"""How a turn is bounded and how it ends (docs/loop.md): its ``Limits`` (T and B) and caps,
the ``TurnOutcome`` it returns, the two exceptions that end it early, which ``Turn.run`` in
agent/turn/loop.py catches in one place (``TurnStopped``: a limit or a failed call;
``TurnInterrupted``: Esc), and the notice that says why a final response ended unusually.
Kept apart from the loop so that the loop reads as the steps of docs/loop.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from agent import events as ev
from agent.model.pricing import Usage

MAX_PAUSE_CONTINUATIONS = 8
"""How many times one response may be continued after ``stop_reason: pause_turn``."""
MAX_STOP_HOOK_BLOCKS = 8
"""How many times in a row Stop hooks may send the model back to work (Claude Code's cap)."""

_NOTICES = {
    "max_tokens": "The response was cut off at max_tokens.",
    "refusal": "The model declined to continue (refusal).",
    "model_context_window_exceeded": (
        "The response stopped: the conversation fills the model's context window. "
        "Compact it (/compact) or start a new session."
    ),
    "pause_turn": (
        "The API paused the turn and eddy did not continue it further "
        f"(at most {MAX_PAUSE_CONTINUATIONS} times); send a message to go on."
    ),
}
_WHY_NOT_RUN = {
    "max_tokens": "the response hit max_tokens",
    "refusal": "the model refused",
    "model_context_window_exceeded": "the response filled the context window",
}
_ORDINARY_STOPS = ("end_turn", "stop_sequence", "tool_use")


@dataclass
class Limits:
    """The only bounds an agent loop has: a turn limit T and a budget B (None = unlimited)."""

    max_turns: int | None = None
    max_budget_usd: float | None = None
    spent_before: float = 0.0
    """Spent before this turn, of the cap B was cut from (only for the stop message)."""
    budget_scope: str = ""
    """What the cap is on ("this session", "this run"), for the stop message."""
    live: Callable[[], float] | None = None
    """The spend B is checked against, as it happens, when more than this turn's tree spends
    from the same cap (a session with background agents, which outlive the turn that started
    them): the turn stops once ``live() >= spent_before + max_budget_usd``. None: only this
    turn's tree counts (``root().cost >= max_budget_usd``)."""


@dataclass
class TurnOutcome:
    """How a turn ended. ``stop_reason`` is the last response's; ``dropped_tool_calls`` counts
    the calls of a final response that were not run (max_tokens, refusal, ...)."""

    subtype: ev.TurnSubtype
    calls: int
    turns: int
    cost_usd: float
    usage: Usage
    result: str = ""
    error: str | None = None
    stop_reason: str | None = None
    dropped_tool_calls: int = 0


class TurnInterrupted(Exception):
    """The user's interrupt (Esc) won a race inside the turn."""


class TurnStopped(Exception):
    """The turn ends early: a limit was reached (a notice) or a call failed (an error).

    Attributes:
        subtype: the outcome's subtype.
        message: what the user reads.
        kind: the error kind; None for a notice (a limit is not a failure).
    """

    def __init__(self, subtype: ev.TurnSubtype, message: str, kind: str | None = None) -> None:
        super().__init__(message)
        self.subtype = subtype
        self.message = message
        self.kind = kind


def end_notice(stop: str | None, dropped: int) -> str | None:
    """What the user reads when a final response does not end ordinarily: its ``dropped``
    tool calls were not run, or it stopped for an unusual reason; None for an ordinary end."""
    if dropped:
        why = _WHY_NOT_RUN.get(str(stop), f"the response stopped with {stop}")
        return f"Tool calls not run: {why}."
    if stop not in _ORDINARY_STOPS:
        return _NOTICES.get(
            str(stop), f"The response stopped for a reason eddy does not know ({stop})."
        )
    return None
