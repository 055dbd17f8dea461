"""The collapsed body of a tool block (no app needed: the body is plain Content)."""

from __future__ import annotations

import pytest

from tui.widgets.conversation.tool_call import ToolCallBlock


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


def test_fit_rows_counts_screen_rows_not_logical_lines() -> None:
    from tui.widgets.conversation.tool_call import fit_rows

    assert fit_rows(["a" * 20_000], 4, 100) == (["a" * 400], 0, 19_600)
    assert fit_rows(["x", "y" * 250, "z"], 4, 100) == (["x", "y" * 250], 1, 0)
    assert fit_rows(["x", "y" * 250], 4, 100) == (["x", "y" * 250], 0, 0)
    assert fit_rows(["x", "y" * 350, "z"], 4, 100) == (["x", "y" * 300], 1, 50)
    assert fit_rows(["1", "2", "3", "4", "5"], 4, 100) == (["1", "2", "3", "4"], 1, 0)


def test_a_collapsed_20000_character_line_fills_four_rows_not_two_hundred() -> None:
    block = ToolCallBlock("b1", "Bash", "cat min.js", clock=lambda: 0.0)
    block._schedule_body = lambda: None  # type: ignore[method-assign]  # not mounted
    block._timer = None
    block.finish("done", "x" * 20_000, False, None)
    body = block._body_content()
    assert body is not None
    width = block._width()
    assert body.plain.startswith("x" * (4 * width) + "…")
    assert f"+{20_000 - 4 * width:,} characters" in body.plain
    assert "click to expand" in body.plain
    block.expanded = True
    assert block._body_content().plain == "x" * 20_000  # expanded: all of it
