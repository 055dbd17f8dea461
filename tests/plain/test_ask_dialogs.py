"""AskUserQuestion and ExitPlanMode in line mode (issue 22): numbered choices at the prompt,
"Other" as free text, the plan approved with a mode or rejected with feedback, Esc stops."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent import events as ev
from tests.agent.test_ask_and_plan import PLAN, QUESTIONS, result_of, text_of
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.helpers.plain import ENTER, ESC, until


def call(call_id: str, name: str, **args: Any) -> Reply:
    return Reply([tool_use(call_id, name, args)], "tool_use")


async def test_numbered_choices_and_other_text(harness: Any, fake_api: FakeAnthropic) -> None:
    fake_api.push(call("toolu_q", "AskUserQuestion", questions=QUESTIONS), Reply([text("ok")]))
    h = harness()
    await h.start()
    h.type("set up" + ENTER)
    await h.event(ev.QuestionsAsked)
    await h.printed("3. Other — type your own answer")
    assert h.app.questions.message == "Choose (1-3) › "
    h.type("9" + ENTER)  # out of range: asked again
    await h.printed("Answer 1-3.")
    h.type("2" + ENTER)
    await h.printed("4. Other — type your own answer")  # the second question: 3 options + Other
    h.type("1,4" + ENTER)
    await until(lambda: "Your answer" in (h.app.questions.message or ""))
    h.type("Docs" + ENTER)
    answered = await h.event(ev.QuestionsAnswered)
    assert answered.answers == {
        QUESTIONS[0]["question"]: "SQLite",
        QUESTIONS[1]["question"]: "Tests, Docs",
    }
    await h.event(ev.TurnFinished)
    assert text_of(result_of(fake_api, "toolu_q")).startswith(
        'User has answered your questions: "Which database should the service use?"="SQLite"'
    )
    assert fake_api.violations == []
    assert await h.exit() == 0


async def test_words_are_the_other_answer(harness: Any, fake_api: FakeAnthropic) -> None:
    fake_api.push(call("toolu_q", "AskUserQuestion", questions=QUESTIONS[:1]), Reply([text("ok")]))
    h = harness()
    await h.start()
    h.type("set up" + ENTER)
    await h.event(ev.QuestionsAsked)
    h.type("DuckDB please" + ENTER)
    answered = await h.event(ev.QuestionsAnswered)
    assert answered.answers == {QUESTIONS[0]["question"]: "DuckDB please"}
    assert await h.exit() == 0


async def test_esc_at_a_question_stops_the_turn(harness: Any, fake_api: FakeAnthropic) -> None:
    fake_api.push(call("toolu_q", "AskUserQuestion", questions=QUESTIONS), Reply([text("ok")]))
    h = harness()
    await h.start()
    h.type("set up" + ENTER)
    await h.event(ev.QuestionsAsked)
    h.type(ESC)
    finished = await h.event(ev.TurnFinished)
    assert finished.subtype == "interrupted"
    await h.idle()
    assert not h.app.questions
    assert await h.exit() == 0


async def test_a_plan_is_approved_with_a_mode(
    harness: Any, fake_api: FakeAnthropic, workspace: Path
) -> None:
    fake_api.push(
        call("toolu_plan", "ExitPlanMode", plan=PLAN),
        call("toolu_w", "Write", file_path="hello.txt", content="hello\n"),
        Reply([text("done")]),
    )
    h = harness("--permission-mode", "plan")
    await h.start()
    h.type("plan it" + ENTER)
    await h.event(ev.PlanReviewRequested)
    await h.printed("1. Write hello.txt")
    await h.printed("3. No, keep planning")
    h.type("1" + ENTER)
    reviewed = await h.event(ev.PlanReviewed)
    assert reviewed.approved and reviewed.mode == "acceptEdits"
    await h.event(ev.TurnFinished)
    await h.printed("Plan approved: eddy goes on in acceptEdits mode.")
    assert (workspace / "hello.txt").read_text() == "hello\n"
    assert fake_api.violations == []
    assert await h.exit() == 0


async def test_a_plan_is_rejected_with_feedback(harness: Any, fake_api: FakeAnthropic) -> None:
    fake_api.push(call("toolu_plan", "ExitPlanMode", plan=PLAN), Reply([text("revising")]))
    h = harness("--permission-mode", "plan")
    await h.start()
    h.type("plan it" + ENTER)
    await h.event(ev.PlanReviewRequested)
    h.type("3" + ENTER)
    await until(lambda: "What should change" in (h.app.questions.message or ""))
    h.type("smaller steps" + ENTER)
    await h.event(ev.TurnFinished)
    result = result_of(fake_api, "toolu_plan")
    assert result["is_error"] and text_of(result).endswith("the user said:\nsmaller steps")
    assert h.app.session.config.policy.mode == "plan"
    assert await h.exit() == 0
