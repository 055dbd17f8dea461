"""What the engine tells a front end: frozen dataclasses, one closed union.

Every event names its turn (``turn_id``); tool events name their call id. One convention
for "not in a turn": ``turn_id`` is ``NO_TURN`` (0) — a ``!command``, ``/compact``, a
rewind, a mode change, a rename, a transcript failure; ``QueueChanged`` (it outlives turns)
and ``RewindFinished`` always.
Live turns are numbered from 1, and within a live session every ``TurnStarted`` with id >= 1
has exactly one ``TurnFinished`` with that id, and every ``ToolCallStarted`` of a turn exactly
one ``ToolCallFinished``. Nothing is promised for id 0: the TUI's history replay
(tui/replay.py) re-emits a resumed conversation as id-0 events — a ``TurnStarted`` per past
prompt and a single ``TurnFinished`` at the end — and an id-0 ``ToolCallStarted`` of a
``!command`` has its ``ToolCallFinished`` but no turn around it.

A front end (the TUI, line mode, the headless JSON printer) only consumes these, so anything
the TUI shows can be printed as JSONL and asserted in a test. Every consumer handles the union
exhaustively (``match`` + ``assert_never``): a new event fails type checking where it is not
handled (tests/agent/test_protocol_exhaustive.py).
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass, field
from typing import Any, Literal

NO_TURN = 0
"""The ``turn_id`` of events that happen outside any turn."""

ToolStatus = Literal["done", "failed", "refused", "interrupted"]
TurnSubtype = Literal[
    "success", "error_max_turns", "error_max_budget_usd", "error_during_execution", "interrupted"
]


@dataclass(frozen=True)
class TurnStarted:
    """A turn begins with ``prompt`` (the text the model reads).

    Attributes:
        shown: what the user typed when it is not the prompt itself (a custom command's
            ``/review calc.py``, whose expanded body is the prompt); "" otherwise.
        origin: ``user`` (a prompt, or the queue sent after a turn), or ``background``: the
            reports of background work that ended while eddy was idle started the turn by
            themselves (their ``BackgroundReported`` lines were shown when the work ended;
            ``prompt`` is their summaries, one a line; the model reads their notifications).
    """

    turn_id: int
    prompt: str
    shown: str = ""
    origin: Literal["user", "background"] = "user"
    type: Literal["turn_started"] = "turn_started"


@dataclass(frozen=True)
class ModelCallStarted:
    """The engine is about to call the model (call ``index`` of the turn, from 1)."""

    turn_id: int
    index: int
    context_tokens: int
    type: Literal["model_call_started"] = "model_call_started"


@dataclass(frozen=True)
class TextDelta:
    turn_id: int
    text: str
    type: Literal["text_delta"] = "text_delta"


@dataclass(frozen=True)
class ThinkingDelta:
    turn_id: int
    text: str
    type: Literal["thinking_delta"] = "thinking_delta"


@dataclass(frozen=True)
class AssistantMessage:
    """A complete assistant message as it entered the history (API param form)."""

    turn_id: int
    message: dict[str, Any]
    stop_reason: str | None
    type: Literal["assistant_message"] = "assistant_message"


@dataclass(frozen=True)
class ToolCallStarted:
    turn_id: int
    call_id: str
    name: str
    input: dict[str, Any]
    summary: str
    type: Literal["tool_call_started"] = "tool_call_started"


@dataclass(frozen=True)
class ToolCallRunning:
    """The gate let the call through; it is executing now."""

    turn_id: int
    call_id: str
    type: Literal["tool_call_running"] = "tool_call_running"


@dataclass(frozen=True)
class ToolOutputDelta:
    turn_id: int
    call_id: str
    text: str
    type: Literal["tool_output_delta"] = "tool_output_delta"


@dataclass(frozen=True)
class ToolCallFinished:
    """A call ended. ``content`` is what the model receives; ``display`` is for the UI."""

    turn_id: int
    call_id: str
    name: str
    status: ToolStatus
    content: str | list[dict[str, Any]]
    is_error: bool
    display: dict[str, Any] | None = None
    type: Literal["tool_call_finished"] = "tool_call_finished"


@dataclass(frozen=True)
class CorrectionsDelivered:
    """Queued corrections went to the model, after the results of the current turn."""

    turn_id: int
    texts: tuple[str, ...]
    type: Literal["corrections_delivered"] = "corrections_delivered"


@dataclass(frozen=True)
class QueueChanged:
    """The queued corrections now (after an add, a take-back or a delivery)."""

    queue: tuple[str, ...]
    turn_id: int = NO_TURN
    type: Literal["queue_changed"] = "queue_changed"


@dataclass(frozen=True)
class UsageUpdated:
    """After each model response: its usage and cost.

    Attributes:
        cost_usd: this response's cost.
        total_cost_usd: the running total of the current TURN (all its responses so far), not
            the session's: a front end adds it to the session's cost before the turn.
        context_tokens / context_window: the context the next call starts from, and the
            model's window.
    """

    turn_id: int
    usage: dict[str, int]
    cost_usd: float
    total_cost_usd: float
    context_tokens: int
    context_window: int
    type: Literal["usage_updated"] = "usage_updated"


@dataclass(frozen=True)
class TodosUpdated:
    turn_id: int
    todos: tuple[dict[str, Any], ...]
    type: Literal["todos_updated"] = "todos_updated"


@dataclass(frozen=True)
class Notice:
    """Something the user should read that is not an error (e.g. max_tokens reached)."""

    turn_id: int
    text: str
    type: Literal["notice"] = "notice"


@dataclass(frozen=True)
class Error:
    """A failure explained for the user: what happened, and what they can do."""

    turn_id: int
    message: str
    kind: str = "error"
    type: Literal["error"] = "error"


@dataclass(frozen=True)
class Interrupted:
    turn_id: int
    type: Literal["interrupted"] = "interrupted"


@dataclass(frozen=True)
class PermissionModeChanged:
    """The permission mode changed (``ops.SetPermissionMode``: Shift+Tab, ``/permissions``)."""

    mode: str
    turn_id: int = NO_TURN
    type: Literal["permission_mode_changed"] = "permission_mode_changed"


@dataclass(frozen=True)
class SessionRenamed:
    """The session got a new title (``ops.Rename``); the resume list shows it."""

    title: str
    turn_id: int = NO_TURN
    type: Literal["session_renamed"] = "session_renamed"


@dataclass(frozen=True)
class Compacted:
    """The conversation was compacted (by ``/compact`` or automatically).

    Attributes:
        context_tokens: the estimated context of what was kept (the next call measures it).
    """

    turn_id: int
    summary: str
    dropped_messages: int
    kept_messages: int
    automatic: bool
    context_tokens: int = 0
    type: Literal["compacted"] = "compacted"


@dataclass(frozen=True)
class RewindFinished:
    """A rewind (or redo) was applied.

    Attributes:
        prompt: the text of the prompt rewound to (a front end puts it back in the input when
            the conversation was restored).
        restored / deleted: files written back / removed (workspace-relative).
        conflicts: files the user changed since eddy touched them, left alone.
        not_restorable: files eddy could not restore, with the reason.
        message: one line for the user.
        context_tokens: the estimated context of the conversation kept, or None when the
            conversation was not rewound (code only).
    """

    mode: str
    prompt: str
    restored: tuple[str, ...]
    deleted: tuple[str, ...]
    conflicts: tuple[str, ...]
    not_restorable: tuple[str, ...]
    message: str
    context_tokens: int | None = None
    turn_id: int = NO_TURN
    type: Literal["rewind_finished"] = "rewind_finished"


@dataclass(frozen=True)
class TurnFinished:
    """A turn ended (``subtype`` says why).

    Attributes:
        cost_usd: what this turn cost.
        total_cost_usd: the SESSION's total after this turn (including spend before a resume).
        num_turns / num_calls: the turn's tool turns and model calls.
    """

    turn_id: int
    subtype: TurnSubtype
    num_turns: int
    num_calls: int
    cost_usd: float
    total_cost_usd: float
    duration_ms: int
    usage: dict[str, int] = field(default_factory=dict)
    result: str = ""
    error: str | None = None
    stop_reason: str | None = None
    """The last response's stop reason (None when no response ended the turn)."""
    dropped_tool_calls: int = 0
    """Tool calls of the final response that were not run (max_tokens, refusal, ...)."""
    type: Literal["turn_finished"] = "turn_finished"


