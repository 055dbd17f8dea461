"""``eddy -p --output-format stream-json``: Claude Code's message stream, so scripts written for
``claude -p --output-format stream-json --verbose`` read eddy's output unchanged.

One JSON object per line, in the order Claude Code prints them:

- ``{"type": "system", "subtype": "init", ...}``: the session id, model, tools, workspace, and
  ``mcp_servers`` (each server's name and status, once they finished starting);
- ``{"type": "system", "subtype": "informational", "level": "error", ...}``: an MCP server
  that failed (its name and why), as Claude Code says such things;
- ``{"type": "assistant", "message": {...}}``: each assistant message as it entered the history
  (text, thinking and tool_use blocks, the API's shapes);
- ``{"type": "user", "message": {...}}``: each tool result (one line per result, as Claude Code
  does), and corrections queued while the turn ran;
- ``{"type": "stream_event", "event": {...}}``: with ``--include-partial-messages``, each raw
  API stream event of the main agent as it arrives (before its ``assistant`` line);
- ``{"type": "result", ...}``: last, the outcome (``headless/run.py`` writes it).

Every line but the result carries ``session_id``, ``uuid`` and ``parent_tool_use_id``: null
for the main agent's lines, the Agent call's tool_use id for a subagent's (its assistant
messages and tool results, as Claude Code prints them). eddy's own richer events (deltas, permission
questions, usage) are ``--output-format eddy-events``.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Callable
from typing import IO, Any, ClassVar

from agent import events as ev
from frontend.event_table import EventTable


def _api_key_source() -> str:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"):
        if os.environ.get(name):
            return name
    return "none"


def _uuid() -> str:
    return str(uuid.uuid4())


class ClaudeStream:
    """Turns engine events into Claude Code's stream-json lines on ``out``.

    Events that come before :meth:`start` (while the session is being opened) are held and
    written right after the init line, so the init line is always first.
    """

    def __init__(self, out: IO[str], *, hook_events: bool = True) -> None:
        self.out = out
        self.hook_events = hook_events
        """Write hook runs (``hook_started`` / ``hook_response``); an Agent SDK asks for them
        with ``--include-hook-events``."""
        self.session_id = ""
        self.model = ""
        self.permission_denials: list[dict[str, Any]] = []
        """The refused tool calls, as Claude Code's result lists them."""
        self._held: list[ev.Event] | None = []
        self._usage: dict[str, int] = {}
        self._inputs: dict[str, dict[str, Any]] = {}

    def start(
        self,
        *,
        session_id: str,
        model: str,
        cwd: str,
        tools: list[str],
        permission_mode: str,
        mcp_servers: list[dict[str, str]] | None = None,
        **extra: Any,
    ) -> None:
        """Write the ``system`` ``init`` line (with ``extra`` fields), then whatever came
        before it. With stream-json input it is written again at each turn, as Claude Code
        does.

        Args:
            mcp_servers: each MCP server's ``name`` and ``status`` (``connected``, ``failed``,
                ...), as Claude Code lists them.
        """
        self.session_id, self.model = session_id, model
        self._write(
            {
                "type": "system",
                "subtype": "init",
                "cwd": cwd,
                "session_id": session_id,
                "tools": tools,
                "mcp_servers": list(mcp_servers or []),
                "model": model,
                "permissionMode": permission_mode,
                "apiKeySource": _api_key_source(),
                "output_style": "default",
                "uuid": _uuid(),
                **extra,
            }
        )
        held, self._held = self._held or [], None
        for event in held:
            self.event(event)

    def hold(self) -> None:
        """Hold the events until the next :meth:`start` (a turn's init line is due first)."""
        if self._held is None:
            self._held = []

    def event(self, event: ev.Event) -> None:
        """Write the line(s) ``event`` stands for (most events have none in this format; each
        event type's handler is in ``HANDLERS``, which names every type)."""
        if self._held is not None:
            self._held.append(event)
            return
        handler = self.HANDLERS.get(event)
        if handler is not None:
            handler(self, event)

    def stream_event(self, event: dict[str, Any]) -> None:
        """Claude Code's ``stream_event`` line (``--include-partial-messages``): one raw
        Messages API stream event of the main agent, as it arrived."""
        self._write(
            {
                "type": "stream_event",
                "event": event,
                "parent_tool_use_id": None,
                "session_id": self.session_id,
                "uuid": _uuid(),
            }
        )

    def result(self, result: dict[str, Any]) -> None:
        """Write a result line (``headless.run.result_object``), with Claude Code's
        ``permission_denials`` (the calls refused since the previous result) and ``uuid``."""
        self._write({**result, "permission_denials": self.permission_denials, "uuid": _uuid()})
        self.permission_denials = []

    def write(self, line: dict[str, Any]) -> None:
        """Write one more line of the protocol (control requests and responses, an Agent
        SDK's system messages), in order with the messages."""
        self._write(line)

    def _usage_updated(self, event: ev.UsageUpdated) -> None:
        self._usage = dict(event.usage)  # it comes just before its message

    def _tool_call_started(self, event: ev.ToolCallStarted) -> None:
        self._inputs[event.call_id] = event.input

    def _error(self, event: ev.Error) -> None:
        """An MCP server that failed, as Claude Code's notice (the others go to stderr:
        headless/run.py)."""
        if event.kind != "mcp":
            return
        self._write(
            {
                "type": "system",
                "subtype": "informational",
                "content": event.message,
                "level": "error",
                "tag": "mcp_server_failed",
                "session_id": self.session_id,
                "uuid": _uuid(),
            }
        )

    def _corrections(self, event: ev.CorrectionsDelivered) -> None:
        texts = [{"type": "text", "text": t} for t in event.texts if t.strip()]
        if texts:
            self._message("user", {"role": "user", "content": texts})

    def _assistant(self, event: ev.AssistantMessage) -> None:
        message = {
            "id": f"msg_{uuid.uuid4().hex[:24]}",
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": event.message.get("content", []),
            "stop_reason": event.stop_reason,
            "stop_sequence": None,
            "usage": self._usage,
        }
        self._usage = {}
        self._message("assistant", message)

    def _tool_result(self, event: ev.ToolCallFinished) -> None:
        block = {
            "type": "tool_result",
            "tool_use_id": event.call_id,
            "content": event.content,
            "is_error": event.is_error,
        }
        if event.status == "refused":
            self.permission_denials.append(
                {
                    "tool_name": event.name,
                    "tool_use_id": event.call_id,
                    "tool_input": self._inputs.get(event.call_id, {}),
                }
            )
        self._message("user", {"role": "user", "content": [block]})

    def _hook_started(self, event: ev.HookStarted) -> None:
        """Claude Code's ``system`` / ``hook_started`` line: a hook began; its
        ``hook_response`` follows with the same ``hook_id``."""
        if not self.hook_events:
            return
        self._write(
            {
                "type": "system",
                "subtype": "hook_started",
                "hook_id": event.hook_id,
                "hook_name": event.command,
                "hook_event": event.hook_event,
                "session_id": self.session_id,
                "uuid": _uuid(),
            }
        )

    def _hook_response(self, event: ev.HookRan) -> None:
        """Claude Code's ``system`` / ``hook_response`` line for one hook run (outcome
        ``success``, ``error`` or ``cancelled``; a block is Claude Code's ``error``)."""
        if not self.hook_events:
            return
        outcome = event.outcome if event.outcome in ("success", "cancelled") else "error"
        self._write(
            {
                "type": "system",
                "subtype": "hook_response",
                "hook_id": event.hook_id or _uuid(),
                "hook_name": event.command,
                "hook_event": event.hook_event,
                "output": event.output,
                "stdout": event.stdout,
                "stderr": event.stderr,
                "exit_code": event.exit_code,
                "outcome": outcome,
                "session_id": self.session_id,
                "uuid": _uuid(),
            }
        )

    def _subagent(self, event: ev.SubagentEvent) -> None:
        """A child's messages, as Claude Code prints a subagent's: with the Agent call's id
        as ``parent_tool_use_id``."""
        inner = event.event
        if inner.get("type") == "assistant_message":
            message = {
                "id": f"msg_{uuid.uuid4().hex[:24]}",
                "type": "message",
                "role": "assistant",
                "model": self.model,
                "content": inner.get("message", {}).get("content", []),
                "stop_reason": inner.get("stop_reason"),
                "stop_sequence": None,
                "usage": {},
            }
            self._message("assistant", message, event.call_id)
        elif inner.get("type") == "tool_call_finished":
            block = {
                "type": "tool_result",
                "tool_use_id": inner.get("call_id"),
                "content": inner.get("content"),
                "is_error": inner.get("is_error"),
            }
            self._message("user", {"role": "user", "content": [block]}, event.call_id)

    def _message(self, kind: str, message: dict[str, Any], parent: str | None = None) -> None:
        self._write(
            {
                "type": kind,
                "message": message,
                "parent_tool_use_id": parent,
                "session_id": self.session_id,
                "uuid": _uuid(),
            }
        )

    def _write(self, line: dict[str, Any]) -> None:
        self.out.write(json.dumps(line, default=str) + "\n")
        self.out.flush()

    HANDLERS: ClassVar[EventTable[Callable[[ClaudeStream, Any], None]]] = EventTable(
        "the stream-json writer",
        {
            ev.UsageUpdated: _usage_updated,
            ev.ToolCallStarted: _tool_call_started,
            ev.AssistantMessage: _assistant,
            ev.ToolCallFinished: _tool_result,
            ev.HookStarted: _hook_started,
            ev.HookRan: _hook_response,
            ev.SubagentEvent: _subagent,
            ev.Error: _error,
            ev.CorrectionsDelivered: _corrections,
        },
        # errors go to stderr (headless/run.py); the outcome is the result line
        ignored=(
            ev.TurnStarted,
            ev.ModelCallStarted,
            ev.TextDelta,
            ev.ThinkingDelta,
            ev.ToolCallRunning,
            ev.ToolOutputDelta,
            ev.PermissionRequested,
            ev.PermissionResolved,
            ev.QuestionsAsked,
            ev.QuestionsAnswered,
            ev.PlanReviewRequested,
            ev.PlanReviewed,
            ev.QueueChanged,
            ev.TodosUpdated,
            ev.Notice,
            ev.PromptBlocked,
            ev.Interrupted,
            ev.PermissionModeChanged,
            ev.SessionRenamed,
            ev.Compacted,
            ev.RewindFinished,
            ev.TurnFinished,
            ev.BackgroundChanged,
            ev.BackgroundReported,  # -p and the SDK mode write task_notification
        ),
    )
    """Each event type's lines: a handler, or none for the types named in ``ignored``."""
