"""Engine events -> ACP ``session/update`` payloads, one mapper per open session.

Every event kind is named in :meth:`UpdateMapper.updates` (``match`` + ``assert_never``), so a
new event fails type checking here until ACP says what it means. A permission question is not
an update: it comes out as :class:`AskPermission`, which the session's pump turns into a
``session/request_permission`` request after the ``tool_call`` it is about has been sent.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, assert_never

from acp import schema
from acp.helpers import (
    plan_entry,
    start_tool_call,
    text_block,
    tool_content,
    tool_diff_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_current_mode,
    update_plan,
    update_tool_call,
    update_user_message_text,
)

from agent import events as ev
from frontend.tool_summary import result_text
from frontend.wording import background_line

Update = (
    schema.UserMessageChunk
    | schema.AgentMessageChunk
    | schema.AgentThoughtChunk
    | schema.ToolCallStart
    | schema.ToolCallProgress
    | schema.AgentPlanUpdate
    | schema.AvailableCommandsUpdate
    | schema.CurrentModeUpdate
    | schema.SessionInfoUpdate
    | schema.UsageUpdate
)
"""What ``session/update`` carries."""

TOOL_KINDS: dict[str, schema.ToolKind] = {
    "Read": "read",
    "LS": "read",
    "NotebookRead": "read",
    "Edit": "edit",
    "MultiEdit": "edit",
    "Write": "edit",
    "NotebookEdit": "edit",
    "Bash": "execute",
    "Glob": "search",
    "Grep": "search",
    "WebFetch": "fetch",
    "WebSearch": "fetch",
    "TodoWrite": "think",
    "Agent": "think",
    "Task": "think",
    "ExitPlanMode": "switch_mode",
}
"""The ACP kind of each tool (an editor picks the icon from it); others are ``other``."""

EDIT_TOOLS = frozenset({"Edit", "MultiEdit", "Write"})
"""Tools whose finished call is shown as a ``diff`` (old and new text of the file)."""

DIFF_LIMIT = 1_000_000
"""Files larger than this (bytes) are not sent whole as a diff; the result text is."""

OUTPUT_LIMIT = 64_000
"""The tail of a running command's output that each update carries (characters)."""

STATUSES: dict[ev.ToolStatus, schema.ToolCallStatus] = {
    "done": "completed",
    "failed": "failed",
    "refused": "failed",
    "interrupted": "failed",
}

PLAN_STATUSES: dict[str, schema.PlanEntryStatus] = {
    "pending": "pending",
    "in_progress": "in_progress",
    "completed": "completed",
}

MODE_NAMES: dict[str, tuple[str, str]] = {
    "default": ("Ask", "Ask before changing files or running commands"),
    "acceptEdits": ("Accept edits", "Edit files without asking; ask before commands"),
    "plan": ("Plan", "Read and plan only: no changes"),
    "bypassPermissions": ("Bypass permissions", "Run everything without asking"),
}
"""eddy's permission modes, advertised to the client as session modes."""


@dataclass(frozen=True)
class AskPermission:
    """A permission question for the client (from ``PermissionRequested``)."""

    request: ev.PermissionRequested
    tool_call: schema.ToolCallUpdate


@dataclass(frozen=True)
class QueueNotice:
    """The queued corrections changed: eddy's ``_eddy/queue`` notification (an editor that
    knows eddy can show them; ACP has no update for a queue)."""

    queue: tuple[str, ...]


@dataclass(frozen=True)
class AskDialog:
    """AskUserQuestion's questions or ExitPlanMode's plan, for the client (acp_agent/dialogs.py)."""

    event: ev.QuestionsAsked | ev.PlanReviewRequested


@dataclass(frozen=True)
class TurnEnded:
    """A turn that background reports started has ended: eddy's ``_eddy/turn_ended``
    notification, with the ACP stop reason ``session/prompt`` would have answered.

    ACP v1 ends a turn only by answering ``session/prompt``, and no request starts this turn;
    updates outside a prompt are allowed, and protocol v2 (draft) ends every turn with an
    idle ``state_update``. Until the package speaks v2, this names the end the same way.
    """

    finished: ev.TurnFinished


Item = Update | AskPermission | QueueNotice | AskDialog | TurnEnded


def _aside(text: str) -> schema.AgentMessageChunk:
    """A line of eddy's own, set apart (in italics) from the model's answer."""
    return update_agent_message_text(f"\n\n*{text}*\n\n")


def tool_title(name: str, summary: str) -> str:
    """The line an editor shows for a call: the tool's name and its one-line summary."""
    return f"{name} {summary}".strip()


def tool_locations(call_input: dict[str, Any], workspace: Path) -> list[schema.ToolCallLocation]:
    """The files a call is about (``file_path``, ``notebook_path`` or ``path``), absolute."""
    out = []
    for key in ("file_path", "notebook_path", "path"):
        value = call_input.get(key)
        if isinstance(value, str) and value:
            path = Path(value)
            out.append(
                schema.ToolCallLocation(path=str(path if path.is_absolute() else workspace / path))
            )
            break
    return out