# -- questions to the person and how they were answered: a permission question,
# AskUserQuestion's questions, ExitPlanMode's plan review


@dataclass(frozen=True)
class PermissionRequested:
    """A call needs the user's approval; answer with ``ops.AnswerPermission(request_id, ...)``.

    Attributes:
        preview: the unified diff the call would make (Edit, MultiEdit, Write), computed by
            the engine so every front end (eddy-events too) shows the same; None otherwise.
    """

    turn_id: int
    request_id: str
    call_id: str
    name: str
    input: dict[str, Any]
    summary: str
    suggested_rule: str | None = None
    warning: str = ""
    """Why this call asks although a rule or the mode would allow it (a protected file, no
    sandbox); empty for an ordinary question."""
    preview: str | None = None
    agent: str = ""
    """The subagent that asks (its id and type, ``"a1b2 (Explore)"``); empty for the main
    agent. A subagent's questions go to the same user, answered by the same op."""
    type: Literal["permission_requested"] = "permission_requested"


@dataclass(frozen=True)
class PermissionResolved:
    turn_id: int
    request_id: str
    decision: str
    type: Literal["permission_resolved"] = "permission_resolved"


@dataclass(frozen=True)
class QuestionsAsked:
    """AskUserQuestion: the model asks the user; answer with ``ops.AnswerQuestions``.

    Attributes:
        questions: the tool's ``questions`` as the model wrote them (question, header,
            options with label and description, multiSelect).
    """

    turn_id: int
    request_id: str
    call_id: str
    questions: tuple[dict[str, Any], ...]
    type: Literal["questions_asked"] = "questions_asked"


