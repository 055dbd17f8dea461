"""Write: create a file, or replace an existing (already read) file's whole content."""

from __future__ import annotations

from typing import Any

from tools.base import ResolvedPath, ToolContext, ToolResult
from tools.textdoc import encode_for, load_for_change, save_text
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

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Write the file; see the description."""
        path = ctx.resolve_for(self.name, args["file_path"])
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
        display = await save_text(ctx, doc, content, data)
        lines = plural(content.count("\n") + (not content.endswith("\n") and bool(content)), "line")
        verb = "Created" if display["created"] else "Updated"
        return ToolResult(f"{verb} {label} ({lines}){note}", display=display)


TOOL = WriteTool()
