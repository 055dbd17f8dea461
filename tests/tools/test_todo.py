"""TodoWrite: the list is checked, returned for the UI, and nothing else happens."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tools.base import Tool, ToolContext, ToolError, ToolResult
from tools.schema import validate
from tools.todo import RESULT_TEXT, TOOL


def todo(content: str, status: str = "pending", active: str | None = None) -> dict[str, str]:
    return {"content": content, "status": status, "activeForm": active or f"Doing {content}"}


async def write(tmp_path: Path, todos: list[dict[str, Any]]) -> ToolResult:
    args = {"todos": todos}
    assert validate(TOOL.input_schema, args) is None  # the loop validates before running
    return await TOOL.run(args, ToolContext(workspace=tmp_path))


def test_todowrite_schema() -> None:
    assert isinstance(TOOL, Tool)
    assert TOOL.name == "TodoWrite" and TOOL.read_only is True
    assert TOOL.paths({"todos": []}, ToolContext(workspace=Path("/"))) == []
    items = TOOL.input_schema["properties"]["todos"]["items"]
    assert items["required"] == ["content", "status", "activeForm"]
    assert items["additionalProperties"] is False


@pytest.mark.parametrize(
    ("todos", "problem"),
    [
        ([{"content": "a", "status": "pending"}], "activeForm"),
        ([{"content": "", "status": "pending", "activeForm": "A"}], "empty"),
        ([{"content": "a", "status": "done", "activeForm": "A"}], "one of"),
        ([{"content": "a", "status": "pending", "activeForm": "A", "id": "1"}], "unexpected"),
        ({"content": "a"}, "array"),
    ],
)
def test_schema_rejects_malformed_lists(todos: Any, problem: str) -> None:
    err = validate(TOOL.input_schema, {"todos": todos})
    assert err is not None and problem in err


@pytest.mark.parametrize(
    "todos",
    [
        [],
        [todo("Read the code", "completed"), todo("Fix the bug", "in_progress"), todo("Test")],
        [todo("Only pending"), todo("Another")],
        [todo("Done", "completed")],
    ],
)
async def test_valid_lists_are_returned_for_the_ui(tmp_path: Path, todos: list[Any]) -> None:
    result = await write(tmp_path, todos)
    assert result.content == RESULT_TEXT and not result.is_error
    assert result.display == {"kind": "todos", "todos": todos}
    assert list(tmp_path.iterdir()) == []  # no file touched


async def test_two_tasks_in_progress_are_refused(tmp_path: Path) -> None:
    todos = [todo("One", "in_progress"), todo("Two", "in_progress"), todo("Three")]
    with pytest.raises(ToolError, match="Only one task may be in_progress.*'One'; 'Two'"):
        await write(tmp_path, todos)


async def test_blank_text_is_refused_and_text_is_stripped(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match=r"todos\[1\]\.content must not be blank"):
        await write(tmp_path, [todo("fine"), todo("   ")])
    result = await write(tmp_path, [todo("  padded  ", "pending", " Padding ")])
    assert result.display == {"kind": "todos", "todos": [todo("padded", "pending", "Padding")]}


def test_summary_counts_tasks() -> None:
    assert TOOL.summary({"todos": [todo("a", "completed"), todo("b")]}) == "2 tasks, 1 completed"
    assert TOOL.summary({"todos": [todo("a")]}) == "1 task, 0 completed"
