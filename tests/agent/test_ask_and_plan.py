"""AskUserQuestion and ExitPlanMode (issue 22) through the real loop and the fake Messages API:
the question and plan events, their answers as Claude Code words them, Esc during a dialog,
headless refusals, and plan mode's read-only gate before the plan is approved."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent import events as ev
from agent import ops
from agent.model.anthropic import AnthropicModel
from agent.session.config import SessionConfig
from agent.session.core import Session
from agent.turn.loop import INTERRUPT_NOTE
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.helpers.events import Events
from tools import default_tools
from tools.ask_user_question import HEADLESS as ASK_HEADLESS
from tools.exit_plan_mode import APPROVED
from tools.exit_plan_mode import HEADLESS as PLAN_HEADLESS

QUESTIONS = [
    {
        "question": "Which database should the service use?",
        "header": "Database",
        "options": [
            {"label": "PostgreSQL", "description": "relational, the team knows it"},
            {"label": "SQLite", "description": "a file, nothing to run"},
        ],
        "multiSelect": False,
    },
    {
        "question": "Which checks should CI run?",
        "header": "CI",
        "options": [
            {"label": "Tests", "description": "pytest"},
            {"label": "Lint", "description": "ruff"},
            {"label": "Types", "description": "mypy"},
        ],
        "multiSelect": True,
    },
]


def make_session(
    fake: FakeAnthropic, ws: Path, *, mode: str = "default", headless: bool = False
) -> tuple[Session, Events]:
    ws.mkdir(exist_ok=True)
    events = Events()
    config = SessionConfig(workspace=ws, model="claude-sonnet-5-5", headless=headless)
    config.policy.mode = mode  # type: ignore[assignment]
    model = AnthropicModel("claude-sonnet-5-5", api_key="t", base_url=fake.base_url)
    return Session(config, model, default_tools(), events), events


def call(call_id: str, name: str, **args: Any) -> Reply:
    return Reply([tool_use(call_id, name, args)], "tool_use")


def result_of(fake: FakeAnthropic, call_id: str) -> dict[str, Any]:
    for body in fake.requests:
        for message in body["messages"]:
            for block in message["content"]:
                if isinstance(block, dict) and block.get("tool_use_id") == call_id:
                    return block
    raise AssertionError(f"no result for {call_id}")


def text_of(block: dict[str, Any]) -> str:
    content = block["content"]
    return content if isinstance(content, str) else "".join(b["text"] for b in content)


async def test_the_answers_reach_the_model_in_claude_codes_words(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    fake_api.push(call("toolu_q", "AskUserQuestion", questions=QUESTIONS), Reply([text("ok")]))
    session, events = make_session(fake_api, tmp_path / "ws")
    session.submit(ops.SubmitPrompt("set it up"))
    asked = await events.wait_for(ev.QuestionsAsked)
    assert asked.call_id == "toolu_q" and list(asked.questions) == QUESTIONS
    assert session.status().busy
    answers = {QUESTIONS[0]["question"]: "SQLite", QUESTIONS[1]["question"]: "Tests, Types"}
    session.submit(ops.AnswerQuestions(asked.request_id, answers))
    await session.wait_idle()
    await session.close()
    result = result_of(fake_api, "toolu_q")
    assert not result.get("is_error")
    assert text_of(result) == (
        'User has answered your questions: "Which database should the service use?"="SQLite", '
        '"Which checks should CI run?"="Tests, Types". You can now continue with the user\'s '
        "answers in mind."
    )
    assert events.of(ev.QuestionsAnswered)[0].answers == answers
    assert fake_api.violations == []


async def test_esc_during_the_questions_interrupts_the_turn_validly(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    fake_api.push(
        Reply(
            [text("Let me ask."), tool_use("toolu_q", "AskUserQuestion", {"questions": QUESTIONS})],
            "tool_use",
        ),
        Reply([text("as you wish")]),
    )
    session, events = make_session(fake_api, tmp_path / "ws")
    session.submit(ops.SubmitPrompt("set it up"))
    asked = await events.wait_for(ev.QuestionsAsked)
    session.submit(ops.Interrupt())
    finished = await events.wait_for(ev.TurnFinished)
    assert finished.subtype == "interrupted"
    session.submit(ops.AnswerQuestions(asked.request_id, {"x": "late"}))  # ignored
    assert session.dialogs.pending == {}
    session.submit(ops.SubmitPrompt("never mind, use SQLite"))
    await session.wait_idle()
    await session.close()
    assert fake_api.violations == []
    last = fake_api.requests[-1]["messages"][-1]["content"]
    assert last[0]["tool_use_id"] == "toolu_q" and last[0]["is_error"]
    assert [b["text"] for b in last[1:]] == [INTERRUPT_NOTE, "never mind, use SQLite"]


@pytest.mark.parametrize(
    ("tool", "args", "refusal"),
    [
        ("AskUserQuestion", {"questions": QUESTIONS}, ASK_HEADLESS),
        ("ExitPlanMode", {"plan": "1. do it"}, PLAN_HEADLESS),
    ],
)
async def test_headless_refuses_with_a_clear_result(
    fake_api: FakeAnthropic, tmp_path: Path, tool: str, args: dict[str, Any], refusal: str
) -> None:
    fake_api.push(call("toolu_1", tool, **args), Reply([text("decided myself")]))
    session, events = make_session(fake_api, tmp_path / "ws", mode="plan", headless=True)
    session.submit(ops.SubmitPrompt("go"))
    await session.wait_idle()
    await session.close()
    result = result_of(fake_api, "toolu_1")
    assert result["is_error"] and text_of(result) == refusal
    assert not events.of(ev.QuestionsAsked) and not events.of(ev.PlanReviewRequested)
    assert events.of(ev.TurnFinished)[-1].subtype == "success"
    assert fake_api.violations == []


@pytest.mark.parametrize(
    ("questions", "complaint"),
    [
        (QUESTIONS * 3, "at most 4"),
        ([{**QUESTIONS[0], "options": QUESTIONS[0]["options"][:1]}], "at least 2"),
        (
            [
                {
                    **QUESTIONS[0],
                    "options": [*QUESTIONS[0]["options"], {"label": "Other", "description": "x"}],
                }
            ],
            "Other",
        ),
        ([QUESTIONS[0], QUESTIONS[0]], "repeats"),
        ([], "at least 1"),
    ],
    ids=["five-questions", "one-option", "own-other", "same-question", "none"],
)
async def test_malformed_questions_are_an_error_result_and_ask_nothing(
    fake_api: FakeAnthropic, tmp_path: Path, questions: list[Any], complaint: str
) -> None:
    fake_api.push(call("toolu_q", "AskUserQuestion", questions=questions), Reply([text("oops")]))
    session, events = make_session(fake_api, tmp_path / "ws")
    session.submit(ops.SubmitPrompt("go"))
    await session.wait_idle()
    await session.close()
    result = result_of(fake_api, "toolu_q")
    assert result["is_error"] and complaint in text_of(result)
    assert not events.of(ev.QuestionsAsked)


PLAN = "1. Write hello.txt\n2. Say done"


async def test_plan_mode_refuses_writes_until_the_plan_is_approved(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    fake_api.push(
        call("toolu_w1", "Write", file_path="hello.txt", content="early\n"),
        call("toolu_plan", "ExitPlanMode", plan=PLAN),
        call("toolu_w2", "Write", file_path="hello.txt", content="hello\n"),
        Reply([text("done")]),
    )
    session, events = make_session(fake_api, ws, mode="plan")
    session.submit(ops.SubmitPrompt("plan then write"))
    review = await events.wait_for(ev.PlanReviewRequested)
    assert review.plan == PLAN and review.call_id == "toolu_plan"
    assert not (ws / "hello.txt").exists()  # the early write was refused
    session.submit(ops.AnswerPlan(review.request_id, True, "acceptEdits"))
    await session.wait_idle()
    await session.close()
    early = result_of(fake_api, "toolu_w1")
    assert early["is_error"] and "plan mode" in text_of(early)
    approved = result_of(fake_api, "toolu_plan")
    assert not approved.get("is_error") and text_of(approved).startswith(APPROVED)
    assert not result_of(fake_api, "toolu_w2").get("is_error")
    assert (ws / "hello.txt").read_text() == "hello\n"
    assert session.config.policy.mode == "acceptEdits"
    assert [e.mode for e in events.of(ev.PermissionModeChanged)] == ["acceptEdits"]
    assert fake_api.violations == []


async def test_a_rejected_plan_sends_the_feedback_and_stays_in_plan_mode(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    fake_api.push(
        call("toolu_plan", "ExitPlanMode", plan=PLAN),
        call("toolu_w", "Write", file_path="hello.txt", content="hello\n"),
        Reply([text("revising")]),
    )
    session, events = make_session(fake_api, ws, mode="plan")
    session.submit(ops.SubmitPrompt("plan"))
    review = await events.wait_for(ev.PlanReviewRequested)
    session.submit(ops.AnswerPlan(review.request_id, False, feedback="Use hi.txt instead"))
    await session.wait_idle()
    await session.close()
    rejected = result_of(fake_api, "toolu_plan")
    assert rejected["is_error"]
    assert text_of(rejected).endswith("the user said:\nUse hi.txt instead")
    assert result_of(fake_api, "toolu_w")["is_error"]  # still plan mode: no write
    assert not (ws / "hello.txt").exists()
    assert session.config.policy.mode == "plan"
    assert events.of(ev.PlanReviewed)[0].approved is False
    assert fake_api.violations == []


async def test_esc_during_the_plan_review_interrupts_validly(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    fake_api.push(call("toolu_plan", "ExitPlanMode", plan=PLAN), Reply([text("ok")]))
    session, events = make_session(fake_api, tmp_path / "ws", mode="plan")
    session.submit(ops.SubmitPrompt("plan"))
    await events.wait_for(ev.PlanReviewRequested)
    session.submit(ops.Interrupt())
    assert (await events.wait_for(ev.TurnFinished)).subtype == "interrupted"
    session.submit(ops.SubmitPrompt("go on"))
    await session.wait_idle()
    await session.close()
    assert session.config.policy.mode == "plan"
    assert fake_api.violations == []


async def test_exit_plan_mode_outside_plan_mode_is_an_error(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    fake_api.push(call("toolu_plan", "ExitPlanMode", plan=PLAN), Reply([text("ok")]))
    session, events = make_session(fake_api, tmp_path / "ws", mode="default")
    session.submit(ops.SubmitPrompt("plan"))
    await session.wait_idle()
    await session.close()
    result = result_of(fake_api, "toolu_plan")
    assert result["is_error"] and "only applies in plan mode" in text_of(result)
    assert not events.of(ev.PlanReviewRequested)