@dataclass(frozen=True)
class QuestionsAnswered:
    """The user answered (``answers``: question text -> answer)."""

    turn_id: int
    request_id: str
    answers: dict[str, str]
    type: Literal["questions_answered"] = "questions_answered"


@dataclass(frozen=True)
class PlanReviewRequested:
    """ExitPlanMode: the model presents its plan; answer with ``ops.AnswerPlan``."""

    turn_id: int
    request_id: str
    call_id: str
    plan: str
    type: Literal["plan_review_requested"] = "plan_review_requested"


@dataclass(frozen=True)
class PlanReviewed:
    """The user approved the plan (and eddy continues in ``mode``) or rejected it."""

    turn_id: int
    request_id: str
    approved: bool
    mode: str
    feedback: str = ""
    type: Literal["plan_reviewed"] = "plan_reviewed"


# -- what extends a turn: hooks running (agent/hooks), a prompt an extension blocked, a
# subagent's events wrapped with its id (agent/subagents), what runs in the background


@dataclass(frozen=True)
class HookStarted:
    """A hook handler started (agent/hooks): stream-json's ``hook_started`` system message.
    Its :class:`HookRan` follows with the same ``hook_id``.

    Attributes:
        hook_event: the event it runs for (PreToolUse, Stop, ...).
        command: its command line; ``source`` the settings file that defined it.
        hook_id: this run's id (its HookRan has it too).
    """

    turn_id: int
    hook_event: str
    command: str
    source: str
    hook_id: str
    type: Literal["hook_started"] = "hook_started"


@dataclass(frozen=True)
class HookRan:
    """A hook handler ran (agent/hooks): shown collapsed in the TUI, as a line in line mode,
    as a ``hook_response`` system message in stream-json, and saved in the transcript.

    Attributes:
        hook_event: the event it ran for (PreToolUse, Stop, ...).
        command: its command line; ``source`` the settings file that defined it.
        exit_code: its exit status, or None (timed out, could not start, killed).
        outcome: ``success``, ``blocked`` (exit 2 or a deny/block decision), ``error``,
            ``cancelled`` (Esc killed it).
        decision: what it decided (allow, deny, ask, block), if anything.
        output: a short excerpt of what it printed (stdout, else stderr) or its error.
        hook_id: this run's id (its HookStarted's).
        suppressed: its JSON said ``suppressOutput: true``: its stdout is not shown or kept
            (``stdout`` and ``output`` leave it out); the views show only that it ran.
    """

    turn_id: int
    hook_event: str
    command: str
    source: str
    exit_code: int | None
    outcome: str
    decision: str | None
    output: str
    stdout: str
    stderr: str
    duration_ms: int
    hook_id: str = ""
    suppressed: bool = False
    type: Literal["hook_ran"] = "hook_ran"


@dataclass(frozen=True)
class PromptBlocked:
    """A UserPromptSubmit hook blocked a prompt: nothing was sent and the history is
    unchanged; front ends put ``prompt`` back in the input so the user can edit it."""

    prompt: str
    reason: str
    turn_id: int
    type: Literal["prompt_blocked"] = "prompt_blocked"