def _read_text(path: Path) -> str | None:
    """The file's text, or None (missing, too large, not UTF-8)."""
    try:
        if path.stat().st_size > DIFF_LIMIT:
            return None
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _text_content(text: str) -> list[Any]:
    return [tool_content(text_block(text))] if text else []


def plan_entries(todos: tuple[dict[str, Any], ...]) -> list[schema.PlanEntry]:
    """TodoWrite's list as ACP plan entries (eddy has no priorities: all medium)."""
    entries = []
    for todo in todos:
        status = PLAN_STATUSES.get(str(todo.get("status")), "pending")
        entries.append(plan_entry(str(todo.get("content", "")), status=status))
    return entries


class UpdateMapper:
    """Turns one session's events into ACP updates, keeping what a call's updates need: the
    call's name, its file's text before it ran (for the diff) and its output so far.

    Args:
        workspace: the session's directory (relative paths in tool inputs are under it).
        replay: the events replay a saved history (``session/load``): prompts and corrections
            become ``user_message_chunk``.
        buffered: the editor's text of a file, when the file tools read it through the
            editor: the diff's old side is what the user saw in the buffer.
    """

    def __init__(
        self,
        workspace: Path,
        *,
        replay: bool = False,
        buffered: Callable[[Path], str | None] | None = None,
    ) -> None:
        self.workspace = workspace
        self.replay = replay
        self.buffered = buffered
        """The editor's text of a file as the model last read it (ACP fs), else None."""
        self._names: dict[str, str] = {}
        self._paths: dict[str, str] = {}
        self._before: dict[str, tuple[Path, str | None]] = {}
        self._output: dict[str, str] = {}
        self._self_started: set[int] = set()
        """The running turns that background reports started (no prompt answers them)."""

    def updates(self, event: ev.Event) -> list[Item]:
        """What the client is told about ``event`` (often nothing)."""
        match event:
            case ev.TextDelta():
                return [update_agent_message_text(event.text)] if event.text else []
            case ev.ThinkingDelta():
                return [update_agent_thought_text(event.text)] if event.text else []
            case (
                ev.ToolCallStarted()
                | ev.ToolCallRunning()
                | ev.ToolOutputDelta()
                | ev.ToolCallFinished()
                | ev.PermissionRequested()
            ):
                return self._tool_updates(event)
            case ev.TurnStarted() | ev.TurnFinished() | ev.CorrectionsDelivered():
                return self._turn_updates(event)
            case (
                ev.Notice()
                | ev.BackgroundReported()
                | ev.Error()
                | ev.Compacted()
                | ev.RewindFinished()
                | ev.HookRan()
                | ev.PromptBlocked()
            ):
                return self._lines(event)
            case (
                ev.QuestionsAsked()
                | ev.PlanReviewRequested()
                | ev.QueueChanged()
                | ev.TodosUpdated()
                | ev.PermissionModeChanged()
                | ev.SessionRenamed()
            ):
                return self._session_state(event)
            case (
                ev.SubagentEvent()  # the Agent call's tool_call and final update stand for it
                | ev.UsageUpdated()  # the session adds its spend before the turn: LiveSession
                | ev.QuestionsAnswered()
                | ev.PlanReviewed()
                | ev.ModelCallStarted()
                | ev.AssistantMessage()
                | ev.PermissionResolved()
                | ev.Interrupted()
                | ev.HookStarted()
                | ev.BackgroundChanged()
            ):
                return []
            case _:
                assert_never(event)

    def _tool_updates(
        self,
        event: ev.ToolCallStarted
        | ev.ToolCallRunning
        | ev.ToolOutputDelta
        | ev.ToolCallFinished
        | ev.PermissionRequested,
    ) -> list[Item]:
        """A tool call's start, progress, output, end, or the question about it."""
        match event:
            case ev.ToolCallStarted():
                return [self._started(event)]
            case ev.ToolCallRunning():
                self._snapshot(event.call_id)
                return [update_tool_call(event.call_id, status="in_progress")]
            case ev.ToolOutputDelta():
                return [self._output_update(event)]
            case ev.ToolCallFinished():
                return [self._finished(event)]
            case ev.PermissionRequested():
                return [AskPermission(event, self._permission_call(event))]
            case _:
                assert_never(event)

    def _turn_updates(
        self, event: ev.TurnStarted | ev.TurnFinished | ev.CorrectionsDelivered
    ) -> list[Item]:
        """A turn's start and end. A replay shows what the user wrote as their messages. A
        turn that background reports started (no ``session/prompt`` answers it) ends with
        eddy's ``_eddy/turn_ended`` notification (:class:`TurnEnded`)."""
        match event:
            case ev.TurnStarted():
                if event.origin == "background":
                    self._self_started.add(event.turn_id)
                elif self.replay and event.prompt.strip():
                    return [update_user_message_text(event.prompt)]
                return []
            case ev.TurnFinished():
                if event.turn_id in self._self_started and not self.replay:
                    self._self_started.discard(event.turn_id)
                    return [TurnEnded(event)]
                return []
            case ev.CorrectionsDelivered():
                if self.replay:
                    return [update_user_message_text(t) for t in event.texts if t.strip()]
                return []
            case _:
                assert_never(event)

    def _lines(
        self,
        event: ev.Notice
        | ev.BackgroundReported
        | ev.Error
        | ev.Compacted
        | ev.RewindFinished
        | ev.HookRan
        | ev.PromptBlocked,
    ) -> list[Item]:
        """A line for the user, as agent text set apart from the answer."""
        match event:
            case ev.Notice():
                return [_aside(event.text)]
            case ev.RewindFinished():
                return [_aside(event.message)]
            case ev.BackgroundReported():
                # background work ended; the turn it may start streams its updates after this
                # one, outside any session/prompt (as Claude Code's ACP adapter does)
                return [_aside(background_line(event))]
            case ev.Error():
                return [update_agent_message_text(f"\n\n**eddy:** {event.message}\n\n")]
            case ev.PromptBlocked():
                text = f"A UserPromptSubmit hook blocked the prompt: {event.reason}"
                return [update_agent_message_text(f"\n\n**eddy:** {text}\n\n")]
            case ev.Compacted():
                what = "automatically " if event.automatic else ""
                return [_aside(f"The conversation was {what}compacted into a summary.")]
            case ev.HookRan():
                if event.outcome == "success" or self.replay:
                    return []  # a hook that did its job quietly, as the TUI shows it collapsed
                return [_aside(f"{event.hook_event} hook {event.outcome}: {event.output}".strip())]
            case _:
                assert_never(event)

    def _session_state(
        self,
        event: ev.QuestionsAsked
        | ev.PlanReviewRequested
        | ev.QueueChanged
        | ev.TodosUpdated
        | ev.PermissionModeChanged
        | ev.SessionRenamed,
    ) -> list[Item]:
        """The session's state beside the conversation: dialogs, the queue, the plan, the
        mode, the title (a replay shows no dialog and no queue: they are over)."""
        match event:
            case ev.QuestionsAsked() | ev.PlanReviewRequested():
                return [] if self.replay else [AskDialog(event)]
            case ev.QueueChanged():
                return [] if self.replay else [QueueNotice(event.queue)]
            case ev.TodosUpdated():
                return [update_plan(plan_entries(event.todos))]
            case ev.PermissionModeChanged():
                return [update_current_mode(event.mode)]
            case ev.SessionRenamed():
                info = schema.SessionInfoUpdate(
                    session_update="session_info_update", title=event.title
                )
                return [info]
            case _:
                assert_never(event)

    # -- tool calls ------------------------------------------------------------------------
    def _started(self, event: ev.ToolCallStarted) -> schema.ToolCallStart:
        self._names[event.call_id] = event.name
        locations = tool_locations(event.input, self.workspace)
        if event.name in EDIT_TOOLS and locations:
            self._paths[event.call_id] = locations[0].path
        return start_tool_call(
            event.call_id,
            tool_title(event.name, event.summary),
            kind=TOOL_KINDS.get(event.name, "other"),
            status="pending",
            locations=locations,
            raw_input=event.input,
        )

    def _snapshot(self, call_id: str) -> None:
        """Keep the file's text as it is just before an edit runs (the diff's old side)."""
        started = self._paths.pop(call_id, None)
        if started is None:
            return
        path = Path(started)
        old = self.buffered(path) if self.buffered is not None else None
        if old is None and path.exists():
            old = _read_text(path)
        self._before[call_id] = (path, old)

    def _output_update(self, event: ev.ToolOutputDelta) -> schema.ToolCallProgress:
        output = (self._output.get(event.call_id, "") + event.text)[-OUTPUT_LIMIT:]
        self._output[event.call_id] = output
        return update_tool_call(event.call_id, content=_text_content(output))

    def _finished(self, event: ev.ToolCallFinished) -> schema.ToolCallProgress:
        self._output.pop(event.call_id, None)
        before = self._before.pop(event.call_id, None)
        text = result_text(event.content)
        content: list[Any] = []
        if before is not None and event.status == "done":
            path, old = before
            new = _read_text(path)
            if new is not None:
                content.append(tool_diff_content(str(path), new, old))
        if not content:
            content = _text_content(text)
        return update_tool_call(
            event.call_id,
            status=STATUSES[event.status],
            content=content,
            raw_output={"content": text, "is_error": event.is_error, "status": event.status},
        )

    def _permission_call(self, event: ev.PermissionRequested) -> schema.ToolCallUpdate:
        """The call a permission question is about, with the diff a "yes" would make."""
        content = []
        if event.preview:
            content = _text_content(f"```diff\n{event.preview.rstrip()}\n```")
        if event.warning:
            content = _text_content(event.warning) + content
        return schema.ToolCallUpdate(
            tool_call_id=event.call_id,
            title=tool_title(event.name, event.summary),
            kind=TOOL_KINDS.get(event.name, "other"),
            status="pending",
            raw_input=event.input,
            locations=tool_locations(event.input, self.workspace),
            content=content or None,
        )
