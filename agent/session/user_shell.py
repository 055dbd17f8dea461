"""``!command``: the user runs a shell command directly; its output joins the context.

The command runs through the Bash tool (same process-group handling, cap and checkpoint hooks)
without the permission gate: the user typed it (so it runs as user-approved: outside the
sandbox unless ``sandbox.allowUnsandboxedCommands`` is false). The model sees it as text in the
next user message, the way Claude Code shows it: ``<bash-input>`` then ``<bash-stdout>``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

from agent import events as ev
from agent.messages import TextBlock
from tools.base import Tool, ToolContext

_ids = itertools.count(1)


async def run_user_shell(
    tool: Tool | None, ctx: ToolContext, emit: Callable[[ev.Event], None], command: str
) -> TextBlock | None:
    """Run ``command`` for the user (with the Bash ``tool``), showing it as a call outside
    any turn; returns the text the conversation gets, or None without a shell."""
    call_id = f"user-shell-{next(_ids)}"
    if tool is None:
        emit(ev.Error(ev.NO_TURN, "The shell is not available in this session.", "shell"))
        return None
    args = {"command": command}
    emit(ev.ToolCallStarted(ev.NO_TURN, call_id, "Bash", args, command))
    emit(ev.ToolCallRunning(ev.NO_TURN, call_id))

    def output(text: str) -> None:
        emit(ev.ToolOutputDelta(ev.NO_TURN, call_id, text))

    try:
        result = await tool.run(args, ctx.for_call(output, "user"))
        content, is_error = result.content, result.is_error
    except Exception as exc:  # ToolError or a bug: shown, never raised
        content, is_error = f"{exc}", True
    text = content if isinstance(content, str) else ""
    status: ev.ToolStatus = "failed" if is_error else "done"
    emit(ev.ToolCallFinished(ev.NO_TURN, call_id, "Bash", status, text, is_error))
    return TextBlock(f"<bash-input>{command}</bash-input>\n<bash-stdout>{text}</bash-stdout>")
