"""An interrupted answer shows its text, not the raw markdown the cut left open (issue 25):
``**bold`` without its closing marker, a code fence that swallows what follows."""

from __future__ import annotations

import pytest
from textual.containers import VerticalScroll

from tests.tui.test_stream_handover import AnswerApp
from tui.widgets.conversation.assistant_text import AssistantText


async def interrupted(text: str, *, finish_early: bool = False) -> AssistantText:
    app = AnswerApp()
    async with app.run_test(size=(100, 30)) as pilot:
        answer = AssistantText()
        await app.query_one(VerticalScroll).mount(answer)
        answer.append(text)
        if not finish_early:
            await pilot.pause()  # streamed live first
        answer.finish(interrupted=True)
        while not answer.finished:
            await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        answer.shown = answer.render().plain  # type: ignore[attr-defined]
        return answer


@pytest.mark.parametrize("finish_early", [False, True])
async def test_an_unclosed_bold_shows_as_bold_text(finish_early: bool) -> None:
    answer = await interrupted("The fix is **to check the bou", finish_early=finish_early)
    assert "**" not in answer.shown  # type: ignore[attr-defined]
    assert "to check the bou" in answer.shown  # type: ignore[attr-defined]
    assert answer.text == "The fix is **to check the bou"  # what was received, unchanged


async def test_a_dangling_marker_at_the_end_is_not_shown() -> None:
    answer = await interrupted("Here is the plan, in short **")
    assert answer.shown.rstrip().endswith("in short")  # type: ignore[attr-defined]


async def test_a_long_interrupted_answer_is_closed_in_its_sealed_end() -> None:
    prose = "".join(f"Paragraph {i} says something about the code.\n\n" for i in range(100))
    answer = await interrupted(prose + "Last one with `code_that_was")
    assert answer.pieces > 1  # the prose was sealed before the cut
    assert "`" not in answer.shown and "code_that_was" in answer.shown  # type: ignore[attr-defined]
