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


def test_why_a_turn_ended_is_said_only_where_the_user_must_act() -> None:
    from types import SimpleNamespace

    from frontend.wording import turn_end

    limits = SimpleNamespace(max_budget_usd=2.0, max_turns=5)
    budget = turn_end("error_max_budget_usd", limits) or ""
    turns = turn_end("error_max_turns", limits) or ""
    assert "past the $2.00 budget" in budget and "/budget AMOUNT" in budget
    assert "past 5 tool turns" in turns and "/turns N" in turns
    assert "Stopped" not in budget + turns  # the engine's notice says why
    for subtype in ("success", "interrupted", "error_during_execution"):
        assert turn_end(subtype, limits) is None  # their own events say it (or nothing to say)
