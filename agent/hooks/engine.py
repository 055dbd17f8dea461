"""The hooks of one session: one adapter per event, called where the engine acts.

``HookEngine`` builds each event's stdin object (the common fields, ``session_id``,
``transcript_path``, ``cwd``, ``permission_mode``, ``hook_event_name``, and the event's own),
runs the matching handlers in parallel, reports every run (``events.HookRan``) and every hook
error (``events.Notice``), and returns the combined :class:`HookVerdict`. The callers decide
what a verdict does (agent/session/gate.py, agent/turn/runner.py, agent/turn/loop.py,
agent/session/core.py, agent/session/compaction.py), so hooks stay parts of the loop's gate
and exec and every promise of docs/loop.md holds through them.

Every adapter is awaited inside the running turn (or the session's task), so Esc cancels it
and the runner kills each handler's process group.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from agent import events as ev
from agent.hooks.config import HookConfig, HookHandler
from agent.hooks.outcome import HookVerdict, cap_for_model, combine, interpret
from agent.hooks.runner import HandlerRun, run_handlers
from agent.messages import ToolUseBlock
from tools.base import ToolResult

SESSION_END_MAX_S = 5.0
"""SessionEnd hooks may hold up eddy's exit this long at most (then they are killed)."""
IDLE_NOTIFY_S = 60.0
"""Seconds of waiting for the user before the ``idle_prompt`` Notification (Claude Code's)."""
OUTPUT_EXCERPT_CHARS = 300
_PATH_KEYS = ("file_path", "path", "notebook_path")

Emit = Callable[[ev.Event], None]
HandlersRunner = Callable[
    [Sequence[HookHandler], dict[str, Any], Path], Awaitable[list[HandlerRun]]
]
"""Runs hook handlers on one payload; their runs in the handlers' order (cancellable)."""


def _excerpt(run: HandlerRun, suppressed: bool = False) -> str:
    stdout = "" if suppressed else run.stdout.strip()
    text = (stdout or run.stderr.strip() or run.error).strip()
    return text if len(text) <= OUTPUT_EXCERPT_CHARS else text[:OUTPUT_EXCERPT_CHARS] + " ..."


def _cancelled(tid: int, event: str, h: HookHandler, hook_id: str, ms: int) -> ev.HookRan:
    """The HookRan of a handler Esc killed (its process group is gone)."""
    text = "cancelled: the user interrupted"
    return ev.HookRan(
        tid, event, h.command, h.source, None, "cancelled", None, text, "", "", ms, hook_id
    )


def _result_text(result: ToolResult) -> str:
    if isinstance(result.content, str):
        return result.content
    return "\n".join(b.get("text", "") for b in result.content if b.get("type") == "text")


