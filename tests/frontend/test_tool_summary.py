"""frontend/tool_summary.py: the words both front ends use for a tool call."""

from __future__ import annotations

from typing import get_args

import pytest

from agent.events import ToolStatus
from frontend.tool_summary import (
    clip_lines,
    diff_counts,
    is_problem,
    more_lines,
    result_text,
    state_mark,
    state_word,
)


@pytest.mark.parametrize(
    ("state", "mark", "word", "problem"),
    [
        ("pending", "○", "pending", False),
        ("asking", "?", "waiting for permission", False),
        ("running", "●", "running", False),
        ("done", "✓", "done", False),
        ("failed", "✗", "failed", True),
        ("refused", "⊘", "refused", True),
        ("interrupted", "■", "interrupted", True),
    ],
)
def test_each_state_has_a_mark_and_a_word(state: str, mark: str, word: str, problem: bool) -> None:
    assert state_mark(state) == mark
    assert state_word(state) == word
    assert is_problem(state) is problem


def test_an_unknown_state_keeps_its_name() -> None:
    assert state_mark("queued") == "●"
    assert state_word("queued") == "queued"
    assert not is_problem("queued")


def test_every_finished_status_is_known() -> None:
    for status in get_args(ToolStatus):
        assert state_word(status) == status
        assert state_mark(status) != "●"


def test_result_text_of_a_string_is_itself() -> None:
    assert result_text("a\nb") == "a\nb"


def test_result_text_joins_blocks_and_names_images() -> None:
    content = (
        {"type": "text", "text": "first"},
        {"type": "image", "source": {"type": "base64", "data": "..."}},
        {"type": "text", "text": "last"},
        {"text": "no type"},
    )
    assert result_text(content) == "first\n[image]\nlast\n[block]"
    assert result_text([]) == ""


def test_clip_lines_keeps_the_first_and_counts_the_rest() -> None:
    lines = ["1", "2", "3", "4", "5"]
    assert clip_lines(lines, 2) == (["1", "2"], 3)
    assert clip_lines(lines, 5) == (lines, 0)
    assert clip_lines(lines, 9) == (lines, 0)
    assert clip_lines(lines, 0) == ([], 5)
    assert clip_lines(lines, -3) == ([], 5)
    assert clip_lines([], 4) == ([], 0)


def test_more_lines() -> None:
    assert more_lines(12) == "… 12 more lines"


def test_diff_counts() -> None:
    assert diff_counts({"kind": "diff", "added": 12, "removed": 3}) == "+12 -3"
    assert diff_counts({"kind": "diff"}) == "+0 -0"
