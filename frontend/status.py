"""One status model for every front end: the figures and the activity a status line shows,
kept up to date by following the engine's events (:meth:`StatusModel.follow`).

The TUI's status line and the line mode's toolbar both draw a ``StatusModel``; only how they
draw it differs (a spinner and the elapsed time in the TUI, one line of text in line mode).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from agent import events as ev
from agent.model.retry import is_retry_notice
from frontend.event_table import EventTable

if TYPE_CHECKING:
    from agent.session.status import SessionStatus

_ActivityOnly = (
    ev.TextDelta
    | ev.ThinkingDelta
    | ev.PermissionRequested
    | ev.PermissionResolved
    | ev.QuestionsAsked
    | ev.QuestionsAnswered
    | ev.PlanReviewRequested
    | ev.PlanReviewed
)
_ACTIVITY: dict[type[_ActivityOnly], str] = {
    ev.TextDelta: "responding",
    ev.ThinkingDelta: "thinking",
    ev.PermissionRequested: "waiting for permission",
    ev.PermissionResolved: "thinking",
    ev.QuestionsAsked: "waiting for your answer",
    ev.QuestionsAnswered: "thinking",
    ev.PlanReviewRequested: "waiting for your review of the plan",
    ev.PlanReviewed: "thinking",
}
"""The activity each of these events shows, and all it changes."""


class StatusModel:
    """What a status line shows, following events.

    Attributes:
        model, mode: the session's model and permission mode.
        label: shown first, e.g. "scripted demo".
        context_tokens, context_window: the context in use and the window (0: not known yet).
        cost: the session's spend, including the running turn.
        turns: the prompts the session answered (as the resume picker counts them: a text
            answer is a turn; a prompt a hook blocked is not).
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
        self._blocked_turn: int | None = None
        """The turn whose prompt a hook blocked (its TurnFinished is no answered prompt)."""
        self.max_budget: float | None = None
        self.max_turns: int | None = None
        self.queued = 0
        self.activity = ""
        self.busy = False
        self.mcp = ""
        """The MCP servers in a few words ("MCP 2/3"), or the last one that failed."""
        self.background_shells = 0
        self.background_agents = 0
        """What runs in the background (``BackgroundChanged``): shells, agents."""
        self._tool_names: dict[str, str] = {}

    @property
    def background(self) -> str:
        """``1 shell, 2 agents in background`` (/tasks lists them), or "" when none run."""
        parts = [
            f"{n} {word}{'s' if n != 1 else ''}"
            for n, word in ((self.background_shells, "shell"), (self.background_agents, "agent"))
            if n
        ]
        return f"{', '.join(parts)} in background" if parts else ""

    @property
    def context_percent(self) -> int | None:
        """How full the context window is, in percent; None while the window is not known."""
        if not self.context_window:
            return None
        return round(100 * self.context_tokens / self.context_window)

    def take_session(self, now: SessionStatus) -> None:
        """Show a newly opened (or resumed) session's model, mode, spend, caps, queue, context.

        Args:
            now: the session's ``status()`` snapshot.
        """
        self.model = now.model
        self.mode = now.mode
        self.cost = self.cost_before_turn = now.total_cost
        self.turns = now.turns
        self.max_budget, self.max_turns = now.max_budget_usd, now.max_turns
        self.queued = len(now.queue)
        self.context_tokens = now.context_tokens
        self.context_window = now.context_window
        self.mcp = now.mcp

    def follow(self, event: ev.Event) -> None:
        """Update the figures and the activity from one engine event (each event type's
        step is in ``HANDLERS``, which names every type)."""
        handler = self.HANDLERS.get(event)
        if handler is not None:
            handler(self, event)

    # -- the turn ------------------------------------------------------------------------
    def _turn_started(self, event: ev.TurnStarted) -> None:
        if event.turn_id == ev.NO_TURN:  # a replayed history: nothing is running
            return
        self.cost_before_turn = self.cost
        self.activity, self.busy = "thinking", True
        self._tool_names.clear()

    def _model_call_started(self, event: ev.ModelCallStarted) -> None:
        self.activity = "thinking"
        # 0 at a turn's first call (the turn knows nothing yet): keep the session's
        self.context_tokens = event.context_tokens or self.context_tokens

    def _show_activity(self, event: _ActivityOnly) -> None:
        self.activity = _ACTIVITY[type(event)]

    def _tool_call_started(self, event: ev.ToolCallStarted) -> None:
        self._tool_names[event.call_id] = event.name

    def _tool_call_running(self, event: ev.ToolCallRunning) -> None:
        name = self._tool_names.get(event.call_id)
        self.activity = f"running {name}" if name else "running"

    def _subagent_event(self, event: ev.SubagentEvent) -> None:
        kind = event.event.get("type")
        if kind == "tool_call_started":
            self.activity = f"{event.agent_type} agent: {event.event.get('name')}"
        elif kind == "usage_updated":  # the tree's spend as it happens; the parent's
            self.cost += float(event.event.get("cost_usd", 0.0))  # next total has it

    def _prompt_blocked(self, event: ev.PromptBlocked) -> None:
        self._blocked_turn = event.turn_id

    def _turn_finished(self, event: ev.TurnFinished) -> None:
        if event.turn_id == ev.NO_TURN:
            return
        self.cost = self.cost_before_turn = event.total_cost_usd  # the session's total
        if event.turn_id != self._blocked_turn:
            self.turns += 1
        self.activity, self.busy = "", False

    # -- the figures ---------------------------------------------------------------------
    def _usage_updated(self, event: ev.UsageUpdated) -> None:
        self.context_tokens = event.context_tokens
        self.context_window = event.context_window
        self.cost = self.cost_before_turn + event.total_cost_usd  # the turn's total

    def _queue_changed(self, event: ev.QueueChanged) -> None:
        self.queued = len(event.queue)

    def _compacted(self, event: ev.Compacted) -> None:
        self.context_tokens = event.context_tokens

    def _rewind_finished(self, event: ev.RewindFinished) -> None:
        if event.context_tokens is not None:  # an estimate of what the rewind kept
            self.context_tokens = event.context_tokens

    def _permission_mode_changed(self, event: ev.PermissionModeChanged) -> None:
        self.mode = event.mode

    def _background_changed(self, event: ev.BackgroundChanged) -> None:
        self.background_shells, self.background_agents = event.shells, event.agents

    # -- what is said --------------------------------------------------------------------
    def _error(self, event: ev.Error) -> None:
        if event.kind == "mcp":  # "MCP server x: failed: why"
            self._mcp_server_line(event.message)

    def _notice(self, event: ev.Notice) -> None:
        if is_retry_notice(event.text):  # "API overloaded, retrying (3/10) in 4 s"
            self.activity = event.text.removesuffix(" (Esc stops)")
        elif event.text.startswith("MCP server "):  # "MCP server x: needs-auth: why"
            self._mcp_server_line(event.text)
        elif event.text.startswith("MCP: ") and " servers connected" in event.text:
            self._mcp_summary(event.text)

    def _mcp_summary(self, text: str) -> None:
        """ "MCP: 4/5 servers connected (1 failed), 23 tools." as "MCP 4/5, 1 failed"."""
        head, _, rest = text[len("MCP: ") :].partition(" servers connected")
        failed = rest.partition(")")[0].removeprefix(" (") if "failed" in rest else ""
        self.mcp = f"MCP {head}" + (f", {failed}" if failed else "")

    def _mcp_server_line(self, text: str) -> None:
        """ "MCP server x: failed: why" as the status line's "MCP x failed"."""
        name, _, rest = text[len("MCP server ") :].partition(": ")
        self.mcp = f"MCP {name} {rest.partition(':')[0]}"

    HANDLERS: ClassVar[EventTable[Callable[[StatusModel, Any], None]]] = EventTable(
        "the status model",
        {
            **dict.fromkeys(_ACTIVITY, _show_activity),
            ev.TurnStarted: _turn_started,
            ev.ModelCallStarted: _model_call_started,
            ev.ToolCallStarted: _tool_call_started,
            ev.ToolCallRunning: _tool_call_running,
            ev.SubagentEvent: _subagent_event,
            ev.PromptBlocked: _prompt_blocked,
            ev.TurnFinished: _turn_finished,
            ev.UsageUpdated: _usage_updated,
            ev.QueueChanged: _queue_changed,
            ev.Compacted: _compacted,
            ev.RewindFinished: _rewind_finished,
            ev.PermissionModeChanged: _permission_mode_changed,
            ev.BackgroundChanged: _background_changed,
            ev.Error: _error,
            ev.Notice: _notice,
        },
        ignored=(
            ev.AssistantMessage,
            ev.ToolOutputDelta,
            ev.ToolCallFinished,
            ev.CorrectionsDelivered,
            ev.TodosUpdated,
            ev.Interrupted,
            ev.SessionRenamed,
            ev.HookRan,
            ev.HookStarted,
            ev.BackgroundReported,  # BackgroundChanged says what still runs
        ),
    )
    """Each event type's step: a handler, or none for the types named in ``ignored``."""
