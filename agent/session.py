"""The session: owns the history, the running turn, the queue and the pending approvals.

Front ends talk to it through ``submit(op)`` (see ``agent/ops.py``) and listen to the events
it emits (``agent/events.py``). It never blocks the caller: a prompt starts a turn task.
"""

from __future__ import annotations

import asyncio
import itertools
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent import events as ev
from agent import ops
from agent.compact import CompactionError, compact
from agent.gate import PermissionGate
from agent.loop import Limits, RequestSpec, Turn
from agent.messages import Message, TextBlock
from agent.model import Model, ModelRequest, estimate_tokens
from agent.permissions import Policy
from agent.pricing import Usage, context_window
from agent.rewind import CheckpointEntry, Rewinder, RewindError, marks_from_transcript
from agent.toolrun import ToolRunner, tool_param
from tools.base import Tool, ToolContext

if TYPE_CHECKING:
    from agent.checkpoints import CheckpointStore
    from agent.repair import LoadedSession
    from agent.store import Transcript

Emit = Callable[[ev.Event], None]


@dataclass
class SessionConfig:
    """How a session runs.

    Attributes:
        workspace: the directory the agent works in.
        model: the model id used for pricing and requests.
        system: the system prompt text (kept stable for caching).
        limits: T and B for each run of the loop.
        policy: the permission policy.
        headless: no one can answer a permission question: "ask" becomes a refusal.
        max_tokens: max output tokens per response.
    """

    workspace: Path
    model: str
    system: str = ""
    limits: Limits = field(default_factory=Limits)
    policy: Policy = field(default_factory=Policy)
    headless: bool = False
    max_tokens: int = 32_000
    session_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    autocompact: float | None = 0.85
    """Compact automatically when the next call would pass this share of the window."""
    save_rules: bool = True
    """Save "don't ask again" rules to the project's local settings."""
    refresh_system: Callable[[], str] | None = None
    """Rebuilds the system prompt after compaction (memory files are re-read, not summarised)."""


