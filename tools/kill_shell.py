"""KillShell: end a background shell, its whole process group, or stop a background agent
(the same path as TaskStop: :func:`tools.task_stop.stop_task`)."""

from __future__ import annotations

from typing import Any

from tools.base import ResolvedPath, ToolContext, ToolResult
from tools.task_stop import stop_task


class KillShellTool:
    """The KillShell tool (Claude Code's name and input fields)."""

    name = "KillShell"
    description = (
        "Kills a running background bash shell by its ID (and every process it started).\n"
        "- Takes a shell_id parameter identifying the shell to kill.\n"
        "- Also stops a background agent (Agent run_in_background) given its agent ID.\n"
        "- Returns a success or failure status.\n"
        "- Use this tool when you need to terminate a long-running shell.\n"
        "- Shell IDs can be found using the /bashes command."
    )
    input_schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "shell_id": {
                "type": "string",
                "description": "The ID of the background shell (or agent) to kill",
            }
        },
        "required": ["shell_id"],
        "additionalProperties": False,
    }
    read_only = False

    def paths(self, args: dict[str, Any], ctx: ToolContext) -> list[ResolvedPath]:
        """None: it ends a process the session started."""
        return []

    def summary(self, args: dict[str, Any]) -> str:
        """The shell id."""
        return str(args.get("shell_id", ""))

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Kill the shell; see the description."""
        return ToolResult(await stop_task(str(args["shell_id"]), ctx))


TOOL = KillShellTool()
