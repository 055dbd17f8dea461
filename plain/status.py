"""The bottom toolbar: model, permission mode, context use, session cost, what is going on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, assert_never

from agent import events as ev

if TYPE_CHECKING:
    from agent.session.status import SessionStatus


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

    def take_session(self, now: SessionStatus) -> None:
        """Show a newly opened (or resumed) session's model, mode, spend, queue and context.

        Args:
            now: the session's ``status()`` snapshot.
        """
        self.model = now.model
        self.mode = now.mode
        self.cost = self.cost_before_turn = now.total_cost
        self.queued = len(now.queue)
        self.context_tokens = now.context_tokens
        self.context_window = now.context_window

    def follow(self, event: ev.Event) -> None:
        """Update the figures and the activity from one engine event (every kind is named:
        mypy fails here when a new event is not handled)."""
        match event:
            case ev.TurnStarted():
                self.cost_before_turn = self.cost
                self.activity = "thinking"
            case ev.ModelCallStarted():
                self.activity = "waiting for the model"
                # 0 at a turn's first call (the turn knows nothing yet): keep the session's
                self.context_tokens = event.context_tokens or self.context_tokens
            case ev.TextDelta():
                self.activity = "responding"
            case ev.ThinkingDelta():
                self.activity = "thinking"
            case ev.ToolCallStarted():
                self.activity = f"calling {event.name}"
            case ev.PermissionRequested():
                self.activity = "waiting for your answer"
            case ev.UsageUpdated():
                self.context_tokens = event.context_tokens
                self.context_window = event.context_window
                self.cost = self.cost_before_turn + event.total_cost_usd  # the turn's total
            case ev.QueueChanged():
                self.queued = len(event.queue)
            case ev.Compacted():
                self.context_tokens = event.context_tokens
            case ev.TurnFinished():
                self.cost = event.total_cost_usd  # the session's total
                self.activity = ""
            case ev.RewindFinished():
                if event.context_tokens is not None:  # an estimate of what the rewind kept
                    self.context_tokens = event.context_tokens
            case ev.PermissionModeChanged():
                self.mode = event.mode
            case (
                ev.AssistantMessage()
                | ev.ToolCallRunning()
                | ev.ToolOutputDelta()
                | ev.ToolCallFinished()
                | ev.PermissionResolved()
                | ev.CorrectionsDelivered()
                | ev.TodosUpdated()
                | ev.Notice()
                | ev.Error()
                | ev.Interrupted()
                | ev.SessionRenamed()
            ):
                pass
            case _:
                assert_never(event)
