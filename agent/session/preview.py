"""The diff a file-changing call would make, shown with its permission question (TUI, plain).

The tool works it out with the same code that will make the change
(:class:`tools.base.Prechecked`), so the question shows exactly what a "yes" does.
"""

from __future__ import annotations

from typing import Any

from tools.base import Prechecked, Tool, ToolContext


def preview_diff(tool: Tool, args: dict[str, Any], ctx: ToolContext) -> str | None:
    """The unified diff the call would make now, or None (no preview, or it cannot succeed).

    Args:
        tool: the tool called.
        args: the call's input.
        ctx: the session's tool context.
    """
    if not isinstance(tool, Prechecked):
        return None
    try:
        return tool.preview(args, ctx)
    except Exception:  # a preview is a courtesy: never let it break the question
        return None


def precheck(tool: Tool, args: dict[str, Any], ctx: ToolContext) -> str | None:
    """Why the call cannot succeed now (the tool's own validation), or None to ask about it."""
    if not isinstance(tool, Prechecked):
        return None
    try:
        return tool.precheck(args, ctx)
    except Exception:  # the tool's run decides; a check must not fail a call that could work
        return None
