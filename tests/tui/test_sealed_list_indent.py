"""A sealed answer keeps its numbered list's indent (issue 25: once sealed, an item's second
line was joined to its first and wrapped to the left margin)."""

from __future__ import annotations

from textual.containers import VerticalScroll

from tests.tui.test_stream_handover import AnswerApp
from tui.widgets.conversation.assistant_text import AssistantText
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
    app = AnswerApp()
    async with app.run_test(size=(100, 30)) as pilot:
        answer = AssistantText()
        await app.query_one(VerticalScroll).mount(answer)
        answer.append(text)
        answer.finish()
        while not answer.finished:
            await pilot.pause()
        await app.workers.wait_for_complete()
        lines = answer.render().plain.split("\n")
    firsts = [n for n, line in enumerate(lines) if line.split(". Step")[0].isdigit()]
    assert len(firsts) == 40
    for n in firsts:  # the second line starts where the item's text does: 3 or 4 columns in
        column = lines[n].index("Step")
        assert (
            lines[n + 1]
            == " " * column + "It then moves on to the next part of the plan without delay."
        )


LONG_ITEM = " ".join(f"word{n}" for n in range(80))
"""One source line much wider than the screen."""


async def _sealed_screen_lines(text: str, width: int) -> list[str]:
    """The sealed answer's lines as painted at ``width`` (render_line, as the screen asks)."""
    app = AnswerApp()
    async with app.run_test(size=(width, 30)) as pilot:
        answer = AssistantText()
        await app.query_one(VerticalScroll).mount(answer)
        answer.append(text)
        answer.finish()
        while not answer.settled:
            await pilot.pause()
        await pilot.pause()
        assert answer.materialized
        return [answer.render_line(y).text.rstrip() for y in range(answer.size.height)]


async def test_a_long_list_item_wraps_under_its_text_once_sealed() -> None:
    filler = "".join(f"- short item {i} of the list before the long one\n" for i in range(70))
    text = f"Intro.\n\n{filler}- {LONG_ITEM}\n12. no: a numbered one\n\nThe end.\n"
    lines = await _sealed_screen_lines(text, 60)
    first = next(n for n, line in enumerate(lines) if line.startswith("• word0 "))
    wrapped = []
    for line in lines[first + 1 :]:
        if not line.startswith("  word"):
            break
        wrapped.append(line)
    assert len(wrapped) >= 8  # 80 words of 6-7 characters at 58 columns
    assert all(len(line) <= 60 for line in [lines[first], *wrapped])
    joined = " ".join([lines[first][2:], *(line[2:] for line in wrapped)])
    assert joined == LONG_ITEM  # nothing lost or doubled at the wraps


async def test_a_numbered_items_long_line_hangs_under_its_number() -> None:
    filler = "".join(f"{i}. a short step of the plan, one of many\n" for i in range(1, 80))
    text = f"Plan.\n\n{filler}80. {LONG_ITEM}\n\nDone.\n"
    lines = await _sealed_screen_lines(text, 70)
    first = next(n for n, line in enumerate(lines) if line.startswith("80. word0 "))
    assert lines[first + 1].startswith("    word") and lines[first + 2].startswith("    word")


def test_hanging_lines_name_where_each_line_starts_in_the_paragraph() -> None:
    from textual.content import Content

    from tui.widgets.conversation.hanging import hanging_lines

    paragraph = Content(f"  • {LONG_ITEM}")
    parts = hanging_lines(paragraph, 40)
    assert len(parts) > 5
    for part, dx in parts:  # selection maps a drawn column x to paragraph column x + dx
        drawn = part.plain
        assert paragraph.plain[4 + dx : 4 + dx + len(drawn) - 4] == drawn[4:]
    assert hanging_lines(Content("plain text " * 10), 40) == [(Content("plain text " * 10), 0)]


async def test_a_loose_list_streamed_word_by_word_shows_as_the_whole_text_renders() -> None:
    """Pieces are rendered alone: a cut between a loose list's items (or before an item's
    indented second paragraph) would draw them as separate lists, the paragraph at the left
    margin."""
    text = (
        "Intro.\n\n1. one\n\n2. two\n\n   more about two, indented under it\n\n"
        "- a\n\n- b\n\nAfter the lists.\n"
    )
    app = AnswerApp()
    async with app.run_test(size=(100, 30)) as pilot:
        answer = AssistantText()
        await app.query_one(VerticalScroll).mount(answer)
        for word in text.split(" "):
            answer.append(word + " ")
            while word not in answer.source:  # written: sealed or in the tail
                await pilot.pause()
        answer.finish()
        while not answer.finished:
            await pilot.pause()
        shown = answer.render().plain
    assert shown == markdown_to_content(answer.text).plain
    assert "\n  more about two" in shown  # under its item, not at the margin
