"""The session: owns the history, the running turn, the queue and the pending approvals.

Front ends talk to it through ``submit(op)`` (see ``agent/ops.py``), listen to the events it
emits (``agent/events.py``) and read ``status()``. It never blocks the caller: a prompt starts
a turn task. It owns its resources: ``close()`` releases the model, the transcript and the
checkpoint store.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, assert_never

from agent import events as ev
from agent import ops
from agent.checkpoints.rewind_list import (
    CheckpointEntry,
    Rewinder,
    RewindError,
    marks_from_transcript,
)
from agent.checkpoints.settle import CheckpointSettler
from agent.extension import Extension, Extensions
from agent.messages import Message, TextBlock
from agent.model.pricing import context_window
from agent.model.protocol import Model, ModelRequest
from agent.sandbox.runner import Sandbox
from agent.session.budget import Spend
from agent.session.checkpoint_hooks import CheckpointHooks
from agent.session.command_prompt import has_extras, run_command_prompt
from agent.session.compaction import Compactor
from agent.session.config import SessionConfig, ToolSetup, prompt_blocks
from agent.session.conversation import Conversation, CorrectionQueue
from agent.session.dialogs import SessionDialogs
from agent.session.gate import PathAccess, PermissionGate
from agent.session.record import SessionRecorder
from agent.session.reports import BackgroundReports
from agent.session.shells import ShellRegistry
from agent.session.side_model import side_query
from agent.session.status import SessionStatus
from agent.session.turns import PromptRunner, StopSignal
from agent.turn.runner import ToolRunner
from agent.turn.toolset import ToolSet
from tools.base import EditorTools, Tool, ToolContext, ToolLimits

if TYPE_CHECKING:
    from agent.checkpoints.engine import CheckpointStore
    from agent.store.load import LoadedSession
    from agent.store.transcript import Transcript

Emit = Callable[[ev.Event], None]
X = TypeVar("X")


class Session:
    """One conversation with the model, driven by operations.

    Args:
        config: the session's settings.
        model: the model (Anthropic client or scripted).
        tools: the tools offered to the model.
        emit: receives every event, synchronously, on the event loop's thread.
        setup: what the front door gives the tools' context (agent/open.py); None: the
            workspace alone.
    """

    def __init__(
        self,
        config: SessionConfig,
        model: Model,
        tools: ToolSet | list[Tool],
        emit: Emit,
        setup: ToolSetup | None = None,
    ) -> None:
        self.config = config
        self.model = model
        self.todos: list[dict[str, Any]] = []
        self.title: str | None = None
        """The title given by ``ops.Rename`` (or found on resume)."""
        self.spend = Spend()
        self.recorder = SessionRecorder(emit)
        self.rewinder = Rewinder(None)
        self._emit_fn = emit
        self._write = self.recorder.write
        """Write to the transcript; a failure is reported once and never stops the session."""
        self.corrections = CorrectionQueue(self._write, self.emit)
        self._task: asyncio.Task[None] | None = None
        self.stop = StopSignal()
        """Esc for the running work (a turn, a ``!command``, a custom command's snippets)."""
        self._closed = False
        self._side_tasks: set[asyncio.Task[None]] = set()
        self.extensions = Extensions(self.emit, lambda: self.runner.turn_id)
        """What plugs into this session (agent/extension.py), in the order registered."""
        self.tools = tools if isinstance(tools, ToolSet) else ToolSet(tools, config.server_tools)
        """The tools: what a call's name finds and what each request offers."""
        self.reports = BackgroundReports(
            self.emit,
            busy=lambda: self.busy,
            start=lambda: self._spawn(self.prompts.run("", by_reports=True)),
            refusal=lambda: self.prompts.held_reason(),
            turn_id=lambda: self.runner.turn_id,
            limit=config.self_started_turns,
        )
        """What background work reports when it ends, and the turns those reports start
        (agent/session/reports.py)."""
        self._tool_parts(setup or ToolSetup(), model)
        self._prompt_parts(model)

    def _tool_parts(self, setup: ToolSetup, model: Model) -> None:
        """The tools' context, built once with the session's parts (the background shells,
        the dialogs, the checkpoint hooks, the gate's path answers), the gate and the runner."""
        config = self.config
        self.shells = ShellRegistry(
            ToolLimits(), setup.output_dir, self.background_changed, self.reports
        )
        """Background shells (Bash ``run_in_background``, Ctrl+B); they outlive turns."""
        self.dialogs = SessionDialogs(
            self.emit,
            lambda: self.runner.turn_id,
            lambda: config.policy.mode,
            self.set_mode,
        )
        """AskUserQuestion and ExitPlanMode ask through it; headless, nobody can answer."""
        self.checkpoint_hooks = CheckpointHooks(self.shells.catch_up)
        """The tools' checkpoint hooks: they record in the store ``attach_checkpoints`` gives."""
        sandbox = Sandbox(config.sandbox)
        paths = PathAccess(config.policy, config.workspace)
        editor = setup.editor or EditorTools()
        self.ctx = ToolContext(
            config.workspace,
            extra_dirs=setup.extra_dirs,
            limits=self.shells.limits,
            paths=paths,
            checkpoints=self.checkpoint_hooks,
            sandbox=sandbox,
            ask_model=setup.ask_model or side_query(model),  # WebFetch's questions
            client_files=editor.files,
            client_terminal=editor.terminal,
            output_dir=setup.output_dir,
            shells=self.shells,
            dialogs=None if config.headless else self.dialogs,
        )
        """The tools' context: built here, once; calls and subagents get copies of it."""
        self.gate = PermissionGate(
            config.policy,
            self.ctx,
            self.emit,
            lambda: self.runner.turn_id,
            config.workspace,
            headless=config.headless,
            save_rules=config.save_rules,
            sandbox=sandbox,
            paths=paths,
        )
        self.gate.extensions = self.extensions
        self.runner = ToolRunner(self.tools, self.ctx, self.gate, self.emit, self.extensions)

    def _prompt_parts(self, model: Model) -> None:
        """The stable request parts, the conversation, the compactor and the prompt runner."""
        config = self.config
        system = [{"type": "text", "text": config.system}] if config.system else []
        self.spec = ModelRequest(
            config.model, system=system, max_tokens=config.max_tokens, thinking=config.thinking
        )
        """The stable request parts; each call sends them with the tool set's parameters and
        the history as its messages."""
        self.conversation = Conversation(self.spec, self.tools)
        self.compactor = Compactor(
            model, self.spec, self.tools, config, self.conversation, self._write, self.emit
        )
        self.compactor.extensions = self.extensions
        self.prompts = PromptRunner(
            config=config,
            conversation=self.conversation,
            corrections=self.corrections,
            spend=self.spend,
            model=model,
            spec=self.spec,
            runner=self.runner,
            extensions=self.extensions,
            compactor=self.compactor,
            shells=self.shells,
            reports=self.reports,
            stop=self.stop,
            emit=self.emit,
            add_prompt=self.add_prompt,
            add_reports=self.add_reports,
            report_checkpoint_error=self.report_checkpoint_error,
        )
        """Runs each prompt's turn (agent/session/turns.py)."""

    def extension(self, kind: type[X]) -> X | None:
        """The registered extension of class ``kind`` (e.g. the MCP servers), or None."""
        found: X | None = self.extensions.find(kind)
        return found

    def add_extension(self, extension: Extension) -> None:
        """Register ``extension`` after the others (the front door does, agent/open.py)."""
        self.extensions.add(extension)

    # -- what front ends read -----------------------------------------------------------
    @property
    def busy(self) -> bool:
        """A turn, a ``!command`` or a ``/compact`` is running."""
        return self._task is not None and not self._task.done()

    @property
    def history(self) -> list[Message]:
        """The conversation's messages (read them; only the session changes them)."""
        return self.conversation.history

    @property
    def context_tokens(self) -> int:
        """The context the next call starts from (see ``Conversation.context_tokens``)."""
        return self.conversation.context_tokens

    @property
    def queue(self) -> list[str]:
        """The queued corrections."""
        return self.corrections.items

    @property
    def transcript(self) -> Transcript | None:
        """The transcript this session is recorded in, or None."""
        return self.recorder.transcript

    @property
    def total_cost(self) -> float:
        """The session's spend, including what it had when resumed (``spend`` has more)."""
        return self.spend.total_cost

    @property
    def resumed(self) -> bool:
        """This session continues a saved one (SessionStart's source is ``resume``)."""
        return self.transcript is not None and self.transcript.loaded is not None

    def hook_fields(self) -> dict[str, Any]:
        """The fields every hook's stdin has (the session, its transcript, cwd, mode)."""
        transcript = self.transcript
        return {
            "session_id": self.config.session_id,
            "transcript_path": str(transcript.path) if transcript is not None else "",
            "cwd": str(self.config.workspace),
            "permission_mode": self.config.policy.mode,
        }

    def background_changed(self) -> None:
        """Tell the front ends what runs in the background now (a shell or agent started
        or ended)."""
        host = getattr(self.ctx, "subagents", None)
        agents = len(host.background) if host is not None else 0
        shells = len(self.shells.running())
        self.emit(ev.BackgroundChanged(self.runner.turn_id, shells, agents))

    def status(self) -> SessionStatus:
        """A read-only snapshot of what front ends show (model, mode, cost, context, ...)."""
        config, limits = self.config, self.config.limits
        return SessionStatus(
            session_id=config.session_id,
            title=self.title,
            saved=self.transcript is not None,
            workspace=config.workspace,
            model=config.model,
            mode=config.policy.mode,
            save_rules=config.save_rules,
            busy=self.busy,
            queue=tuple(self.queue),
            total_cost=self.spend.total_cost,
            run_cost=self.spend.run_cost,
            turns=self.spend.turns,
            messages=len(self.history),
            context_tokens=self.context_tokens,
            context_window=context_window(config.model),
            max_turns=limits.max_turns,
            max_budget_usd=limits.max_budget_usd,
            mcp=self.extensions.status(),
        )

    # -- operations ---------------------------------------------------------------------
    def submit(self, op: ops.Op) -> Any:
        """Apply one operation. Never blocks; returns the taken text for ``TakeQueued``."""
        match op:
            case ops.SubmitPrompt() | ops.QueueCorrection():
                self._prompt(op)
            case ops.TakeQueued():
                return self.corrections.take_back(op.index)
            case ops.AnswerPermission() | ops.AnswerQuestions() | ops.AnswerPlan():
                self._answer(op)
            case (
                ops.Interrupt()
                | ops.RunShell()
                | ops.Compact()
                | ops.SendToBackground()
                | ops.KillShell()
                | ops.Shutdown()
            ):
                self._control(op)
            case (
                ops.SetLimits()
                | ops.SetModel()
                | ops.SetPermissionMode()
                | ops.Rename()
                | ops.Rewind()
                | ops.SetOutputStyle()
            ):
                self._configure(op)
            case _:
                assert_never(op)
        return None

    def _prompt(self, op: ops.SubmitPrompt | ops.QueueCorrection) -> None:
        """A prompt, or a correction for the running turn: anything typed while a turn runs
        is a correction for its next call (``@agent-<name> text``: for that running subagent)."""
        if op.text.strip():  # the user is here: reports may start turns again
            self.reports.user_spoke()
        if self.busy:
            host = self.ctx.subagents
            if host is None or not host.route_correction(op.text):
                self.corrections.add(op.text)
        elif isinstance(op, ops.SubmitPrompt) and has_extras(op):
            self._spawn(run_command_prompt(self, op))  # a custom command's prompt
        elif op.text.strip():
            shown = op.shown if isinstance(op, ops.SubmitPrompt) else ""
            self._spawn(self.prompts.run(op.text, shown))

    def _answer(self, op: ops.AnswerPermission | ops.AnswerQuestions | ops.AnswerPlan) -> None:
        """The user's answer to a permission question or a dialog."""
        match op:
            case ops.AnswerPermission():
                self.gate.answer(op)
            case ops.AnswerQuestions() | ops.AnswerPlan():
                self.dialogs.answer(op)
            case _:
                assert_never(op)

    def _control(
        self,
        op: ops.Interrupt
        | ops.RunShell
        | ops.Compact
        | ops.SendToBackground
        | ops.KillShell
        | ops.Shutdown,
    ) -> None:
        """Start, stop or move running work (a turn, a ``!command``, ``/compact``, a shell)."""
        match op:
            case ops.Interrupt():
                if self.busy:
                    self.stop.set()
            case ops.RunShell():
                self._run_shell(op.command)
            case ops.Compact():
                self._compact(op.focus)
            case ops.SendToBackground():
                if not self.shells.detach_foreground():
                    self.emit(ev.Notice(ev.NO_TURN, "No command is running in the foreground."))
            case ops.KillShell():
                self._spawn_side(self._kill_shell(op.shell_id))
            case ops.Shutdown():
                if self._task is not None and self.busy:
                    self._task.cancel()
            case _:
                assert_never(op)

    def _run_shell(self, command: str) -> None:
        """A ``!command``, when no turn runs."""
        if self.busy:
            text = "Wait for the turn to finish (or Esc) to run !commands."
            self.emit(ev.Error(ev.NO_TURN, text, "shell"))
        else:
            self._spawn(self._user_shell(command))

    def _compact(self, focus: str) -> None:
        """``/compact`` now, or queued behind the running turn."""
        if self.busy:
            self.corrections.add(f"/compact {focus}".strip())
        else:
            self._spawn(self.compactor.compact(focus))

    def _configure(
        self,
        op: ops.SetLimits
        | ops.SetModel
        | ops.SetPermissionMode
        | ops.Rename
        | ops.Rewind
        | ops.SetOutputStyle,
    ) -> None:
        """Change the session's settings, its title, or rewind it."""
        match op:
            case ops.SetLimits():
                self._set_limits(op)
            case ops.SetModel():
                self.use_model(op.model)
                self._write(lambda t: t.settings(model=op.model))
                self.emit(ev.Notice(ev.NO_TURN, f"Model set to {op.model}."))
            case ops.SetPermissionMode():
                self.set_mode(op.mode)
            case ops.Rename():
                self._rename(op.title)
            case ops.Rewind():
                self._rewind(op)
            case ops.SetOutputStyle():
                self.emit(self._set_output_style(op.name))
            case _:
                assert_never(op)

    def _set_limits(self, op: ops.SetLimits) -> None:
        """New limits for the next prompts (0 or less: no limit; None: unchanged)."""
        limits = self.config.limits
        if op.max_turns is not None:
            limits.max_turns = op.max_turns if op.max_turns > 0 else None
        if op.max_budget_usd is not None:
            limits.max_budget_usd = op.max_budget_usd if op.max_budget_usd > 0 else None

    def _set_output_style(self, name: str) -> ev.Event:
        """Switch to style ``name`` (``/output-style NAME``); what to tell the user. The system
        prompt is rebuilt at once (the next call misses the prompt cache once)."""
        from agent.prompt.output_styles import DEFAULT, load_styles

        config = self.config
        styles = load_styles(config.workspace, plugins=config.plugins)
        style = styles.get(name.strip().lower())
        if style is None:
            known = ", ".join(s.name for s in styles.values())
            return ev.Error(ev.NO_TURN, f"No output style {name!r}. Styles: {known}.", "style")
        config.output_style = None if style.name == DEFAULT and style.path is None else style
        if config.refresh_system is not None:
            config.system = config.refresh_system()
            self.spec.system = [{"type": "text", "text": config.system}]
        return ev.Notice(ev.NO_TURN, f"Output style set to {style.name} for this session.")

    def replace_model(self, model: Model) -> None:
        """Call ``model`` instead of the session's model client from now on, for prompts and
        compaction (a wrapper that times or taps the calls: headless ``duration_api_ms``)."""
        self.model = self.prompts.model = self.compactor.model = model

    def use_model(self, model: str) -> None:
        """Call ``model`` from the next request on (``ops.SetModel`` also records it)."""
        self.config.model = self.spec.model = model
        if hasattr(self.model, "name"):
            self.model.name = model

    def set_mode(self, mode: str) -> None:
        """Set the permission mode (``ops.SetPermissionMode``; ExitPlanMode through the dialogs)."""
        from agent.permissions.policy import MODES

        if mode not in MODES:
            self.emit(ev.Error(ev.NO_TURN, f"Unknown permission mode {mode!r}.", "mode"))
            return
        self.config.policy.mode = mode  # type: ignore[assignment]
        self._write(lambda t: t.settings(permission_mode=mode))
        self.emit(ev.PermissionModeChanged(mode))

    def _rename(self, title: str) -> None:
        transcript = self.transcript
        if transcript is None:
            text = "This session is not saved, so it has no title to change."
            self.emit(ev.Error(ev.NO_TURN, text, "rename"))
            return
        try:
            transcript.rename(title)
        except (OSError, ValueError) as exc:
            self.emit(ev.Error(ev.NO_TURN, f"Could not rename the session: {exc}", "rename"))
            return
        self.title = title
        self.emit(ev.SessionRenamed(title))

    async def _user_shell(self, command: str) -> None:
        from agent.session.user_shell import run_user_shell

        block = await run_user_shell(self.runner.tools.get("Bash"), self.ctx, self.emit, command)
        if block is not None:
            self.conversation.add_user((block,))
            self._write(lambda t: t.record_history(self.history))

    async def _kill_shell(self, shell_id: str) -> None:
        from tools.base import ToolError
        from tools.task_stop import stop_task

        try:  # a background shell or agent (/bashes kill, /tasks kill): TaskStop's path
            text = await stop_task(shell_id, self.ctx)
        except ToolError as exc:
            self.emit(ev.Error(ev.NO_TURN, str(exc), "shell"))
            return
        self.emit(ev.Notice(ev.NO_TURN, text))

    def _rewind(self, op: ops.Rewind) -> None:
        """Code and/or conversation back to before a prompt; an Error explains a refusal."""
        if self.busy:
            text = "Stop the running turn (Esc) before rewinding."
            self.emit(ev.Error(ev.NO_TURN, text, "rewind"))
            return
        try:
            new, done = self.rewinder.apply(
                op.number, op.mode, op.overwrite_conflicts, self.history
            )
        except RewindError as exc:
            self.emit(ev.Error(ev.NO_TURN, str(exc), "rewind"))
            return
        if new is not None:
            self.conversation.rewrite(new)
            self._write(lambda t: t.record_history(self.history))
            done = dataclasses.replace(done, context_tokens=self.context_tokens)
        self.report_checkpoint_error(ev.NO_TURN)
        self.emit(done)

    async def wait_idle(self) -> None:
        """Wait until no turn is running (including turns the queue starts, and those the
        reports of background work start as the last one ends)."""
        while True:
            task = self._task
            if task is not None and not task.done():
                await asyncio.gather(task, return_exceptions=True)
            elif self.reports.due:  # decided on the loop's next round (call_soon): one yield
                await asyncio.sleep(0)
            else:
                return

    async def close(self, reason: str = "other") -> None:
        """Stop any running turn, then close the model's connection, the transcript and the
        checkpoint store. Safe to call twice; the front ends call nothing else.

        Args:
            reason: SessionEnd's reason: ``clear``, ``logout``, ``prompt_input_exit``, ``other``.
        """
        if self._closed:
            return
        self._closed = True
        self.reports.close()
        self.submit(ops.Shutdown())
        await self.wait_idle()
        await self.shells.close()
        await self.extensions.aclose(reason)
        aclose = getattr(self.model, "aclose", None)
        if aclose is not None:
            await aclose()
        transcript = self.transcript
        if transcript is not None:
            try:
                transcript.close()
            except OSError as exc:  # the last fsync: the session may not resume entirely
                text = f"Could not close the session transcript: {exc}"
                self.emit(ev.Error(ev.NO_TURN, text, "transcript"))
        store = self.rewinder.store
        if store is not None:
            store.close()
            self.report_checkpoint_error(ev.NO_TURN)

    def _spawn_side(self, work: Any) -> None:
        """Run ``work`` beside any turn (it is not the turn: Esc does not stop it)."""
        task = asyncio.get_running_loop().create_task(work)
        self._side_tasks.add(task)
        task.add_done_callback(self._side_tasks.discard)

    def _spawn(self, work: Any) -> None:
        self.stop.renew()
        self._task = asyncio.get_running_loop().create_task(work)
        # idle again: a report that came meanwhile and may start a turn starts it now
        self._task.add_done_callback(lambda _: self.reports.wake())

    def emit(self, event: ev.Event) -> None:
        """The session's event sink: record ``event``, show it to the extensions, hand it to
        the front end (its callers: the session's parts and its extensions)."""
        if type(event) is ev.TextDelta:  # thousands a second: nothing to record or keep
            self._emit_fn(event)
            return
        if isinstance(event, ev.UsageUpdated):
            self.conversation.context_tokens = event.context_tokens
        if self.transcript is not None:
            if isinstance(event, ev.TodosUpdated):
                self.todos = list(event.todos)
            self.recorder.record_event(event, self.history)
        self.extensions.on_event(event)
        self._emit_fn(event)

    # -- the transcript and the checkpoints -------------------------------------------------
    def attach_transcript(self, transcript: Transcript) -> None:
        """Record this session in ``transcript``; if it was resumed, continue from it."""
        self.recorder.transcript = transcript
        self.config.session_id = transcript.session_id
        loaded = transcript.loaded
        if loaded is not None:
            self.restore(loaded)

    def restore(self, loaded: LoadedSession) -> None:
        """Continue a saved session: history, queue, cost, context, todos, model and mode."""
        from agent.permissions.policy import MODES

        self.conversation.load(loaded.history, loaded.context_tokens)
        self.corrections.items = list(loaded.queue)
        self.spend.resume(loaded.total_cost_usd, loaded.turns)
        self.todos = list(loaded.todos)
        self.title = loaded.title
        self.rewinder.marks = marks_from_transcript(
            self.history, loaded.prompts, loaded.checkpoints
        )
        mode = loaded.permission_mode
        if mode in MODES and mode != "bypassPermissions":
            self.config.policy.mode = mode  # type: ignore[assignment]

    def attach_checkpoints(self, store: CheckpointStore) -> None:
        """Capture code changes in ``store`` (before every file change and around shells)."""
        self.rewinder.store = store
        self.checkpoint_hooks.store = store
        settler = CheckpointSettler(
            store, self.report_checkpoint_error, lambda: self.runner.turn_id
        )
        self.add_extension(settler)
        self.shells.attach_checkpoints(store)
        store.prepare_in_background()  # the first snapshot while the first request is out

    def report_checkpoint_error(self, turn_id: int) -> None:
        """A failed checkpoint save (disk full) reaches the user, once until it works again."""
        error = self.rewinder.new_save_error()
        if error is not None:
            text = f"Code {error}; a rewind may not restore the latest file changes."
            self.emit(ev.Error(turn_id, text, "checkpoints"))

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
        return self.conversation.estimate()

    # -- turns (agent/session/turns.py runs them) -----------------------------------------
    def add_prompt(
        self, text: str, delivered: tuple[str, ...] = (), added: tuple[str, ...] = ()
    ) -> None:
        """Append the prompt; after an interrupt it joins the trailing user message.

        Args:
            text: the prompt.
            delivered: the queued corrections this prompt is made of (if it is the queue).
            added: the text blocks that follow it (hook context, MCP resources, reports of
                background work that waited for a prompt).
        """
        mark = self.rewinder.on_prompt(self.history, text)
        blocks = prompt_blocks(text, self.config) + tuple(TextBlock(c) for c in added)
        self.conversation.add_user(blocks)
        self._write(lambda t: t.record_history(self.history, prompt=text, delivered=delivered))
        if mark.checkpoint_id is not None:
            cid = mark.checkpoint_id
            self._write(lambda t: t.checkpoint(mark.keep, id=cid, prompt=text))

    def add_reports(self, texts: tuple[str, ...]) -> None:
        """Append the notifications of background work as the prompt of a turn they start:
        no rewind point (what that turn changes belongs to the last prompt's checkpoint), no
        @-mentions or images read from them (nobody typed them)."""
        self.conversation.add_user(tuple(TextBlock(t) for t in texts))
        self._write(lambda t: t.record_history(self.history))
