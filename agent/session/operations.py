"""How a session applies each operation a front end submits (agent/ops.py): the one
``match`` over the operations and the handlers of those that change the session's settings,
its title, its code and conversation (rewind) or run a ``!command``. Functions of a
:class:`agent.session.core.Session` (its ``submit`` calls ``apply_op``), kept apart so that
core.py keeps the session's state and lifecycle."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, assert_never

from agent import events as ev
from agent import ops
from agent.checkpoints.rewind_list import RewindError
from agent.session.command_prompt import has_extras, run_command_prompt
from agent.session.turns import run_prompt

if TYPE_CHECKING:
    from agent.session.core import Session


def apply_op(session: Session, op: ops.Op) -> Any:
    """Apply one operation to ``session``. Never blocks; returns the taken text for
    ``TakeQueued``."""
    match op:
        case ops.SubmitPrompt() | ops.QueueCorrection():
            # while a turn runs, anything typed is a correction for its next call
            # (``@agent-<name> text``: for that running subagent)
            if session.busy:
                host = session.ctx.subagents
                if host is None or not host.route_correction(op.text):
                    session.corrections.add(op.text)
            elif isinstance(op, ops.SubmitPrompt) and has_extras(op):
                session._spawn(run_command_prompt(session, op))  # a custom command's prompt
            elif op.text.strip():
                session._spawn(run_prompt(session, op.text))
        case ops.TakeQueued():
            return session.corrections.take_back(op.index)
        case ops.Interrupt():
            if session.busy:
                session._interrupt.set()
        case ops.AnswerPermission():
            session.gate.answer(op)
        case ops.AnswerQuestions() | ops.AnswerPlan():
            session.dialogs.answer(op)
        case ops.SetLimits():
            limits = session.config.limits
            if op.max_turns is not None:
                limits.max_turns = op.max_turns if op.max_turns > 0 else None
            if op.max_budget_usd is not None:
                limits.max_budget_usd = op.max_budget_usd if op.max_budget_usd > 0 else None
        case ops.RunShell():
            if session.busy:
                text = "Wait for the turn to finish (or Esc) to run !commands."
                session.emit(ev.Error(ev.NO_TURN, text, "shell"))
            else:
                session._spawn(_user_shell(session, op.command))
        case ops.SetModel():
            session.config.model = session.spec.model = op.model
            if hasattr(session.model, "name"):
                session.model.name = op.model
            session._write(lambda t: t.settings(model=op.model))
            session.emit(ev.Notice(ev.NO_TURN, f"Model set to {op.model}."))
        case ops.SetPermissionMode():
            set_mode(session, op.mode)
        case ops.Rename():
            _rename(session, op.title)
        case ops.Rewind():
            _rewind(session, op)
        case ops.Compact():
            if session.busy:
                session.corrections.add(f"/compact {op.focus}".strip())
            else:
                session._spawn(session.compactor.compact(op.focus))
        case ops.SetOutputStyle():
            from agent.output_styles import set_output_style

            session.emit(set_output_style(session, op.name))
        case ops.SendToBackground():
            if not session.shells.detach_foreground():
                session.emit(ev.Notice(ev.NO_TURN, "No command is running in the foreground."))
        case ops.KillShell():
            session._spawn_side(_kill_shell(session, op.shell_id))
        case ops.Shutdown():
            if session._task is not None and session.busy:
                session._task.cancel()
        case _:
            assert_never(op)
    return None


def set_mode(session: Session, mode: str) -> None:
    """Set the permission mode (``ops.SetPermissionMode``; ExitPlanMode through the dialogs)."""
    from agent.permissions.policy import MODES

    if mode not in MODES:
        session.emit(ev.Error(ev.NO_TURN, f"Unknown permission mode {mode!r}.", "mode"))
        return
    session.config.policy.mode = mode  # type: ignore[assignment]
    session._write(lambda t: t.settings(permission_mode=mode))
    session.emit(ev.PermissionModeChanged(mode))


def _rename(session: Session, title: str) -> None:
    transcript = session.transcript
    if transcript is None:
        text = "This session is not saved, so it has no title to change."
        session.emit(ev.Error(ev.NO_TURN, text, "rename"))
        return
    try:
        transcript.rename(title)
    except (OSError, ValueError) as exc:
        session.emit(ev.Error(ev.NO_TURN, f"Could not rename the session: {exc}", "rename"))
        return
    session.title = title
    session.emit(ev.SessionRenamed(title))


async def _user_shell(session: Session, command: str) -> None:
    from agent.user_shell import run_user_shell

    block = await run_user_shell(
        session.runner.tools.get("Bash"), session.ctx, session.emit, command
    )
    if block is not None:
        session.conversation.add_user((block,))
        session._write(lambda t: t.record_history(session.history))


async def _kill_shell(session: Session, shell_id: str) -> None:
    from tools.base import ToolError
    from tools.task_stop import stop_task

    try:  # a background shell or agent (/bashes kill, /tasks kill): TaskStop's path
        text = await stop_task(shell_id, session.ctx)
    except ToolError as exc:
        session.emit(ev.Error(ev.NO_TURN, str(exc), "shell"))
        return
    session.emit(ev.Notice(ev.NO_TURN, text))


def _rewind(session: Session, op: ops.Rewind) -> None:
    """Code and/or conversation back to before a prompt; an Error explains a refusal."""
    if session.busy:
        text = "Stop the running turn (Esc) before rewinding."
        session.emit(ev.Error(ev.NO_TURN, text, "rewind"))
        return
    try:
        new, done = session.rewinder.apply(
            op.number, op.mode, op.overwrite_conflicts, session.history
        )
    except RewindError as exc:
        session.emit(ev.Error(ev.NO_TURN, str(exc), "rewind"))
        return
    if new is not None:
        session.conversation.rewrite(new)
        session._write(lambda t: t.record_history(session.history))
        done = dataclasses.replace(done, context_tokens=session.context_tokens)
    session._report_checkpoint_error(ev.NO_TURN)
    session.emit(done)
