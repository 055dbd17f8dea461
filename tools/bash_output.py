"""BashOutput: what a background shell printed since the last read, with its status.

The shells belong to the session (``ctx.shells``, :mod:`agent.session.shells`); this tool only
reads.
"""

from __future__ import annotations

from typing import Any

from tools.base import ResolvedPath, ToolContext, ToolError, ToolResult


class BashOutputTool:
    """The BashOutput tool (Claude Code's name and input fields)."""

    name = "BashOutput"
    description = (
        "Retrieves output from a running or completed background bash shell (started with "
        "Bash run_in_background: true).\n"
        "- Takes a bash_id parameter identifying the shell.\n"
        "- Always returns only new output since the last check, with the shell's status "
        "(running, completed, failed, killed) and its exit code once it has exited.\n"
        "- Supports an optional regex filter: only lines matching it are shown; the other "
        "new lines are consumed and no longer available to read.\n"
        "- Shell IDs can be found using the /bashes command."
    )
    input_schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "bash_id": {
                "type": "string",
                "description": "The ID of the background shell to retrieve output from",
            },
            "filter": {
                "type": "string",
                "description": "Optional regular expression to filter the output lines. Only "
                "lines matching this regex will be included in the result. Any lines that do "
                "not match will no longer be available to read.",
            },
        },
        "required": ["bash_id"],
        "additionalProperties": False,
    }
    read_only = True

    def paths(self, args: dict[str, Any], ctx: ToolContext) -> list[ResolvedPath]:
        """None: it reads a shell, not a file."""
        return []

    def summary(self, args: dict[str, Any]) -> str:
        """The shell id (and the filter)."""
        flt = args.get("filter")
        return f"{args.get('bash_id', '')}" + (f" /{flt}/" if flt else "")

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """The new output of the shell; see the description."""
        if ctx.shells is None:
            raise ToolError("There are no background shells in this session.")
        return ToolResult(ctx.shells.read(str(args["bash_id"]), args.get("filter") or None))


TOOL = BashOutputTool()
