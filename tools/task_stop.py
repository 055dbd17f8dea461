"""TaskStop: stop a background task, a shell or an agent (Claude Code 2.1's name and input).

One stopping path for the three ways in: this tool, KillShell (which also takes an agent id)
and ``/tasks kill ID`` / ``/bashes kill ID`` (``ops.KillShell``, handled in the session), all
through :func:`stop_task`. A background agent is the engine's (``ctx.subagents``, tools
cannot import the engine): stopping it sets that child's own interrupt, and the model reads the
one notice that it was stopped at its next call (agent/subagents/host.py). An unknown or
finished id is an is_error result that names the shells and agents there are.
"""

from __future__ import annotations

from typing import Any

from tools.base import ResolvedPath, ToolContext, ToolError, ToolResult


async def stop_task(task_id: str, ctx: ToolContext) -> str:
    """Stop background shell or agent ``task_id``; what happened.

    Raises:
        ToolError: no such running task (the message names the shells and agents there are).
    """
    task_id = str(task_id).strip()
    agents = ctx.subagents
    if agents is not None and task_id in agents.tasks:
        return str(await agents.stop(task_id))
    if ctx.shells is None:
        if agents is None:
            raise ToolError("There are no background shells or agents in this session.")
        raise ToolError(
            f"No background task found with ID: {task_id} ({agents.describe_agents()})."
        )
    try:
        return await ctx.shells.kill(task_id)
    except ToolError as exc:
        if agents is None:
            raise
        raise ToolError(f"{str(exc).rstrip('.')}; {agents.describe_agents()}.") from None


class TaskStopTool:
    """The TaskStop tool (Claude Code's name and input fields)."""

    name = "TaskStop"
    description = (
        "- Stops a running background task by its ID: a background shell (Bash "
        "run_in_background) or a background agent (Agent run_in_background)\n"
        "- Takes a task_id parameter identifying the task to stop\n"
        "- Returns a success or failure status\n"
        "- Use this tool when you need to terminate a long-running task\n"
        "- A stopped agent does no more work; you are told once that it was stopped"
    )
    input_schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "task_id": {"type": "string", "description": "The ID of the background task to stop"},
            "shell_id": {"type": "string", "description": "Deprecated: use task_id instead"},
        },
        "additionalProperties": False,
    }
    read_only = False

    def paths(self, args: dict[str, Any], ctx: ToolContext) -> list[ResolvedPath]:
        """None: it ends a task the session started."""
        return []

    def summary(self, args: dict[str, Any]) -> str:
        """The task id."""
        return str(args.get("task_id") or args.get("shell_id") or "")

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Stop the task; see the description."""
        task_id = args.get("task_id") or args.get("shell_id")
        if not isinstance(task_id, str) or not task_id.strip():
            raise ToolError("TaskStop needs a task_id: the ID of a background shell or agent.")
        return ToolResult(await stop_task(task_id, ctx))


TOOL = TaskStopTool()