class HookEngine:
    """Runs one session's hooks.

    Args:
        config: the merged hook configuration.
        project_dir: the workspace (handlers run there; ``CLAUDE_PROJECT_DIR``).
        emit: the session's event sink.
        common: returns the common stdin fields (session id, transcript path, mode).
        turn_id: returns the current turn's id (for events).
        runner: runs the matching handlers on the payload (default: each as a command,
            agent/hooks/runner.py); an Agent SDK's hook callbacks are run by sending them
            over its control channel instead, and read like a command's JSON output.
    """

    def __init__(
        self,
        config: HookConfig,
        project_dir: Path,
        emit: Emit,
        common: Callable[[], dict[str, Any]] | None = None,
        turn_id: Callable[[], int] | None = None,
        runner: HandlersRunner = run_handlers,
    ) -> None:
        self.config = config
        self._runner = runner
        self.project_dir = Path(project_dir)
        self._emit = emit
        self._common = common or (lambda: {})
        self._turn_id = turn_id or (lambda: ev.NO_TURN)
        self.pending_context: list[str] = []
        """SessionStart output waiting for the next prompt (it joins that user message)."""
        self.started = False
        """SessionStart ran for this session."""
        self.start_source = "startup"
        """SessionStart's source for a session that resumes nothing (``clear`` after /clear)."""
        self.idle_seconds = IDLE_NOTIFY_S
        self._background: set[asyncio.Task[Any]] = set()
        self._idle: asyncio.Task[Any] | None = None

    def has(self, event: str) -> bool:
        """Whether a hook is configured for ``event`` (callers skip all work otherwise)."""
        return self.config.has(event)

    async def run(
        self, event: str, value: str | None, fields: dict[str, Any], turn_id: int | None = None
    ) -> HookVerdict:
        """Run ``event``'s handlers matching ``value`` on ``fields``; report and combine."""
        handlers = self.config.handlers_for(event, value)
        if not handlers:
            return HookVerdict()
        payload = {
            "session_id": "",
            "transcript_path": "",
            "cwd": str(self.project_dir),
            "permission_mode": "default",
            **self._common(),
            "hook_event_name": event,
            **fields,
        }
        tid = self._turn_id() if turn_id is None else turn_id
        ids = [f"hook_{uuid.uuid4().hex[:16]}" for _ in handlers]
        for h, hook_id in zip(handlers, ids, strict=True):  # they start together
            self._emit(ev.HookStarted(tid, event, h.command, h.source, hook_id))
        started = time.monotonic()
        try:
            runs = await self._runner(handlers, payload, self.project_dir)
        except asyncio.CancelledError:  # Esc: each started hook still gets its one HookRan
            ms = int((time.monotonic() - started) * 1000)
            for h, hook_id in zip(handlers, ids, strict=True):
                self._emit(_cancelled(tid, event, h, hook_id, ms))
            raise
        verdicts = [interpret(run, event) for run in runs]
        for run, verdict, hook_id in zip(runs, verdicts, ids, strict=True):
            self._report(tid, event, run, verdict, hook_id)
        combined = combine(verdicts)
        for notice in combined.notices:
            self._emit(ev.Notice(tid, notice))
        if combined.system_message:
            self._emit(ev.Notice(tid, f"{event} hook: {combined.system_message}"))
        if combined.stop:
            why = combined.stop_reason or "a hook returned continue: false"
            self._emit(ev.Notice(tid, f"{event} hook stopped eddy: {why}"))
        combined.reason = cap_for_model(combined.reason)
        combined.context = cap_for_model(combined.context)
        return combined

    def _report(
        self, tid: int, event: str, run: HandlerRun, verdict: HookVerdict, hook_id: str
    ) -> None:
        if run.failed and not verdict.blocked:
            outcome = "error"
        elif verdict.blocked or run.exit_code == 2:
            outcome = "blocked"
        else:
            outcome = "success"
        h = run.handler
        self._emit(
            ev.HookRan(
                tid,
                event,
                h.command,
                h.source,
                run.exit_code,
                outcome,
                verdict.decision,
                _excerpt(run, verdict.suppress_output),
                "" if verdict.suppress_output else run.stdout,  # not shown, not kept
                run.stderr,
                run.duration_ms,
                hook_id,
                verdict.suppress_output,
            )
        )

    # -- the tool events ----------------------------------------------------------------
    def tool_input(self, tool_input: dict[str, Any]) -> dict[str, Any]:
        """The input as hooks see it: file paths absolute (Claude Code sends them so)."""
        out = dict(tool_input)
        for key in _PATH_KEYS:
            value = out.get(key)
            if isinstance(value, str) and value and not Path(value).expanduser().is_absolute():
                out[key] = str(self.project_dir / value)
        return out

    async def pre_tool_use(self, use: ToolUseBlock) -> HookVerdict:
        """PreToolUse for one call: allow, deny, ask, updatedInput, additionalContext."""
        fields = {
            "tool_name": use.name,
            "tool_input": self.tool_input(use.input),
            "tool_use_id": use.id,
        }
        return await self.run("PreToolUse", use.name, fields)

    async def post_tool_use(
        self, use: ToolUseBlock, tool_input: dict[str, Any], result: ToolResult
    ) -> tuple[ToolResult, str | None]:
        """PostToolUse (or PostToolUseFailure, for a failed call) after one call ran: a block's
        reason and any additionalContext are added to the result the model reads.

        Returns:
            The result the model reads, and why the turn must end after this batch (a hook's
            ``continue: false``) or None.
        """
        event = "PostToolUseFailure" if result.is_error else "PostToolUse"
        if not self.has(event):
            return result, None
        text = _result_text(result)
        fields: dict[str, Any] = {
            "tool_name": use.name,
            "tool_input": self.tool_input(tool_input),
            "tool_use_id": use.id,
        }
        if result.is_error:
            fields["error"] = text
        else:
            fields["tool_response"] = {"content": text, **(result.display or {})}
        verdict = await self.run(event, use.name, fields)
        notes = []
        if verdict.blocked:
            notes.append(f"{event} hook feedback: {verdict.reason}")
        if verdict.context.strip():
            notes.append(f"{event} hook context: {verdict.context}")
        halt = None
        if verdict.stop:
            why = verdict.stop_reason or "a hook returned continue: false"
            halt = f"a {event} hook stopped eddy: {why}"
        return result.with_note("\n\n".join(notes)), halt

    async def on_stop(self, history: list[Any], stop_hook_active: bool) -> str | None:
        """``Turn.on_stop``: the Stop hooks' block reason (the model's next prompt), or None
        to let the turn end (no block, or a hook said ``continue: false``)."""
        if not self.has("Stop"):
            return None
        last = history[-1] if history else None
        text = last.text if last is not None and last.role == "assistant" else ""
        verdict = await self.stop(stop_hook_active, text)
        if verdict.stop or not verdict.blocked or not verdict.reason.strip():
            return None
        return verdict.reason

    # -- the conversation events --------------------------------------------------------
    async def user_prompt_submit(self, prompt: str) -> HookVerdict:
        """UserPromptSubmit: context for the prompt, or a block (the prompt is not sent)."""
        return await self.run("UserPromptSubmit", None, {"prompt": prompt}, ev.NO_TURN)

    async def stop(self, stop_hook_active: bool, last_message: str = "") -> HookVerdict:
        """Stop, when the model has answered: a block's reason is the model's next prompt."""
        fields = {"stop_hook_active": stop_hook_active, "last_assistant_message": last_message}
        return await self.run("Stop", None, fields)

    async def subagent_stop(
        self, agent_id: str, agent_type: str, stop_hook_active: bool, transcript_path: str = ""
    ) -> HookVerdict:
        """SubagentStop, for the subagent runner to call when a subagent has answered; a
        block's reason (``verdict.reason``) becomes the subagent's next prompt."""
        fields = {
            "stop_hook_active": stop_hook_active,
            "agent_id": agent_id,
            "agent_type": agent_type,
            "agent_transcript_path": transcript_path,
        }
        return await self.run("SubagentStop", agent_type or None, fields)

    async def session_start(self, source: str) -> None:
        """SessionStart (startup, resume, clear, compact): its output waits for the next prompt."""
        self.started = True
        verdict = await self.run("SessionStart", source, {"source": source}, ev.NO_TURN)
        if verdict.context.strip():
            self.pending_context.append(verdict.context)

    def take_context(self) -> list[str]:
        """The SessionStart context not delivered yet (it joins the next prompt)."""
        taken, self.pending_context = self.pending_context, []
        return taken

    async def session_end(self, reason: str) -> None:
        """SessionEnd (``clear`` after /clear, ``logout``, ``prompt_input_exit`` when the user
        quit at the prompt: /exit, Ctrl+D, Ctrl+C twice; ``other``: a signal, the end of piped
        input, /resume): it cannot block, and it may delay the exit by
        :data:`SESSION_END_MAX_S` at most."""
        if not self.has("SessionEnd"):
            return
        work = self.run("SessionEnd", reason, {"reason": reason}, ev.NO_TURN)
        try:
            await asyncio.wait_for(work, SESSION_END_MAX_S)
        except TimeoutError:
            text = f"SessionEnd hooks still ran after {SESSION_END_MAX_S:g} s; they were killed."
            self._emit(ev.Notice(ev.NO_TURN, text))

    async def before_prompt(self, prompt: str, resumed: bool) -> tuple[str | None, list[str]]:
        """SessionStart (the first time), then UserPromptSubmit, before a prompt is sent.

        Returns:
            Why the prompt must not be sent (None: send it), and the hooks' context to add
            to it as text blocks.
        """
        if not self.started:
            await self.session_start("resume" if resumed else self.start_source)
        verdict = await self.user_prompt_submit(prompt)
        if verdict.stop:
            return verdict.stop_reason or "A UserPromptSubmit hook stopped eddy.", []
        if verdict.blocked:
            return verdict.reason or "Blocked by a UserPromptSubmit hook.", []
        context = [f"SessionStart hook context:\n{c}" for c in self.take_context()]
        if verdict.context.strip():
            context.append(f"UserPromptSubmit hook context:\n{verdict.context}")
        return None, context

    async def pre_compact(self, trigger: str, instructions: str, turn_id: int) -> HookVerdict:
        """PreCompact (manual or auto): a block keeps the conversation as it is."""
        fields = {"trigger": trigger, "custom_instructions": instructions}
        return await self.run("PreCompact", trigger, fields, turn_id)

    # -- notifications (never awaited by the engine: the user is waiting) -------------------
    def notify(self, message: str, kind: str) -> None:
        """Notification in the background (``permission_prompt``, ``idle_prompt``)."""
        if not self.has("Notification"):
            return
        fields = {"message": message, "notification_type": kind}
        task = asyncio.get_running_loop().create_task(self.run("Notification", kind, fields))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def idle_started(self) -> None:
        """The session waits for the user: notify once after ``idle_seconds``."""
        self.idle_ended()
        if not self.has("Notification"):
            return

        async def later() -> None:
            await asyncio.sleep(self.idle_seconds)
            self.notify("Claude is waiting for your input", "idle_prompt")

        self._idle = asyncio.get_running_loop().create_task(later())

    def idle_ended(self) -> None:
        """The user is back (a prompt): no idle notification."""
        if self._idle is not None:
            self._idle.cancel()
            self._idle = None

    async def aclose(self) -> None:
        """Stop the idle timer and every background notification (killing their hooks)."""
        self.idle_ended()
        tasks = list(self._background)
        for task in tasks:
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(*tasks, return_exceptions=True)
