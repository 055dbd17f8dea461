"""A custom command's prompt (``ops.SubmitPrompt`` with front matter fields): its
``!`cmd` `` snippets run before anything is sent, then one turn runs with the command's
``allowed-tools`` granted and its ``model`` used, both for that turn only.

A snippet goes through the session's permission gate exactly like a Bash call of the model
(an ``ask`` asks in the TUI and line mode, and is a refusal headless); a refused, failing
or interrupted snippet aborts the command with a message, and nothing reaches the model.
Each snippet shows as a Bash call outside any turn, as ``!command`` does.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Awaitable
from typing import TYPE_CHECKING, TypeVar

from agent import events as ev
from agent import ops
from agent.messages import ToolUseBlock
from agent.turn.outcome import TurnInterrupted
from agent.turn.race import race_interrupt

if TYPE_CHECKING:
    from agent.permissions.policy import Rule
    from agent.session.core import Session

SHELL_SNIPPET = re.compile(r"!`([^`\n]+)`")
"""Claude Code's syntax for a command whose output is put into the prompt."""

_ids = itertools.count(1)
T = TypeVar("T")


class CommandAborted(Exception):
    """A snippet was refused, failed or was interrupted: the message for the user."""


def has_extras(op: ops.SubmitPrompt) -> bool:
    """Whether ``op`` needs more than an ordinary prompt's run."""
    return bool(op.allowed_tools or op.model or op.expand_shell)


def parse_rules(texts: tuple[str, ...]) -> list[Rule]:
    """The allow rules of ``allowed-tools``.

    Raises:
        CommandAborted: a rule that cannot be parsed.
    """
    from agent.permissions.policy import Rule

    rules = []
    for text in texts:
        try:
            rules.append(Rule.parse(text))
        except Exception as exc:  # the parser's own errors carry the reason
            raise CommandAborted(f"allowed-tools: {text!r} is not a rule ({exc}).") from exc
    return rules


async def _unless_interrupted(session: Session, work: Awaitable[T]) -> T:
    """Await ``work``; Esc cancels it (or, already pressed, never starts it) and raises
    :class:`CommandAborted`."""
    try:
        result: T = await race_interrupt(session.stop.event, work)
    except TurnInterrupted:
        raise CommandAborted("interrupted") from None
    return result


async def _run_snippet(session: Session, command: str) -> str:
    """Run one snippet through the gate; its output.

    Raises:
        CommandAborted: refused, failed or interrupted.
    """
    tool = session.runner.tools.get("Bash")
    if tool is None:
        raise CommandAborted("the Bash tool is not available in this session")
    call_id = f"command-shell-{next(_ids)}"
    args = {"command": command}
    emit = session.emit
    emit(ev.ToolCallStarted(ev.NO_TURN, call_id, "Bash", args, command))
    use = ToolUseBlock(call_id, "Bash", args)
    try:
        decision = await _unless_interrupted(session, session.gate(use, tool))
    except CommandAborted:
        emit(ev.ToolCallFinished(ev.NO_TURN, call_id, "Bash", "interrupted", "", True))
        raise
    if not decision.allow:
        emit(ev.ToolCallFinished(ev.NO_TURN, call_id, "Bash", "refused", decision.reason, True))
        raise CommandAborted(f"`{command}` was not run: {decision.reason}")
    emit(ev.ToolCallRunning(ev.NO_TURN, call_id))

    def output(text: str) -> None:
        emit(ev.ToolOutputDelta(ev.NO_TURN, call_id, text))

    try:
        result = await _unless_interrupted(
            session, tool.run(args, session.ctx.for_call(output, decision.grant))
        )
    except CommandAborted:
        emit(ev.ToolCallFinished(ev.NO_TURN, call_id, "Bash", "interrupted", "", True))
        raise
    except Exception as exc:  # ToolError or a bug: a failed snippet, never a traceback
        emit(ev.ToolCallFinished(ev.NO_TURN, call_id, "Bash", "failed", str(exc), True))
        raise CommandAborted(f"`{command}` failed: {exc}") from exc
    text = result.content if isinstance(result.content, str) else ""
    status: ev.ToolStatus = "failed" if result.is_error else "done"
    emit(ev.ToolCallFinished(ev.NO_TURN, call_id, "Bash", status, text, result.is_error))
    if result.is_error:
        last = text.strip().splitlines()[-1] if text.strip() else "it failed"
        raise CommandAborted(f"`{command}` failed ({last})")
    return text.rstrip("\n")


async def expand_snippets(session: Session, text: str) -> str:
    """``text`` with each ``!`cmd` `` replaced by the command's output, in order.

    Raises:
        CommandAborted: a snippet was refused, failed or was interrupted.
    """
    out, last = [], 0
    for match in SHELL_SNIPPET.finditer(text):
        out.append(text[last : match.start()])
        out.append(await _run_snippet(session, match.group(1).strip()))
        last = match.end()
    out.append(text[last:])
    return "".join(out)


async def run_command_prompt(session: Session, op: ops.SubmitPrompt) -> None:
    """Run ``op``: its grants hold for the snippets and the turn; its model for the turn."""
    config = session.config
    try:
        rules = parse_rules(op.allowed_tools)
    except CommandAborted as exc:
        session.emit(ev.Error(ev.NO_TURN, f"The command was not sent: {exc}", "command"))
        return
    policy = config.policy
    policy.allow.extend(rules)
    previous = config.model
    try:
        try:
            text = await expand_snippets(session, op.text) if op.expand_shell else op.text
        except CommandAborted as exc:
            why = "it was interrupted" if str(exc) == "interrupted" else str(exc)
            session.emit(ev.Error(ev.NO_TURN, f"The command was not sent: {why}", "command"))
            return
        if not text.strip():
            text = "The command expanded to nothing; not sent."
            session.emit(ev.Error(ev.NO_TURN, text, "command"))
            return
        if op.model:
            session.use_model(op.model)
        await session.prompts.run(text, op.shown)
    finally:
        for rule in rules:  # exactly the granted objects: rules added meanwhile stay
            for i, r in enumerate(policy.allow):
                if r is rule:
                    del policy.allow[i]
                    break
        if op.model and config.model == op.model:
            session.use_model(previous)
