"""TodoWrite: the model's task list for the session, replaced whole at each call.

Nothing is written to disk: the list travels in the result's ``display`` (``{"kind": "todos",
"todos": [...]}``), which the UI shows and the transcript records.
"""

from __future__ import annotations

from typing import Any

from tools.base import ResolvedPath, ToolContext, ToolError, ToolResult

STATUSES = ("pending", "in_progress", "completed")

RESULT_TEXT = (
    "Todos have been modified successfully. Ensure that you continue to use the todo list to "
    "track your progress. Please proceed with the current tasks if applicable"
)


def check_todos(todos: list[dict[str, Any]]) -> list[dict[str, str]]:
    """The list, normalised (fields in a fixed order, text stripped), once it makes sense.

    Raises:
        ToolError: for an empty text or more than one task in progress.
    """
    clean: list[dict[str, str]] = []
    for i, todo in enumerate(todos):
        content = str(todo["content"]).strip()
        active = str(todo["activeForm"]).strip()
        if not content or not active:
            field = "content" if not content else "activeForm"
            raise ToolError(f"todos[{i}].{field} must not be blank")
        clean.append({"content": content, "status": todo["status"], "activeForm": active})
    working = [t["content"] for t in clean if t["status"] == "in_progress"]
    if len(working) > 1:
        listed = "; ".join(repr(c) for c in working)
        raise ToolError(
            f"Only one task may be in_progress at a time, but {len(working)} are: {listed}. "
            "Mark the others pending or completed."
        )
    return clean


class TodoWriteTool:
    """The TodoWrite tool (Claude Code's name and input fields)."""

    name = "TodoWrite"
    description = (
        "Use this tool to create and manage a structured task list for your current coding "
        "session. It helps you track progress, organise complex tasks and show the user what "
        "you are doing.\n\n"
        "When to use it: a task needing 3 or more distinct steps; a non-trivial task needing "
        "planning; when the user gives several tasks (numbered or comma-separated) or asks for "
        "a todo list; when new instructions arrive (capture them as todos); when you start a "
        "task (mark it in_progress before beginning) and when you finish one (mark it completed "
        "and add any follow-up tasks you found).\n"
        "When not to use it: a single straightforward task, a trivial task, or a purely "
        "conversational or informational request.\n\n"
        "Each call replaces the whole list. Task states: pending (not started), in_progress "
        "(being worked on: exactly one at a time), completed (finished successfully). Each task "
        'has content, the imperative form ("Run the tests"), and activeForm, the present '
        'continuous form shown while it is in progress ("Running the tests").\n'
        "Update the list in real time: mark a task completed as soon as it is done, without "
        "batching. Only mark a task completed when it is fully accomplished; if tests fail, the "
        "implementation is partial or you hit unresolved errors, keep it in_progress and add a "
        "task for what blocks it. Remove tasks that are no longer relevant."
    )
    input_schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "todos": {
                "type": "array",
                "description": "The updated todo list",
                "items": {
                    "type": "object",
                    "properties": {
                        "content": {"type": "string", "minLength": 1},
                        "status": {"type": "string", "enum": list(STATUSES)},
                        "activeForm": {"type": "string", "minLength": 1},
                    },
                    "required": ["content", "status", "activeForm"],
                    "additionalProperties": False,
                },
            }
        },
        "required": ["todos"],
        "additionalProperties": False,
    }
    read_only = True

    def paths(self, args: dict[str, Any], ctx: ToolContext) -> list[ResolvedPath]:
        """None: no file is touched."""
        return []

    def summary(self, args: dict[str, Any]) -> str:
        """How many tasks, and how many are done."""
        todos = args.get("todos") or []
        done = sum(1 for t in todos if isinstance(t, dict) and t.get("status") == "completed")
        return f"{len(todos)} task{'s' if len(todos) != 1 else ''}, {done} completed"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Check the list and hand it to the UI."""
        todos = check_todos(args["todos"])
        return ToolResult(RESULT_TEXT, display={"kind": "todos", "todos": todos})


TOOL = TodoWriteTool()
