"""When a session compacts on its own: before a call that would nearly fill the window.

The summarising is in ``agent/compact.py``; ``Session.compact`` applies it (automatically, or
for ``/compact``).
"""

from __future__ import annotations

from agent.messages import Message
from agent.model import estimate_tokens
from agent.pricing import context_window


def should_autocompact(
    threshold: float | None, model: str, known_tokens: int, history: list[Message]
) -> bool:
    """Whether the next call would pass ``threshold`` (a share of ``model``'s window).

    Args:
        threshold: the share, or None (never compact automatically).
        model: the model id (its window).
        known_tokens: the context last measured (or estimated).
        history: the history about to be sent (its newest message is not measured yet).
    """
    if threshold is None or not history:
        return False
    upcoming = known_tokens + estimate_tokens(history[-1].to_param())
    return upcoming >= threshold * context_window(model)
