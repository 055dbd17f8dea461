"""A sealed answer keeps its numbered list's indent (issue 25: once sealed, an item's second
line was joined to its first and wrapped to the left margin)."""

from __future__ import annotations

from textual.containers import VerticalScroll

from tests.tui.test_stream_handover import AnswerApp
from tui.widgets.conversation.assistant_text import SEAL_CHARS, AssistantText
from tui.widgets.conversation.markdown_content import markdown_to_content

ITEMS = "".join(
    f"{i}. Step {i} checks the bounds of the buffer and logs what it found there.\n"
    f"   It then moves on to the next part of the plan without delay.\n"
    for i in range(1, 41)
)


def test_a_list_items_lines_start_at_its_text_column() -> None:
    lines = markdown_to_content("1. one\n   two\n10. ten\n    eleven\n- a\n  b\n").plain.split("\n")
    assert lines == ["1. one", "   two", "2. ten", "   eleven", "• a", "  b"]


def test_a_nested_items_lines_keep_the_nesting() -> None:
    plain = markdown_to_content("- top\n  - inner\n    more\n").plain
    assert plain.split("\n") == ["• top", "  • inner", "    more"]


def test_paragraphs_outside_lists_still_join_their_lines() -> None:
    assert markdown_to_content("one\ntwo\n").plain == "one two"


async def test_the_sealed_forty_items_keep_their_indent() -> None:
    text = f"Here is the whole plan.\n\n{ITEMS}\nThat is the end of the plan.\n"
    assert len(text) > SEAL_CHARS
    app = AnswerApp()
    async with app.run_test(size=(100, 30)) as pilot:
        answer = AssistantText()
        await app.query_one(VerticalScroll).mount(answer)
        answer.add(text)
        answer.finish()
        while not answer.finished:
            await pilot.pause()
        await app.workers.wait_for_complete()
        assert answer.sealed is not None
        lines = answer.sealed.render().plain.split("\n")
    firsts = [n for n, line in enumerate(lines) if line.split(". Step")[0].isdigit()]
    assert len(firsts) == 40
    for n in firsts:  # the second line starts where the item's text does: 3 or 4 columns in
        column = lines[n].index("Step")
        assert (
            lines[n + 1]
            == " " * column + "It then moves on to the next part of the plan without delay."
        )