class Session:
    """One conversation with the model, driven by operations.

    Args:
        config: the session's settings.
        model: the model (Anthropic client or scripted).
        tools: the tools offered to the model.
        emit: receives every event, synchronously, on the event loop's thread.
        ctx: the tool context (defaults to one rooted at the workspace).
    """

    def __init__(
        self,
        config: SessionConfig,
        model: Model,
        tools: list[Tool],
        emit: Emit,
        ctx: ToolContext | None = None,
    ) -> None:
        self.config = config
        self.model = model
        self.history: list[Message] = []
        self.queue: list[str] = []
        self.total_cost = 0.0
        self.total_usage = Usage()
        self.turn_count = 0
        self.todos: list[dict[str, Any]] = []
        self.context_tokens = 0
        self._cost_at_start = 0.0
        self.transcript: Transcript | None = None
        self.rewinder = Rewinder(None)
        self._transcript_failed = False
        self._emit_fn = emit
        self._turn_ids = itertools.count(1)
        self._task: asyncio.Task[None] | None = None
        self._interrupt = asyncio.Event()
        self._checked_upto = 0
        self.ctx = ctx or ToolContext(config.workspace)
        self.gate = PermissionGate(
            config.policy,
            self.ctx,
            self._emit,
            lambda: self.runner.turn_id,
            config.workspace,
            headless=config.headless,
            save_rules=config.save_rules,
        )
        self.runner = ToolRunner(tools, self.ctx, self.gate, self._emit)
        system = [{"type": "text", "text": config.system}] if config.system else []
        self.spec = RequestSpec(
            config.model, system, [tool_param(t) for t in tools], config.max_tokens
        )

    # -- operations ---------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        return self._task is not None and not self._task.done()

    def submit(self, op: ops.Op) -> Any:
        """Apply one operation. Never blocks; returns the taken text for ``TakeQueued``."""
        if isinstance(op, (ops.SubmitPrompt, ops.QueueCorrection)):
            # while a turn runs, anything typed is a correction for its next call
            if self.busy:
                self._queue_add(op.text)
            else:
                self._start(op.text)
        elif isinstance(op, ops.TakeQueued):
            if not self.queue:
                return None
            try:
                index = op.index % len(self.queue)
                text = self.queue.pop(index)
            except IndexError:
                return None
            self._write(lambda t: t.unqueued(index, text))
            self._emit(ev.QueueChanged(tuple(self.queue)))
            return text
        elif isinstance(op, ops.Interrupt):
            if self.busy:
                self._interrupt.set()
        elif isinstance(op, ops.AnswerPermission):
            self.gate.answer(op)
        elif isinstance(op, ops.SetLimits):
            limits = self.config.limits
            if op.max_turns is not None:
                limits.max_turns = op.max_turns if op.max_turns > 0 else None
            if op.max_budget_usd is not None:
                limits.max_budget_usd = op.max_budget_usd if op.max_budget_usd > 0 else None
        elif isinstance(op, ops.RunShell):
            if self.busy:
                self._emit(
                    ev.Error(0, "Wait for the turn to finish (or Esc) to run !commands.", "shell")
                )
            else:
                from agent.user_shell import run_user_shell

                self._interrupt = asyncio.Event()
                self._task = asyncio.get_running_loop().create_task(
                    run_user_shell(self, op.command)
                )
        elif isinstance(op, ops.SetModel):
            self.config.model = self.spec.model = op.model
            if hasattr(self.model, "name"):
                self.model.name = op.model
            self._write(lambda t: t.settings(model=op.model))
            self._emit(ev.Notice(0, f"Model set to {op.model}."))
        elif isinstance(op, ops.Rewind):
            self._rewind(op)
        elif isinstance(op, ops.Compact):
            if self.busy:
                self._queue_add(f"/compact {op.focus}".strip())
            else:
                self._interrupt = asyncio.Event()
                self._task = asyncio.get_running_loop().create_task(self._manual_compact(op.focus))
        elif isinstance(op, ops.Shutdown) and self.busy:
            assert self._task is not None
            self._task.cancel()
        return None

    async def wait_idle(self) -> None:
        """Wait until no turn is running (including turns the queue starts)."""
        while self._task is not None and not self._task.done():
            await asyncio.gather(self._task, return_exceptions=True)

    async def close(self) -> None:
        """Stop any running turn and close the model's connection."""
        self.submit(ops.Shutdown())
        await self.wait_idle()
        aclose = getattr(self.model, "aclose", None)
        if aclose is not None:
            await aclose()

    # -- internals ------------------------------------------------------------------------
    def emit_event(self, event: ev.Event) -> None:
        """Emit an event from a helper that acts for the session (``!command``)."""
        self._emit(event)

    def record(self) -> None:
        """Write history changes made outside a turn to the transcript."""
        self._write(lambda t: t.record_history(self.history))

    def _emit(self, event: ev.Event) -> None:
        if isinstance(event, ev.UsageUpdated):
            self.context_tokens = event.context_tokens
        if self.transcript is not None:
            self._record(event)
        self._emit_fn(event)

    # -- the transcript ---------------------------------------------------------------------
    def attach_transcript(self, transcript: Transcript) -> None:
        """Record this session in ``transcript``; if it was resumed, continue from it."""
        self.transcript = transcript
        self.config.session_id = transcript.session_id
        loaded = transcript.loaded
        if loaded is not None:
            self.restore(loaded)

    def restore(self, loaded: LoadedSession) -> None:
        """Continue a saved session: history, queue, cost, todos, model and mode."""
        from agent.permissions import MODES

        self.history = loaded.history
        self._checked_upto = 0
        self.queue = list(loaded.queue)
        self.total_cost = self._cost_at_start = loaded.total_cost_usd
        self.turn_count = loaded.turns
        self.todos = list(loaded.todos)
        self.rewinder.marks = marks_from_transcript(
            self.history, loaded.prompts, loaded.checkpoints
        )
        mode = loaded.permission_mode
        if mode in MODES and mode != "bypassPermissions":
            self.config.policy.mode = mode  # type: ignore[assignment]

    def attach_checkpoints(self, store: CheckpointStore) -> None:
        """Capture code changes in ``store`` (before every file change and around shells)."""
        self.rewinder.store = store
        self.ctx.before_change = store.before_change
        self.ctx.before_shell = store.before_shell
        self.ctx.after_shell = store.after_shell
        self.runner.after_call = store.settle

    def checkpoints(self) -> list[CheckpointEntry]:
        """The rewind list: the prompts of the current branch, then redo entries."""
        return self.rewinder.entries()

    def rewind_conflicts(self, number: int) -> list[str]:
        """Files a rewind to ``number`` would overwrite although the user changed them."""
        try:
            return self.rewinder.conflicts(number)
        except RewindError:
            return []

    def _rewind(self, op: ops.Rewind) -> None:
        if self.busy:
            self._emit(ev.Error(0, "Stop the running turn (Esc) before rewinding.", "rewind"))
            return
        try:
            new, done = self.rewinder.apply(
                op.number, op.mode, op.overwrite_conflicts, self.history
            )
        except RewindError as exc:
            self._emit(ev.Error(0, str(exc), "rewind"))
            return
        if new is not None:
            self.history[:] = new
            self._checked_upto = 0
            self._write(lambda t: t.record_history(self.history))
        self._emit(done)

    def _write(self, action: Callable[[Transcript], Any]) -> None:
        """Write to the transcript; a failure is reported once and never stops the session."""
        if self.transcript is None or self._transcript_failed:
            return
        try:
            action(self.transcript)
        except (OSError, ValueError) as exc:
            self._transcript_failed = True
            self._emit_fn(
                ev.Error(
                    0,
                    f"Could not save the session transcript ({exc}); "
                    "the conversation goes on but will not be resumable.",
                    "transcript",
                )
            )

    def _record(self, event: ev.Event) -> None:
        h = self.history
        if isinstance(event, (ev.AssistantMessage, ev.ModelCallStarted)):
            self._write(lambda t: t.record_history(h))
        elif isinstance(event, ev.CorrectionsDelivered):
            self._write(lambda t: t.record_history(h, delivered=event.texts))
        elif isinstance(event, ev.Interrupted):
            self._write(lambda t: _record_then(t, h, t.interrupt))
        elif isinstance(event, ev.UsageUpdated):
            self._write(lambda t: t.usage(event.usage, event.cost_usd))
        elif isinstance(event, ev.TodosUpdated):
            self.todos = list(event.todos)
            self._write(lambda t: t.todos(event.todos))
        elif isinstance(event, ev.TurnFinished):
            self._write(lambda t: _record_then(t, h, t.sync))

    def _queue_add(self, text: str) -> None:
        if text.strip():
            self.queue.append(text)
            self._write(lambda t: t.queued(text))
            self._emit(ev.QueueChanged(tuple(self.queue)))

    def _take_queue(self) -> list[str]:
        taken, self.queue = self.queue, []
        if taken:
            self._emit(ev.QueueChanged(()))
        return taken

    def add_prompt(self, text: str, delivered: tuple[str, ...] = ()) -> None:
        """Append the prompt; after an interrupt it joins the trailing user message.

        Args:
            text: the prompt.
            delivered: the queued corrections this prompt is made of (if it is the queue).
        """
        mark = self.rewinder.on_prompt(self.history, text)
        blocks: tuple[TextBlock, ...] = (TextBlock(text),)
        if "@" in text:
            from agent.mentions import attachments

            blocks += tuple(TextBlock(a) for a in attachments(text, self.config.workspace))
        if self.config.policy.mode == "plan":
            from agent.permissions import plan_mode_note

            blocks += (TextBlock(f"<system-reminder>{plan_mode_note()}</system-reminder>"),)
        if self.history and self.history[-1].role == "user":
            self.history[-1] = self.history[-1].with_blocks(*blocks)
        else:
            self.history.append(Message("user", blocks))
        self._write(lambda t: t.record_history(self.history, prompt=text, delivered=delivered))
        if mark.checkpoint_id is not None:
            cid = mark.checkpoint_id
            self._write(lambda t: t.checkpoint(mark.keep, id=cid, prompt=text))

    def _start(self, text: str) -> None:
        if not text.strip():
            return
        self._interrupt = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._run(text))

    async def _run(self, text: str) -> None:
        delivered: tuple[str, ...] = ()
        while True:
            turn_id = next(self._turn_ids)
            self.add_prompt(text, delivered)
            self._emit(ev.TurnStarted(turn_id, text))
            started = time.monotonic()
            self.runner.turn_id = turn_id
            turn = Turn(
                before_call=self._maybe_autocompact,
                history=self.history,
                model=self.model,
                spec=self.spec,
                runner=self.runner,
                emit=self._emit,
                take_queue=self._take_queue,
                interrupt=self._interrupt,
                limits=self._turn_limits(),
                turn_id=turn_id,
                checked_upto=self._checked_upto,
            )
            try:
                outcome = await turn.run()
            except asyncio.CancelledError:
                self._finish(turn, "interrupted", started, "")
                raise
            except Exception as exc:  # a bug: report it, keep the session usable
                turn._close_interrupted()
                msg = f"internal error: {type(exc).__name__}: {exc}"
                self._emit(ev.Error(turn_id, msg, "internal"))
                self._finish(turn, "error_during_execution", started, "", msg)
                return
            self._checked_upto = turn.checked_upto
            self._finish(turn, outcome.subtype, started, outcome.result, outcome.error)
            # Interrupt with a queue sends it at once; a finished turn makes it the next prompt.
            if outcome.subtype in ("success", "interrupted") and self.queue:
                delivered = tuple(self._take_queue())
                text = "\n\n".join(delivered)
                self._interrupt = asyncio.Event()
                continue
            return

    def _turn_limits(self) -> Limits:
        """T per prompt; B for the whole session, so each turn gets what is left of it."""
        limits = self.config.limits
        if limits.max_budget_usd is None:
            return Limits(limits.max_turns, None)
        spent = self.total_cost - self._cost_at_start
        return Limits(limits.max_turns, max(0.0, limits.max_budget_usd - spent))

    # -- compaction -------------------------------------------------------------------------
    async def _maybe_autocompact(self, turn: Turn) -> bool:
        threshold = self.config.autocompact
        if threshold is None:
            return False
        window = context_window(self.config.model)
        known = turn.context_tokens or self.context_tokens
        upcoming = known + estimate_tokens(self.history[-1].to_param()) if self.history else 0
        if upcoming < threshold * window:
            return False
        self._emit(ev.Notice(turn.turn_id, "Context nearly full: compacting the conversation."))
        return await self.compact(turn_id=turn.turn_id, automatic=True)

    async def _manual_compact(self, focus: str) -> None:
        await self.compact(focus, turn_id=0, automatic=False)

    async def compact(self, focus: str = "", *, turn_id: int = 0, automatic: bool = False) -> bool:
        """Replace the history by a summary plus the recent turns. False if it failed."""
        request = ModelRequest(
            self.spec.model, self.history, self.spec.system, self.spec.tools, self.spec.max_tokens
        )
        try:
            done = await compact(self.model, request, self.history, focus=focus)
        except CompactionError as exc:
            self._emit(
                ev.Error(
                    turn_id,
                    f"Compaction failed: {exc}. The conversation goes on uncompacted.",
                    "compaction",
                )
            )
            return False
        self.history[:] = done.history  # in place: a running turn shares this list
        self._checked_upto = 0
        self.context_tokens = estimate_tokens([m.to_param() for m in self.history])
        if self.config.refresh_system is not None:
            self.config.system = self.config.refresh_system()
            self.spec.system = [{"type": "text", "text": self.config.system}]
        self._write(lambda t: t.compaction(self.history, done.summary))
        self._emit(
            ev.Compacted(
                turn_id, done.summary, done.dropped_messages, done.kept_messages, automatic
            )
        )
        return True

    def _finish(
        self,
        turn: Turn,
        subtype: ev.TurnSubtype,
        started: float,
        result: str,
        error: str | None = None,
    ) -> None:
        self.total_cost += turn.cost
        self.total_usage = self.total_usage + turn.usage
        self.turn_count += turn.turns
        self._emit(
            ev.TurnFinished(
                turn.turn_id,
                subtype,
                turn.turns,
                turn.calls,
                turn.cost,
                self.total_cost,
                int((time.monotonic() - started) * 1000),
                turn.usage.to_dict(),
                result,
                error,
            )
        )


def _record_then(transcript: Transcript, history: list[Message], then: Callable[[], None]) -> None:
    transcript.record_history(history)
    then()
