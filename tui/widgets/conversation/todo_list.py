"""The task list a TodoWrite call set: pending, in progress (bold), completed (struck, dim)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from textual.content import Content

from frontend.sanitize import sanitize

_MARK = {"completed": "☒", "in_progress": "◼", "pending": "☐"}
_STYLE = {"completed": "strike $text-muted", "in_progress": "bold $text-primary", "pending": ""}


def render_todos(todos: Iterable[dict[str, Any]]) -> Content:
    """One line per task, in the model's order."""
    lines = []
    for todo in todos:
        status = str(todo.get("status", "pending"))
        text = str(todo.get("content") or todo.get("activeForm") or "")
        if status == "in_progress" and todo.get("activeForm"):
            text = str(todo["activeForm"])
        text = sanitize(text)
        mark = _MARK.get(status, "☐")
        lines.append(Content.styled(f"{mark} {text}", _STYLE.get(status, "")))
    return Content("\n").join(lines) if lines else Content.styled("(no tasks)", "$text-muted")
