"""Jupyter notebooks for Read and NotebookEdit: parse, find a cell, render cells with outputs.

Notebooks are read and written with nbformat (the Jupyter reference implementation), so what
NotebookEdit writes is what Jupyter writes (one-space indented JSON, sorted keys) and the diff
of an edit is the cell that changed. A cell is named by its ``id`` (nbformat 4.5 and later);
in older notebooks, which have no ids, by ``cell-N`` (its 0-based index), which Read shows.
"""

from __future__ import annotations

import base64
import re
from typing import Any

from tools.base import ToolError, ToolResult
from tools.image_block import encode_image

OUTPUT_MAX_CHARS = 2000
"""Characters of one cell output shown (the rest is cut with a note)."""
RENDER_MAX_CHARS = 80_000
"""Characters of a rendered notebook at most (Read's own cap)."""
MAX_OUTPUT_IMAGES = 8
"""Images from outputs returned by one Read at most."""

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_INDEX_ID = re.compile(r"^(?:cell-)?(\d+)$")
_IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")


def parse(text: str, label: str) -> Any:
    """The notebook in ``text`` (an ``nbformat.NotebookNode``), upgraded to version 4.

    Raises:
        ToolError: it is not a notebook nbformat can read.
    """
    import nbformat

    try:
        return nbformat.reads(text, as_version=4)
    except Exception as exc:  # nbformat raises JSON, validation and version errors alike
        raise ToolError(f"{label} is not a valid Jupyter notebook ({exc}).") from None


def dumps(nb: Any, like: str) -> str:
    """``nb`` as Jupyter writes it, ending with a newline when ``like`` (the old text) did.

    Raises:
        ToolError: the result would not be a valid notebook.
    """
    import nbformat

    try:
        nbformat.validate(nb)
        text: str = nbformat.writes(nb, version=4)
    except Exception as exc:
        raise ToolError(
            f"the edited notebook would not be valid ({exc}); nothing written."
        ) from None
    return text + "\n" if like.endswith("\n") and not text.endswith("\n") else text


def cell_name(cell: Any, index: int) -> str:
    """What the model calls the cell: its id, or ``cell-N`` when it has none."""
    return str(cell.get("id") or f"cell-{index}")


def find_cell(nb: Any, cell_id: str) -> int:
    """The index of the cell named ``cell_id`` (an id, or ``cell-N`` / ``N``).

    Raises:
        ToolError: no such cell, with the names there are.
    """
    for i, cell in enumerate(nb.cells):
        if cell.get("id") == cell_id:
            return i
    m = _INDEX_ID.match(cell_id.strip())
    if m and int(m.group(1)) < len(nb.cells):
        return int(m.group(1))
    names = ", ".join(cell_name(c, i) for i, c in enumerate(nb.cells[:50])) or "none"
    raise ToolError(f"No cell with id {cell_id!r} in the notebook. Its cells: {names}.")


def _cut(text: str, limit: int = OUTPUT_MAX_CHARS) -> str:
    text = _ANSI.sub("", text).rstrip()
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n[... {len(text) - limit} more characters of output]"


def _joined(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value or "")


def _output(out: Any, images: list[dict[str, Any]], label: str) -> str:
    """One output as text; an image in it is appended to ``images`` (up to the cap)."""
    kind = out.get("output_type")
    if kind == "stream":
        return _cut(_joined(out.get("text")))
    if kind == "error":
        trace = "\n".join(out.get("traceback") or [])
        return _cut(f"{out.get('ename')}: {out.get('evalue')}\n{trace}")
    data = out.get("data") or {}
    for media in _IMAGE_TYPES:
        if media in data and len(images) < MAX_OUTPUT_IMAGES:
            try:
                raw = base64.b64decode(_joined(data[media]))
                images.append(encode_image(raw, f"an image output of {label}").block)
                return f"[image {len(images)}: {media}, shown below]"
            except (ToolError, ValueError):
                return f"[an {media} output that could not be shown]"
    if "text/plain" in data:
        return _cut(_joined(data["text/plain"]))
    shown = ", ".join(sorted(data)) or "no data"
    return f"[{kind} output: {shown}]"


def render(nb: Any, label: str) -> tuple[str, list[dict[str, Any]]]:
    """The notebook as the model reads it: each cell, then its outputs; and their images."""
    language = (nb.metadata.get("language_info") or {}).get("name") or (
        nb.metadata.get("kernelspec") or {}
    ).get("language", "")
    head = f"{label}: Jupyter notebook, {len(nb.cells)} cells"
    parts = [head + (f", {language}" if language else "")]
    images: list[dict[str, Any]] = []
    used = len(parts[0])
    for i, cell in enumerate(nb.cells):
        name, kind = cell_name(cell, i), cell.get("cell_type", "code")
        count = cell.get("execution_count")
        attrs = f'id="{name}" cell_type="{kind}"'
        if count is not None:
            attrs += f' execution_count="{count}"'
        piece = f"<cell {attrs}>\n{_joined(cell.get('source'))}\n</cell>"
        outputs = [_output(o, images, label) for o in cell.get("outputs") or []]
        outputs = [o for o in outputs if o]
        if outputs:
            piece += f'\n<outputs id="{name}">\n' + "\n".join(outputs) + "\n</outputs>"
        if used + len(piece) > RENDER_MAX_CHARS:
            parts.append(
                f"[... {len(nb.cells) - i} more cells not shown (Read returns at most "
                f"{RENDER_MAX_CHARS} characters); Read with offset and limit shows the raw JSON]"
            )
            break
        parts.append(piece)
        used += len(piece) + 2
    return "\n\n".join(parts), images


def read_notebook(data: bytes, label: str) -> ToolResult:
    """Read's result for a notebook: its cells and outputs, then the images of the outputs.

    Raises:
        ToolError: it is not a valid notebook (Read with offset and limit shows the raw text).
    """
    nb = parse(data.decode("utf-8", "replace"), label)
    text, images = render(nb, label)
    display = {"kind": "notebook", "cells": len(nb.cells), "images": len(images)}
    if not images:
        return ToolResult(text, display=display)
    return ToolResult([{"type": "text", "text": text}, *images], display=display)
