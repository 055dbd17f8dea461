"""MultiEdit: several Edit-style replacements in one file, applied in order, all or none."""

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


class MultiEditTool:
    """The MultiEdit tool (Claude Code's name and input fields)."""

    name = "MultiEdit"
    description = (
        "Makes several exact string replacements in one file in a single operation; prefer it "
        "to several Edit calls on the same file.\n"
        "- Same rules as Edit for each edit: Read the file first; old_string must match the "
        "file exactly (indentation included, no line-number prefix) and be unique unless "
        "replace_all is true; new_string must differ from old_string.\n"
        "- Edits are applied in order, each to the result of the previous one: make sure an "
        "earlier edit does not change text a later edit needs to match.\n"
        "- Atomic: if any edit fails, none is applied and the file is unchanged; the error "
        "names the failing edit (1-based).\n"
        "- To create a new file, give a path that does not exist and a first edit with an "
        "empty old_string and the file's content as new_string."
    )
    input_schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "file_path": {
                "type": "string",
                "description": "The file to modify: absolute, or relative to the workspace root.",
            },
            "edits": {
                "type": "array",
                "minItems": 1,
                "description": "The replacements, applied in order.",
                "items": {
                    "type": "object",
                    "properties": {
                        "old_string": {
                            "type": "string",
                            "description": "The exact text to replace.",
                        },
                        "new_string": {"type": "string", "description": "The replacement text."},
                        "replace_all": {
                            "type": "boolean",
                            "default": False,
                            "description": "Replace every occurrence (default false).",
                        },
                    },
                    "required": ["old_string", "new_string"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["file_path", "edits"],
        "additionalProperties": False,
    }
    read_only = False

    def paths(self, args: dict[str, Any], ctx: ToolContext) -> list[ResolvedPath]:
        """The file this call changes."""
        return [ctx.resolve(args["file_path"])]

    def summary(self, args: dict[str, Any]) -> str:
        """The path and the number of edits."""
        edits = args.get("edits")
        n = len(edits) if isinstance(edits, list) else 0
        return f"{summary_path(args.get('file_path'))} ({plural(n, 'edit')})"

    def precheck(self, args: dict[str, Any], ctx: ToolContext) -> str | None:
        """Why the edits would fail now (which one, and why), or None."""
        return precheck_plan(self.name, self._plan, args, ctx)

    def preview(self, args: dict[str, Any], ctx: ToolContext) -> str | None:
        """The diff all the edits would make now."""
        return preview_plan(self.name, self._plan, args, ctx)

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Apply the edits; see the description."""
        path = ctx.resolve_for(self.name, args["file_path"])
        plan = self._plan(ctx, path, args)
        display = await save_text(ctx, plan.doc, plan.text, plan.data)
        verb = "Created" if display["created"] else "Updated"
        return ToolResult(f"{verb} {plan.message}", display=display)

    def _plan(self, ctx: ToolContext, path: Path, args: dict[str, Any]) -> Plan:
        """The whole change, worked out without writing (run, precheck and preview share it)."""
        raw, edits = args["file_path"], args["edits"]
        label = display_path(ctx, path)
        doc = load_for_change(ctx, path, label)
        if doc.stat is None and edits[0]["old_string"]:
            raise ToolError(
                missing_message(raw, path) + " To create it, make the first edit's old_string "
                "empty (or use Write)."
            )
        text, replaced = doc.text, 0
        for i, edit in enumerate(edits, 1):
            old, new = edit["old_string"], edit["new_string"]
            try:
                if i == 1 and not old and old != new and not doc.text.strip():
                    text, count = new, 1  # create the file, or fill an empty one
                else:
                    text, count = apply_edit(
                        text, old, new, bool(edit.get("replace_all")), doc.newline
                    )
            except ToolError as exc:
                raise ToolError(
                    f"Edit {i} of {len(edits)} failed: {exc} No edits were applied; {label} "
                    "is unchanged."
                ) from exc
            replaced += count
        if doc.stat is None:
            return Plan(doc, text, encode_for(doc, text), label)
        done = f"{plural(len(edits), 'edit')}, {plural(replaced, 'replacement')}"
        return Plan(doc, text, encode_for(doc, text), f"{label} ({done})")


TOOL = MultiEditTool()
