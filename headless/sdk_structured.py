"""Structured output (``--json-schema``, the Agent SDK's ``output_format``), as Claude Code
does it: a ``StructuredOutput`` tool whose input schema is the caller's schema. The model gives
its final answer by calling it; the call is checked against the schema (a mismatch is an
is_error result the model can correct), the turn ends after it, and the result line carries
the input as ``structured_output`` (and its JSON as ``result``). A model that answers without
calling it is sent back to do so, at most :data:`MAX_RETRIES` times (each one more model call,
counted against the turn and budget limits); then the turn ends as
``error_max_structured_output_retries``.
"""

from __future__ import annotations

from typing import Any

from tools.base import ResolvedPath, ToolContext, ToolError, ToolResult

TOOL_NAME = "StructuredOutput"
MAX_RETRIES = 3
"""Times the model is sent back to call the tool before the turn ends without it."""
REMINDER = (
    f"You must give your final answer by calling the {TOOL_NAME} tool with input that matches "
    "its schema. Call it now."
)


class StructuredOutputTool:
    """The tool the model gives its final answer with.

    Args:
        schema: the caller's JSON Schema (an object's).
    """

    name = TOOL_NAME
    description = (
        "Return your final response in the requested structured format. You MUST call this "
        "tool exactly once, at the end, with the final answer as its input."
    )
    read_only = True

    def __init__(self, schema: dict[str, Any]) -> None:
        self.input_schema = schema

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Check ``args`` against the whole schema (the runner checks a subset)."""
        import jsonschema

        try:
            jsonschema.validate(args, self.input_schema)
        except jsonschema.ValidationError as exc:
            raise ToolError(f"The output does not match the schema: {exc.message}") from exc
        except jsonschema.SchemaError as exc:
            raise ToolError(f"The schema itself is invalid: {exc.message}") from exc
        return ToolResult("Structured output provided successfully")

    def paths(self, args: dict[str, Any], ctx: ToolContext) -> list[ResolvedPath]:
        """No file is touched."""
        return []

    def summary(self, args: dict[str, Any]) -> str:
        """One line for the views."""
        return "the final answer, structured"


class StructuredAnswer:
    """The structured answer of each turn: what the model gave, and the reminders left."""

    def __init__(self, schema: dict[str, Any]) -> None:
        self.tool = StructuredOutputTool(schema)
        self.value: dict[str, Any] | None = None
        """The input of the turn's successful StructuredOutput call (None: none yet)."""
        self._reminders = 0

    def begin(self) -> None:
        """A prompt starts a turn: nothing given yet."""
        self.value, self._reminders = None, 0

    def given(self, value: dict[str, Any]) -> str:
        """The model called the tool successfully with ``value``; why the turn ends."""
        self.value = value
        return "the structured output was given"

    def reminder(self) -> str | None:
        """The model answered without the tool: the text that sends it back, or None when it
        was reminded :data:`MAX_RETRIES` times already (or has answered)."""
        if self.value is not None or self._reminders >= MAX_RETRIES:
            return None
        self._reminders += 1
        return REMINDER
