"""The wording both UIs share: first lines cut by terminal cells, the compaction line."""

from __future__ import annotations

from agent import events as ev
from frontend.wording import cell_width, compaction_line, first_line


def test_first_line_takes_the_first_non_blank_line() -> None:
    assert first_line("\n  \n  fix the test \nmore") == "fix the test"
    assert first_line("") == ""


def test_first_line_cuts_by_cells_with_an_ellipsis() -> None:
    assert first_line("abcdef", 4) == "abc…"
    assert first_line("abcd", 4) == "abcd"
    wide = "日本語のテキスト"  # two cells a character
    cut = first_line(wide, 7)
    assert cut == "日本語…" and cell_width(cut) == 7
    assert cell_width("e\u0301") == 1  # a combining accent takes no cell


def test_the_compaction_line_says_how_and_how_much() -> None:
    event = ev.Compacted(1, "summary", dropped_messages=12, kept_messages=4, automatic=True)
    assert compaction_line(event) == (
        "Conversation compacted automatically: 12 messages summarised, 4 kept."
    )
