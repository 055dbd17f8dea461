"""ExitPlanMode: in plan mode, the model presents its plan for the user to approve.

The user approves (and picks the mode eddy continues in: acceptEdits or default) or rejects
it with feedback, which the model reads as the (is_error) result; plan mode's read-only gate
stays until an approval. Outside plan mode the call fails (there is nothing to approve);
headless, nobody can approve: the call fails and says how to go on.
"""

from __future__ import annotations

from typing import Any

from tools.base import ResolvedPath, ToolContext, ToolError, ToolResult

APPROVED = (
    "User has approved your plan. You can now start coding. Start with updating your todo "
    "list if applicable"
)
REJECTED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
    "was a file edit, the new_string was NOT written to the file)."
)
HEADLESS = (
    "ExitPlanMode was not run: eddy runs headless (-p), so nobody can approve the plan and "
    "eddy stays in plan mode. Give the plan as your final answer; to carry it out, run eddy "
    "again with --permission-mode acceptEdits (or default)."
)


class ExitPlanModeTool:
    """The ExitPlanMode tool (Claude Code's name and input field)."""

    name = "ExitPlanMode"
    description = (
        "Use this tool when you are in plan mode and have finished planning and are ready to "
        "present your plan to the user for approval.\n"
        "- Only use it when the task requires planning the implementation steps of a task that "
        "requires writing code; not for research tasks (reading files, searching, "
        "understanding the codebase).\n"
        "- Resolve open questions first (AskUserQuestion); do not ask whether the plan is okay, "
        "this tool asks that.\n"
        "- If the user rejects the plan, their feedback is the result: revise the plan."
    )
    input_schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "plan": {
                "type": "string",
                "minLength": 1,
                "description": "The plan you came up with, that you want to run by the user for "
                "approval. Supports markdown. The plan should be pretty concise.",
            }
        },
        "required": ["plan"],
        "additionalProperties": False,
    }
    read_only = False  # it may change the permission mode

    def paths(self, args: dict[str, Any], ctx: ToolContext) -> list[ResolvedPath]:
        """None: it changes no file."""
        return []

    def summary(self, args: dict[str, Any]) -> str:
        """The plan's first line (without a markdown heading's #)."""
        lines = [line.lstrip("#").strip() for line in str(args.get("plan", "")).splitlines()]
        return next((line for line in lines if line), "")

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Ask the user to approve the plan; see the description."""
        plan = str(args["plan"]).strip()
        if not plan:
            raise ToolError("plan must not be blank")
        if ctx.dialogs is None:
            raise ToolError(HEADLESS)
        mode = ctx.dialogs.permission_mode()
        if mode != "plan":
            raise ToolError(
                f"ExitPlanMode only applies in plan mode, and eddy is in {mode} mode: there is "
                "no plan to approve. Go on with the task."
            )
        approved, next_mode, feedback = await ctx.dialogs.review_plan(ctx.call_id, plan)
        if approved:
            return ToolResult(f"{APPROVED}\n\n(eddy now runs in {next_mode} mode.)")
        if feedback.strip():
            text = f"{REJECTED} To tell you how to proceed, the user said:\n{feedback.strip()}"
        else:
            text = f"{REJECTED} STOP what you are doing and wait for the user to tell you how "
            text += "to proceed."
        return ToolResult(text, is_error=True)


TOOL = ExitPlanModeTool()
