"""An interrupted answer's open markdown is closed for display (issue 25: it showed raw)."""

from __future__ import annotations

import pytest

from frontend.partial_markdown import close_partial


@pytest.mark.parametrize(
    ("cut", "shown"),
    [
        ("Some **bold text", "Some **bold text**"),
        ("Call `parse", "Call `parse`"),
        ("An *emphasised word", "An *emphasised word*"),
        ("**bold *and it", "**bold *and it***"),
        ("the `a*b` and **b", "the `a*b` and **b**"),
        ("- item one\n- item **two", "- item one\n- item **two**"),
        ("Here:\n\n```python\ndef f():\n    ret", "Here:\n\n```python\ndef f():\n    ret\n```\n"),
        ("```\ncode\n```\nafter **b", "```\ncode\n```\nafter **b**"),
        ("It ends with **", "It ends with"),
        ("so `", "so"),
    ],
)
def test_what_the_cut_left_open_is_closed(cut: str, shown: str) -> None:
    assert close_partial(cut) == shown


@pytest.mark.parametrize(
    "complete",
    [
        "done.",
        "**done** and *it* and `code`",
        "my_var and __init__ stay",
        "1. one\n2. two\n* bullet",
        "```\nx = a ** b\n```\n",
        "a **b** c\n\nnew *paragraph*",
    ],
)
def test_complete_markdown_is_left_as_it_is(complete: str) -> None:
    assert close_partial(complete) == complete
