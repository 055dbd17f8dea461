"""One status model for every front end: the figures and the activity a status line shows,
kept up to date by following the engine's events (:meth:`StatusModel.follow`).

The TUI's status line and the line mode's toolbar both draw a ``StatusModel``; only how they
draw it differs (a spinner and the elapsed time in the TUI, one line of text in line mode).
"""

from __future__ import annotations

from typing import Any

from agent import events as ev


class StatusModel:
    """What a status line shows, following events.

    Attributes:
        model, mode: the session's model and permission mode.
        label: shown first, e.g. "scripted demo".
        context_tokens, context_window: the context in use and the window (0: not known yet).
        cost: the session's spend, including the running turn.
        turns: tool turns the session made.
        max_budget, max_turns: the session's caps, or None.
        queued: corrections waiting for the model's next call.
        activity: what the turn is doing ("thinking", "responding", "running Bash", ...).
        busy: whether a turn runs.
    """

    def __init__(self, model: str = "", mode: str = "default") -> None:
        self.model = model
        self.mode = mode
        self.label = ""
        self.context_tokens = 0
        self.context_window = 0
        self.cost = 0.0
        self.cost_before_turn = 0.0
        """The session's spend when the running turn began (its usage adds to it)."""
        self.turns = 0
        self.max_budget: float | None = None
        self.max_turns: int | None = None
        self.queued = 0
        self.activity = ""
        self.busy = False
        self._tool_names: dict[str, str] = {}

    @property
    def context_percent(self) -> int | None:
        """How full the context window is, in percent; None while the window is not known."""
        if not self.context_window:
            return None
        return round(100 * self.context_tokens / self.context_window)

    def take_session(self, session: Any) -> None:
        """Show a newly opened (or resumed) session's model, mode, spend, caps, queue, context."""
        from agent.pricing import context_window

        self.model = session.config.model
        self.mode = session.config.policy.mode
        self.cost = self.cost_before_turn = session.total_cost
        self.turns = session.turn_count
        limits = session.config.limits
        self.max_budget, self.max_turns = limits.max_budget_usd, limits.max_turns
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
            if event.turn_id == 0:  # a replayed history: nothing is running
                return
            self.cost_before_turn = session.total_cost if session is not None else self.cost
            self.activity, self.busy = "thinking", True
            self._tool_names.clear()
        elif isinstance(event, ev.ModelCallStarted):
            self.activity = "thinking"
            # 0 at a turn's first call (the turn knows nothing yet): keep the session's figure
            self.context_tokens = event.context_tokens or self.context_tokens
        elif isinstance(event, ev.TextDelta):
            self.activity = "responding"
        elif isinstance(event, ev.ThinkingDelta):
            self.activity = "thinking"
        elif isinstance(event, ev.ToolCallStarted):
            self._tool_names[event.call_id] = event.name
        elif isinstance(event, ev.ToolCallRunning):
            name = self._tool_names.get(event.call_id)
            self.activity = f"running {name}" if name else "running"
        elif isinstance(event, ev.PermissionRequested):
            self.activity = "waiting for permission"
        elif isinstance(event, ev.PermissionResolved):
            self.activity = "thinking"
        elif isinstance(event, ev.UsageUpdated):
            self.context_tokens = event.context_tokens
            self.context_window = event.context_window
            self.cost = self.cost_before_turn + event.total_cost_usd
        elif isinstance(event, ev.QueueChanged):
            self.queued = len(event.queue)
        elif isinstance(event, ev.Compacted) and session is not None:
            self.context_tokens = session.context_tokens
        elif isinstance(event, ev.TurnFinished):
            if event.turn_id == 0:
                return
            self.cost = self.cost_before_turn = event.total_cost_usd
            self.turns += event.num_turns
            self.activity, self.busy = "", False
        elif (
            isinstance(event, ev.RewindFinished)
            and event.mode in ("both", "conversation")
            and session is not None
        ):
            self.context_tokens = session.context_tokens  # an estimate of what was kept
