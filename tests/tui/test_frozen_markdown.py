"""FrozenMarkdown renders what Textual's Markdown would: tables drawn, not left as pipes."""

from __future__ import annotations

from tui.widgets.frozen_markdown import estimate_height, markdown_to_content

TABLE = (
    "| name | size | kind |\n|:--|--:|:-:|\n| a.py | 12 | **code** |\n| long_name.md | 3 | doc |\n"
)


def test_a_table_is_drawn_with_aligned_columns() -> None:
    lines = markdown_to_content(TABLE).plain.split("\n")
    assert lines == [
        "┌──────────────┬──────┬──────┐",
        "│ name         │ size │ kind │",
        "├──────────────┼──────┼──────┤",
        "│ a.py         │   12 │ code │",
        "│ long_name.md │    3 │ doc  │",
        "└──────────────┴──────┴──────┘",
    ]


def test_table_header_is_bold_and_inline_styles_survive() -> None:
    content = markdown_to_content(TABLE)
    plain = content.plain
    bold = {plain[s.start : s.end] for s in content.spans if "bold" in str(s.style)}
    assert {"name", "size", "kind", "code"} <= bold


def test_a_short_row_gets_empty_cells_and_a_table_in_a_list_is_indented() -> None:
    text = "- item\n\n  | a | b |\n  |---|---|\n  | 1 |\n"
    lines = markdown_to_content(text).plain.split("\n")
    assert lines[2:] == ["  ┌───┬───┐", "  │ a │ b │", "  ├───┼───┤", "  │ 1 │   │", "  └───┴───┘"]


def test_the_height_estimate_counts_the_table_borders_but_not_a_rule() -> None:
    for text in (f"Intro.\n\n{TABLE}\nAfter.\n", "a\n\n---\n\nb"):
        assert estimate_height(text, 80) == markdown_to_content(text).get_height({}, 80)
