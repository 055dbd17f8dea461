"""``!command``: the user runs a shell command directly; its output joins the context.

The command runs through the Bash tool (same process-group handling, cap and checkpoint hooks)
without the permission gate: the user typed it (so it runs as user-approved: outside the
sandbox unless ``sandbox.allowUnsandboxedCommands`` is false). The model sees it as text in the
next user message, the way Claude Code shows it: ``<bash-input>`` then ``<bash-stdout>``.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

from agent import events as ev
from agent.messages import Message, TextBlock

if TYPE_CHECKING:
    from agent.session.core import Session

_ids = itertools.count(1)


async def run_user_shell(session: Session, command: str) -> None:
    """Run ``command`` for the user and add its output to the conversation."""
    tool = session.runner.tools.get("Bash")
    call_id = f"user-shell-{next(_ids)}"
    if tool is None:
        session.emit_event(ev.Error(0, "The shell is not available in this session.", "shell"))
        return
    args = {"command": command}
    session.emit_event(ev.ToolCallStarted(0, call_id, "Bash", args, command))
    session.emit_event(ev.ToolCallRunning(0, call_id))

    def output(text: str) -> None:
        session.emit_event(ev.ToolOutputDelta(0, call_id, text))

    try:
        result = await tool.run(args, session.ctx.for_call(output, "user"))
        content, is_error = result.content, result.is_error
    except Exception as exc:  # ToolError or a bug: shown, never raised
        content, is_error = f"{exc}", True
    text = content if isinstance(content, str) else ""
    session.emit_event(
        ev.ToolCallFinished(0, call_id, "Bash", "failed" if is_error else "done", text, is_error)
    )
    block = TextBlock(f"<bash-input>{command}</bash-input>\n<bash-stdout>{text}</bash-stdout>")
    history = session.history
    if history and history[-1].role == "user":
        history[-1] = history[-1].with_blocks(block)
    else:
        history.append(Message("user", (block,)))
    session.record()
