"""Edit: replace an exact string in a file (the shared load/replace/save steps are in
:mod:`tools.textdoc`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tools.base import ResolvedPath, ToolContext, ToolError, ToolResult
from tools.textdoc import (
    Plan,
    apply_edit,
    encode_for,
    load_for_change,
    precheck_plan,
    preview_plan,
    save_text,
)
from tools.textfile import display_path, missing_message, plural, summary_path


class EditTool:
    """The Edit tool (Claude Code's name and input fields)."""

    name = "Edit"
    description = (
        "Performs an exact string replacement in a file.\n"
        "- You must Read the file in this session before editing it. The edit is refused if "
        "the file changed on disk since you read it; Read it again then.\n"
        "- old_string must match the file exactly, including indentation (tabs or spaces), "
        "blank lines and line breaks. When copying from Read output, take only the text after "
        "the line-number prefix (spaces, number, tab); never include any part of the prefix.\n"
        "- The edit fails if old_string is not in the file, or if it occurs more than once "
        "and replace_all is false: then add surrounding lines to make it unique, or set "
        "replace_all to true to change every occurrence (e.g. renaming a variable).\n"
        "- new_string must differ from old_string. Preserve the exact indentation of the code "
        "around it.\n"
        "- Write line breaks as \\n: files with CRLF line endings keep them, and the file's "
        "encoding and trailing newline are kept.\n"
        "- Prefer editing existing files to writing new ones. An empty old_string with a path "
        "that does not exist creates the file with new_string as its content."
    )
    input_schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "file_path": {
                "type": "string",
                "description": "The file to modify: absolute, or relative to the workspace root.",
            },
            "old_string": {"type": "string", "description": "The exact text to replace."},
            "new_string": {
                "type": "string",
                "description": "The text to replace it with (must differ from old_string).",
            },
            "replace_all": {
                "type": "boolean",
                "default": False,
                "description": "Replace every occurrence of old_string (default false).",
            },
        },
        "required": ["file_path", "old_string", "new_string"],
        "additionalProperties": False,
    }
    read_only = False

    def paths(self, args: dict[str, Any], ctx: ToolContext) -> list[ResolvedPath]:
        """The file this call changes."""
        return [ctx.resolve(args["file_path"])]

    def summary(self, args: dict[str, Any]) -> str:
        """The path."""
        return summary_path(args.get("file_path"))

    def precheck(self, args: dict[str, Any], ctx: ToolContext) -> str | None:
        """Why the edit would fail now (no match, several, stale read), or None."""
        return precheck_plan(self.name, self._plan, args, ctx)

    def preview(self, args: dict[str, Any], ctx: ToolContext) -> str | None:
        """The diff the edit would make now."""
        return preview_plan(self.name, self._plan, args, ctx)

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Make the replacement; see the description."""
        path = ctx.resolve_for(self.name, args["file_path"])
        plan = self._plan(ctx, path, args)
        display = await save_text(ctx, plan.doc, plan.text, plan.data)
        verb = "Created" if display["created"] else "Updated"
        return ToolResult(f"{verb} {plan.message}", display=display)

    def _plan(self, ctx: ToolContext, path: Path, args: dict[str, Any]) -> Plan:
        """The whole change, worked out without writing (run, precheck and preview share it)."""
        raw, old, new = args["file_path"], args["old_string"], args["new_string"]
        label = display_path(ctx, path)
        if old == new:
            raise ToolError("old_string and new_string are identical; there is nothing to change.")
        doc = load_for_change(ctx, path, label)
        if doc.stat is None:
            if old:
                raise ToolError(missing_message(raw, path) + " To create a file, use Write.")
            return Plan(doc, new, encode_for(doc, new), label)
        if not old and not doc.text.strip():
            text, count = new, 1  # filling an empty file
        else:
            text, count = apply_edit(doc.text, old, new, bool(args.get("replace_all")), doc.newline)
        return Plan(doc, text, encode_for(doc, text), f"{label} ({plural(count, 'replacement')})")


TOOL = EditTool()
