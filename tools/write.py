"""Write: create a file, or replace an existing (already read) file's whole content."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tools.base import ResolvedPath, ToolContext, ToolResult
from tools.textdoc import Plan, encode_for, load_for_change, precheck_plan, preview_plan, save_text
from tools.textfile import UTF8, display_path, plural, summary_path


class WriteTool:
    """The Write tool (Claude Code's name and input fields)."""

    name = "Write"
    description = (
        "Writes a file to the local filesystem, replacing it if it exists.\n"
        "- file_path may be absolute or relative to the workspace root; missing parent "
        "directories are created.\n"
        "- If the file already exists you must have Read it in this session first, and it "
        "must not have changed since; otherwise the write is refused (Read it again).\n"
        "- Prefer Edit or MultiEdit for changes to existing files; use Write for new files or "
        "complete rewrites.\n"
        "- An existing file's line endings (CRLF) and encoding are kept; new files are UTF-8.\n"
        "- Do not create documentation files (*.md, README) unless the user asks for them."
    )
    input_schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "file_path": {
                "type": "string",
                "description": "The file to write: absolute, or relative to the workspace root.",
            },
            "content": {"type": "string", "description": "The complete content of the file."},
        },
        "required": ["file_path", "content"],
        "additionalProperties": False,
    }
    read_only = False

    def paths(self, args: dict[str, Any], ctx: ToolContext) -> list[ResolvedPath]:
        """The file this call writes."""
        return [ctx.resolve(args["file_path"])]

    def summary(self, args: dict[str, Any]) -> str:
        """The path."""
        return summary_path(args.get("file_path"))

    def precheck(self, args: dict[str, Any], ctx: ToolContext) -> str | None:
        """Why the write would fail now (an existing file not read, or changed since), or None."""
        return precheck_plan(self.name, self._plan, args, ctx)

    def preview(self, args: dict[str, Any], ctx: ToolContext) -> str | None:
        """The diff the write would make now."""
        return preview_plan(self.name, self._plan, args, ctx)

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Write the file; see the description."""
        path = ctx.resolve_for(self.name, args["file_path"])
        plan = self._plan(ctx, path, args)
        display = await save_text(ctx, plan.doc, plan.text, plan.data)
        verb = "Created" if display["created"] else "Updated"
        return ToolResult(f"{verb} {plan.message}", display=display)

    def _plan(self, ctx: ToolContext, path: Path, args: dict[str, Any]) -> Plan:
        """The whole write, worked out without writing (run, precheck and preview share it)."""
        label = display_path(ctx, path)
        doc = load_for_change(ctx, path, label, whole=True)
        content: str = args["content"]
        if doc.newline == "\r\n" and "\r\n" not in content:
            content = content.replace("\n", "\r\n")
        note = ""
        if doc.encoding.codec != "utf-8" and not content.isascii():
            try:
                doc.encoding.encode(content)
            except UnicodeError:
                note = f" as UTF-8 (the content does not fit its former {doc.encoding.label})"
                doc.encoding = UTF8
        data = encode_for(doc, content)
        lines = plural(content.count("\n") + (not content.endswith("\n") and bool(content)), "line")
        return Plan(doc, content, data, f"{label} ({lines}){note}")


TOOL = WriteTool()
