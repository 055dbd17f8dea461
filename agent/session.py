"""The session: owns the history, the running turn, the queue and the pending approvals.

Front ends talk to it through ``submit(op)`` (see ``agent/ops.py``) and listen to the events
it emits (``agent/events.py``). It never blocks the caller: a prompt starts a turn task.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agent import events as ev
from agent import ops
from agent.context import estimate_context
from agent.gate import PermissionGate
from agent.loop import Limits, Turn, TurnOutcome
from agent.messages import Message
from agent.model import Model, ModelRequest
from agent.pricing import Usage
from agent.rewind import CheckpointEntry, Rewinder, RewindError, marks_from_transcript
from agent.session_budget import turn_limits
from agent.session_compact import compact_session, maybe_autocompact
from agent.session_config import SessionConfig, prompt_blocks
from agent.session_record import SessionRecorder
from agent.session_rewind import rewind_session
from agent.toolrun import ToolRunner, tool_param
from tools.base import Tool, ToolContext

if TYPE_CHECKING:
    from agent.checkpoints import CheckpointStore
    from agent.repair import LoadedSession
    from agent.store import Transcript

Emit = Callable[[ev.Event], None]


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
        """The context the next call starts from: the last call's prompt and response, or
        an estimate after a compaction, a rewind or a resume that recorded no call."""
        self._cost_at_start = 0.0
        self.recorder = SessionRecorder(emit)
        self.rewinder = Rewinder(None)
        self._emit_fn = emit
        self._write = self.recorder.write
        """Write to the transcript; a failure is reported once and never stops the session."""
        self._turn_ids = itertools.count(1)
        self._task: asyncio.Task[None] | None = None
        self._turn: Turn | None = None
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
        self.spec = ModelRequest(
            config.model,
            system=system,
            tools=[tool_param(t) for t in tools],
            max_tokens=config.max_tokens,
        )
        """The stable request parts; each call sends it with the history as its messages."""

    # -- operations ---------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        return self._task is not None and not self._task.done()

    @property
    def transcript(self) -> Transcript | None:
        """The transcript this session is recorded in, or None."""
        return self.recorder.transcript

    @property
    def run_cost(self) -> float:
        """What this process spent (the session's total, less what it had when resumed)."""
        return self.total_cost - self._cost_at_start

    @property
    def budget_spent(self) -> float:
        """The spend the budget cap is checked against.

        Interactive: the session's total, as the status line shows it (spend before a
        resume counts). Headless (``--max-budget-usd``): this run's spend, as in the result.
        """
        return self.run_cost if self.config.headless else self.total_cost

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
            rewind_session(self, op)
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

    def history_changed(self) -> None:
        """The history was rewritten (not only appended to): check all of it next call."""
        self._checked_upto = 0

    def _emit(self, event: ev.Event) -> None:
        if type(event) is ev.TextDelta:  # thousands a second: nothing to record or keep
            self._emit_fn(event)
            return
        if isinstance(event, ev.UsageUpdated):
            self.context_tokens = event.context_tokens
        if self.transcript is not None:
            if isinstance(event, ev.TodosUpdated):
                self.todos = list(event.todos)
            self.recorder.record_event(event, self.history)
        self._emit_fn(event)

    # -- the transcript ---------------------------------------------------------------------
    def attach_transcript(self, transcript: Transcript) -> None:
        """Record this session in ``transcript``; if it was resumed, continue from it."""
        self.recorder.transcript = transcript
        self.config.session_id = transcript.session_id
        loaded = transcript.loaded
        if loaded is not None:
            self.restore(loaded)

    def restore(self, loaded: LoadedSession) -> None:
        """Continue a saved session: history, queue, cost, context, todos, model and mode."""
        from agent.permissions import MODES

        self.history = loaded.history
        self._checked_upto = 0
        self.context_tokens = (
            loaded.context_tokens if loaded.context_tokens is not None else self.estimate_context()
        )
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

    def estimate_context(self) -> int:
        """Estimate the context of the next request (when no call has measured it)."""
        return estimate_context(self.history, self.spec.system, self.spec.tools)

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
        blocks = prompt_blocks(text, self.config)
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
            turn = self._turn = Turn(
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
                outcome = await turn.run()  # catches every other exit, bugs included
            except asyncio.CancelledError:
                self._finish(turn, TurnOutcome("interrupted", 0, 0, 0.0, Usage()), started)
                raise
            self._checked_upto = turn.checked_upto
            self._finish(turn, outcome, started)
            # Interrupt with a queue sends it at once; a finished turn makes it the next prompt.
            if outcome.subtype in ("success", "interrupted") and self.queue:
                delivered = tuple(self._take_queue())
                text = "\n\n".join(delivered)
                self._interrupt = asyncio.Event()
                continue
            return

    def _turn_limits(self) -> Limits:
        """T per prompt; B on ``budget_spent``, so each turn gets what is left of it."""
        scope = "this run" if self.config.headless else "this session"
        return turn_limits(self.config.limits, self.budget_spent, scope)

    # -- compaction (agent/session_compact.py) ------------------------------------------------
    async def _maybe_autocompact(self, turn: Turn) -> bool:
        return await maybe_autocompact(self, turn)

    async def _manual_compact(self, focus: str) -> None:
        await self.compact(focus, turn_id=0, automatic=False)

    async def compact(self, focus: str = "", *, turn_id: int = 0, automatic: bool = False) -> bool:
        """Replace the history by a summary plus the recent turns. False if it failed."""
        return await compact_session(self, focus, turn_id=turn_id, automatic=automatic)

    def _finish(self, turn: Turn, outcome: TurnOutcome, started: float) -> None:
        self._turn = None
        self.total_cost += turn.cost
        self.total_usage = self.total_usage + turn.usage
        self.turn_count += turn.turns
        self._emit(
            ev.TurnFinished(
                turn.turn_id,
                outcome.subtype,
                turn.turns,
                turn.calls,
                turn.cost,
                self.total_cost,
                int((time.monotonic() - started) * 1000),
                turn.usage.to_dict(),
                outcome.result,
                outcome.error,
                outcome.stop_reason,
                outcome.dropped_tool_calls,
            )
        )
