"""MultiEdit: several Edit-style replacements in one file, applied in order, all or none."""

from __future__ import annotations

from typing import Any

from tools.base import ResolvedPath, ToolContext, ToolError, ToolResult
from tools.textdoc import apply_edit, encode_for, load_for_change, save_text
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

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Apply the edits; see the description."""
        raw, edits = args["file_path"], args["edits"]
        path = ctx.resolve_for(self.name, raw)
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
        display = await save_text(ctx, doc, text, encode_for(doc, text))
        if display["created"]:
            return ToolResult(f"Created {label}", display=display)
        done = f"{plural(len(edits), 'edit')}, {plural(replaced, 'replacement')}"
        return ToolResult(f"Updated {label} ({done})", display=display)


TOOL = MultiEditTool()
