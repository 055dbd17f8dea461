"""The collapsed body of a tool block (no app needed: the body is plain Content)."""

from __future__ import annotations

import pytest

from tui.widgets.tool_call import ToolCallBlock


@pytest.mark.parametrize(
    ("result", "shown"),
    [
        ("     1\tonly line", "Read 1 line  (click to show)"),
        ("a\nb\nc", "Read 3 lines  (click to show)"),
        ("", "Read an empty file  (click to show)"),
    ],
)
def test_a_collapsed_read_counts_its_lines_in_words(result: str, shown: str) -> None:
    block = ToolCallBlock("r1", "Read", "app.py", clock=lambda: 0.0)
    block._schedule_body = lambda: None  # type: ignore[method-assign]  # not mounted
    block._timer = None
    block.finish("done", result, False, None)
    body = block._body_content()
    assert body is not None and body.plain == shown