@dataclass(frozen=True)
class SubagentEvent:
    """Something a subagent did, under the Agent call that runs it.

    The child's own event is ``event`` (as ``to_json`` makes it: its ``turn_id`` is the
    child's); it changes nothing in the main conversation, so front ends show it under the
    call ``call_id`` (Claude Code's ``parent_tool_use_id``) and the transcript skips it (the
    child has its own). Text and thinking deltas are not forwarded.

    Attributes:
        turn_id: the main agent's turn.
        call_id: the tool_use id of the Agent call that started the child (for a grandchild,
            its own parent's Agent call).
        agent_id: the child's id (its transcript is ``subagents/agent-<id>.jsonl``).
        agent_type: the definition's name (``Explore``).
        depth: 1 for a child of the main agent, 2 for a grandchild, ...
        event: the child's event as a JSON-ready dict (``from_json`` restores it).
    """

    turn_id: int
    call_id: str
    agent_id: str
    agent_type: str
    depth: int
    event: dict[str, Any]
    type: Literal["subagent_event"] = "subagent_event"


@dataclass(frozen=True)
class BackgroundChanged:
    """A background shell or agent started or ended: what runs beside the conversation now
    (the status lines show it, as Claude Code's footer does).

    Attributes:
        shells: background shells running (Bash ``run_in_background``, Ctrl+B).
        agents: background agents running (Agent ``run_in_background``).
    """

    turn_id: int
    shells: int
    agents: int
    type: Literal["background_changed"] = "background_changed"


@dataclass(frozen=True)
class BackgroundReported:
    """Background work ended (a background agent, or a shell of Bash ``run_in_background``
    or Ctrl+B): Claude Code's task notification. Its report reaches the model after the
    running turn's next tool results, or starts a turn by itself when eddy is idle, or waits
    for the user's next prompt (agent/session/reports.py says when).

    Attributes:
        task_id: the shell's or the agent's id.
        kind: ``shell`` or ``agent``.
        status: ``completed``, ``failed`` or ``stopped``.
        summary: the line the user reads, in Claude Code's words: ``Agent "x" finished``,
            ``Background command "y" completed (exit code 0)``.
        output_file: where its whole output is (a shell's log, an agent's transcript), or "".
    """

    turn_id: int
    task_id: str
    kind: Literal["shell", "agent"]
    status: Literal["completed", "failed", "stopped"]
    summary: str
    output_file: str = ""
    type: Literal["background_reported"] = "background_reported"


Event = (
    TurnStarted
    | ModelCallStarted
    | TextDelta
    | ThinkingDelta
    | AssistantMessage
    | ToolCallStarted
    | ToolCallRunning
    | ToolOutputDelta
    | ToolCallFinished
    | PermissionRequested
    | PermissionResolved
    | QuestionsAsked
    | QuestionsAnswered
    | PlanReviewRequested
    | PlanReviewed
    | CorrectionsDelivered
    | QueueChanged
    | UsageUpdated
    | TodosUpdated
    | Notice
    | Error
    | HookStarted
    | HookRan
    | PromptBlocked
    | Interrupted
    | PermissionModeChanged
    | SessionRenamed
    | Compacted
    | RewindFinished
    | TurnFinished
    | SubagentEvent
    | BackgroundChanged
    | BackgroundReported
)


def to_json(event: Event) -> dict[str, Any]:
    """The event as a JSON-ready dict (``type`` first)."""
    data = dataclasses.asdict(event)
    return {"type": data.pop("type"), **data}


EVENT_TYPES: dict[str, type[Event]] = {
    cls.__dataclass_fields__["type"].default: cls for cls in typing.get_args(Event)
}
"""Each event class by its ``type`` tag (what ``to_json`` writes first)."""


def from_json(data: dict[str, Any]) -> Event:
    """The event ``to_json`` made ``data`` from (a line of ``eddy -p --output-format
    eddy-events``, parsed). Keys the event does not have are ignored, so a log written by
    another version still loads; JSON arrays become tuples where the field is a tuple.

    Raises:
        ValueError: ``data`` has no known ``type``, or lacks a field the event needs.
    """
    cls = EVENT_TYPES.get(str(data.get("type")))
    if cls is None:
        raise ValueError(f"not an event: type {data.get('type')!r}")
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name == "type" or f.name not in data:
            continue
        value = data[f.name]
        # annotations are strings here (postponed evaluation); tuple fields were JSON arrays
        if isinstance(value, list) and str(f.type).startswith("tuple"):
            value = tuple(value)
        kwargs[f.name] = value
    try:
        return cls(**kwargs)
    except TypeError as exc:
        raise ValueError(f"a {cls.__name__} event without its fields: {exc}") from exc
