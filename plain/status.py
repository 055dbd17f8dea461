"""The bottom toolbar: model, permission mode, context use, session cost, what is going on."""

from __future__ import annotations

from dataclasses import dataclass


def money(usd: float) -> str:
    """``$0.0123`` below a dollar, ``$12.34`` above."""
    return f"${usd:.4f}" if usd < 1 else f"${usd:.2f}"


@dataclass
class Status:
    """What the toolbar shows; the app updates it from engine events."""

    model: str
    mode: str
    context_tokens: int = 0
    context_window: int = 0
    cost: float = 0.0
    """The session's spend, including the running turn."""
    cost_before_turn: float = 0.0
    activity: str = ""
    queued: int = 0
    label: str = ""
    """A tag before everything else ("scripted demo")."""

    @property
    def context_percent(self) -> int | None:
        if not self.context_window:
            return None
        return round(100 * self.context_tokens / self.context_window)

    def line(self, busy: bool) -> str:
        """The toolbar text."""
        parts = [self.label] if self.label else []
        parts += [self.model, self.mode]
        percent = self.context_percent
        if percent is not None:
            parts.append(f"context {percent}%")
        parts.append(money(self.cost))
        if self.queued:
            parts.append(f"{self.queued} queued (↑ takes back)")
        if busy:
            parts.append(f"{self.activity or 'working'} · Esc stops · Enter queues")
        return " · ".join(parts)
