"""NotebookEdit: replace, insert or delete one cell of a Jupyter notebook (.ipynb).

The notebook is loaded, changed and saved through the same steps as Edit
(:mod:`tools.textdoc`): the stale-read check, the checkpoint hook before the write, the
race-safe atomic write and the diff for the UI. The cell model is :mod:`tools.notebook`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tools.base import ResolvedPath, ToolContext, ToolError, ToolResult
from tools.notebook import cell_name, dumps, find_cell, parse
from tools.textdoc import (
    Plan,
    encode_for,
    load_for_change,
    precheck_plan,
    preview_plan,
    save_text,
)
from tools.textfile import display_path, missing_message, summary_path

EDIT_MODES = ("replace", "insert", "delete")
CELL_TYPES = ("code", "markdown")


def _new_cell(kind: str, source: str, with_id: bool) -> Any:
    import nbformat

    make = nbformat.v4.new_code_cell if kind == "code" else nbformat.v4.new_markdown_cell
    cell = make(source)
    if not with_id:
        cell.pop("id", None)  # before nbformat 4.5 a cell id is invalid
    return cell


def _retype(cell: Any, kind: str) -> None:
    """Make ``cell`` a ``kind`` cell, with the fields that type has (and no others)."""
    cell["cell_type"] = kind
    if kind == "code":
        cell.setdefault("outputs", [])
        cell.setdefault("execution_count", None)
        cell.pop("attachments", None)
    else:
        cell.pop("outputs", None)
        cell.pop("execution_count", None)


class NotebookEditTool:
    """The NotebookEdit tool (Claude Code's name and input fields)."""

    name = "NotebookEdit"
    description = (
        "Completely replaces the contents of a specific cell in a Jupyter notebook (.ipynb "
        "file) with new source, inserts a new cell, or deletes one.\n"
        "- notebook_path: the notebook, absolute or relative to the workspace root. Read it "
        "first: Read shows each cell with its id.\n"
        "- cell_id: the id of the cell to change (cell-N, the 0-based index, in notebooks "
        "whose cells have no ids). With edit_mode=insert the new cell goes after this cell, "
        "or first when cell_id is not given.\n"
        "- edit_mode: replace (default), insert or delete. cell_type (code or markdown) is "
        "required for insert; for replace it defaults to the cell's current type.\n"
        "- Replacing a code cell's source clears its outputs and execution count (they no "
        "longer match the code)."
    )
    input_schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "notebook_path": {
                "type": "string",
                "description": "The notebook to edit: absolute, or relative to the workspace.",
            },
            "cell_id": {
                "type": "string",
                "description": "The id of the cell to edit. When inserting a new cell, the new "
                "cell is inserted after the cell with this id, or at the beginning if not "
                "specified.",
            },
            "new_source": {"type": "string", "description": "The new source for the cell"},
            "cell_type": {
                "type": "string",
                "enum": list(CELL_TYPES),
                "description": "The type of the cell (code or markdown). If not specified, it "
                "defaults to the current cell type. Required with edit_mode=insert.",
            },
            "edit_mode": {
                "type": "string",
                "enum": list(EDIT_MODES),
                "description": "The type of edit to make (replace, insert, delete). Defaults "
                "to replace.",
            },
        },
        "required": ["notebook_path", "new_source"],
        "additionalProperties": False,
    }
    read_only = False

    def paths(self, args: dict[str, Any], ctx: ToolContext) -> list[ResolvedPath]:
        """The notebook this call changes."""
        return [ctx.resolve(args["notebook_path"])]

    def summary(self, args: dict[str, Any]) -> str:
        """The notebook, the mode and the cell."""
        mode = args.get("edit_mode") or "replace"
        cell = args.get("cell_id")
        return f"{summary_path(args.get('notebook_path'))} ({mode}{f' {cell}' if cell else ''})"

    def precheck(self, args: dict[str, Any], ctx: ToolContext) -> str | None:
        """Why the edit would fail now (no such cell, stale read, ...), or None."""
        return precheck_plan(self.name, self._plan, _as_file(args), ctx)

    def preview(self, args: dict[str, Any], ctx: ToolContext) -> str | None:
        """The diff of the notebook file the edit would make now."""
        return preview_plan(self.name, self._plan, _as_file(args), ctx)

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Make the edit; see the description."""
        path = ctx.resolve_for(self.name, args["notebook_path"])
        plan = self._plan(ctx, path, args)
        display = await save_text(ctx, plan.doc, plan.text, plan.data)
        return ToolResult(plan.message, display=display)

    def _plan(self, ctx: ToolContext, path: Path, args: dict[str, Any]) -> Plan:
        """The whole change, worked out without writing (run, precheck and preview share it)."""
        raw = str(args.get("notebook_path", args.get("file_path", "")))
        label = display_path(ctx, path)
        if path.suffix.lower() != ".ipynb":
            raise ToolError(f"{label} is not a Jupyter notebook (.ipynb); use Edit for it.")
        doc = load_for_change(ctx, path, label)
        if doc.stat is None:
            raise ToolError(missing_message(raw, path) + " NotebookEdit changes notebooks.")
        nb = parse(doc.text, label)
        mode = args.get("edit_mode") or "replace"
        kind, cell_id, source = args.get("cell_type"), args.get("cell_id"), args["new_source"]
        if mode == "insert":
            if kind is None:
                raise ToolError("cell_type (code or markdown) is required to insert a cell.")
            at = find_cell(nb, cell_id) + 1 if cell_id else 0
            with_id = (nb.nbformat, nb.nbformat_minor) >= (4, 5)
            cell = _new_cell(kind, source, with_id)
            nb.cells.insert(at, cell)
            message = f"Inserted {kind} cell {cell_name(cell, at)} at position {at} of {label}"
        elif not cell_id:
            raise ToolError(f"cell_id is required to {mode} a cell.")
        elif mode == "delete":
            at = find_cell(nb, cell_id)
            del nb.cells[at]
            message = f"Deleted cell {cell_id} of {label}"
        else:
            at = find_cell(nb, cell_id)
            cell = nb.cells[at]
            if kind is not None and kind != cell.get("cell_type"):
                _retype(cell, kind)
            cell["source"] = source
            if cell.get("cell_type") == "code":
                cell["outputs"], cell["execution_count"] = [], None
            message = f"Updated cell {cell_id} of {label}"
        text = dumps(nb, doc.text)
        return Plan(doc, text, encode_for(doc, text), message)


def _as_file(args: dict[str, Any]) -> dict[str, Any]:
    """The input with ``file_path`` (the name the shared precheck looks for)."""
    return {**args, "file_path": args.get("notebook_path")}


TOOL = NotebookEditTool()
