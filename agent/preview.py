"""The diff a file-changing call would make, shown with its permission question (TUI, plain)."""

from __future__ import annotations

import difflib
from collections.abc import Callable
from pathlib import Path
from typing import Any

PREVIEW_MAX_BYTES = 2 * 1024 * 1024
"""Files larger than this are not read for a preview."""


def _read(path: Path) -> str | None:
    try:
        if not path.exists():
            return ""
        if not path.is_file() or path.stat().st_size > PREVIEW_MAX_BYTES:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _apply(text: str, edit: dict[str, Any]) -> str | None:
    old, new = str(edit.get("old_string", "")), str(edit.get("new_string", ""))
    if not old:
        return new if not text else None
    if old not in text:
        return None
    return text.replace(old, new) if edit.get("replace_all") else text.replace(old, new, 1)


def preview_diff(name: str, args: dict[str, Any], resolve: Callable[[str], Path]) -> str | None:
    """The unified diff of an Edit, MultiEdit or Write call, or None (other tools, no match).

    Args:
        name: the tool's name.
        args: the call's input.
        resolve: turns the model's path into a real one (the session's path resolver).
    """
    raw = args.get("file_path")
    if name not in ("Edit", "MultiEdit", "Write") or not isinstance(raw, str) or not raw:
        return None
    try:
        old = _read(resolve(raw))
    except Exception:
        return None
    if old is None:
        return None
    new: str | None = old
    if name == "Write":
        new = str(args.get("content", ""))
    elif name == "Edit":
        new = _apply(old, args)
    else:
        for edit in args.get("edits") or []:
            new = _apply(new, edit) if new is not None and isinstance(edit, dict) else None
    if new is None:
        return None
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{raw}", f"b/{raw}"
    )
    return "".join(ln if ln.endswith("\n") else ln + "\n" for ln in lines)
