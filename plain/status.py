"""The bottom toolbar: model, permission mode, context use, session cost, what is going on."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent import events as ev


def money(usd: float) -> str:
    """``$0.0123`` below a dollar, ``$12.34`` above."""
    return f"${usd:.4f}" if usd < 1 else f"${usd:.2f}"


@dataclass
class Status:
    """What the toolbar shows; the app updates it from engine events (:meth:`follow`)."""

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
    tool_names: dict[str, str] = field(default_factory=dict)
    """The running turn's tool calls by call id (what "running …" names)."""

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

    def take_session(self, session: Any) -> None:
        """Show a newly opened (or resumed) session's model, mode, spend, queue and context."""
        from agent.pricing import context_window

        self.model = session.config.model
        self.mode = session.config.policy.mode
        self.cost = self.cost_before_turn = session.total_cost
        self.queued = len(session.queue)
        self.context_tokens = session.context_tokens
        self.context_window = context_window(session.config.model)

    def follow(self, event: ev.Event, session: Any) -> None:
        """Update the figures and the activity from one engine event.

        Args:
            event: what the engine just said.
            session: the session that said it (None while there is none).
        """
        if isinstance(event, ev.TurnStarted):
            self.cost_before_turn = session.total_cost if session else 0.0
            self.activity = "thinking"
        elif isinstance(event, ev.ModelCallStarted):
            self.activity = "waiting for the model"
            # 0 at a turn's first call (the turn knows nothing yet): keep the session's figure
            self.context_tokens = event.context_tokens or self.context_tokens
        elif isinstance(event, ev.TextDelta):
            self.activity = "responding"
        elif isinstance(event, ev.ThinkingDelta):
            self.activity = "thinking"
        elif isinstance(event, ev.ToolCallStarted):
            self.tool_names[event.call_id] = event.name
            self.activity = f"calling {event.name}"
        elif isinstance(event, ev.PermissionRequested):
            self.activity = "waiting for your answer"
        elif isinstance(event, ev.ToolCallRunning):  # answered, or never asked: it runs now
            self.activity = f"running {self.tool_names.get(event.call_id, 'a tool')}"
        elif isinstance(event, ev.PermissionResolved):
            self.activity = "working"
        elif isinstance(event, ev.UsageUpdated):
            self.context_tokens = event.context_tokens
            self.context_window = event.context_window
            self.cost = self.cost_before_turn + event.total_cost_usd
        elif isinstance(event, ev.QueueChanged):
            self.queued = len(event.queue)
        elif isinstance(event, ev.Compacted) and session is not None:
            self.context_tokens = session.context_tokens
        elif isinstance(event, ev.TurnFinished):
            self.cost = event.total_cost_usd
            self.activity = ""
            self.tool_names.clear()
        elif (
            isinstance(event, ev.RewindFinished)
            and event.mode in ("both", "conversation")
            and session is not None
        ):
            self.context_tokens = session.context_tokens  # an estimate of what the rewind kept
