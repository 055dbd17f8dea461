"""AskUserQuestion's and ExitPlanMode's dialogs in the TUI (issue 22): choices by number or
Enter, multi-select with Submit, "Other" text, a plan approved or rejected, Esc stops the turn
and leaves a valid history."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent import events as ev
from agent import ops
from agent.messages import TextBlock, ToolResultBlock, assistant, check_invariant
from agent.turn.loop import INTERRUPT_NOTE
from tests.agent.test_ask_and_plan import PLAN, QUESTIONS
from tests.fakes.scripted import ScriptedModel, tool_call
from tests.helpers.tui import SIZE, make_app, settle, type_and_send, wait_ready
from tools.ask_user_question import TOOL as ASK
from tools.exit_plan_mode import APPROVED
from tools.exit_plan_mode import TOOL as PLAN_TOOL
from tools.write import TOOL as WRITE
from tui.screens.plan_review import PlanReviewScreen
from tui.screens.questions import QuestionsScreen


def result(model: ScriptedModel, call_id: str) -> ToolResultBlock:
    for message in model.requests[-1].messages:
        for block in message.content:
            if isinstance(block, ToolResultBlock) and block.tool_use_id == call_id:
                return block
    raise AssertionError(call_id)


async def test_questions_dialog_answers_by_number_multi_select_and_other(workspace: Path) -> None:
    model = ScriptedModel(
        [assistant(tool_call("q1", "AskUserQuestion", questions=QUESTIONS)), "ok"]
    )
    app, events = make_app(workspace, model, [ASK])
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "set it up")
        await events.wait_for(ev.QuestionsAsked)
        await pilot.pause()
        assert isinstance(app.screen, QuestionsScreen)
        await pilot.press("2")  # SQLite
        await pilot.pause()
        await pilot.press("1", "3")  # toggle Tests and Types
        await pilot.press("4")  # Other: a line for text
        await pilot.pause()
        await pilot.press(*"Docs", "enter")
        answered = await events.wait_for(ev.QuestionsAnswered)
        await settle(app, pilot)
        assert not isinstance(app.screen, QuestionsScreen)
    assert answered.answers == {
        QUESTIONS[0]["question"]: "SQLite",
        QUESTIONS[1]["question"]: "Tests, Types, Docs",
    }
    got = result(model, "q1")
    assert not got.is_error and '"Which checks should CI run?"="Tests, Types, Docs"' in str(
        got.content
    )


async def test_multi_select_submit_with_enter(workspace: Path) -> None:
    model = ScriptedModel(
        [assistant(tool_call("q1", "AskUserQuestion", questions=QUESTIONS[1:])), "ok"]
    )
    app, events = make_app(workspace, model, [ASK])
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "ci")
        await events.wait_for(ev.QuestionsAsked)
        await pilot.pause()
        await pilot.press("enter")  # toggles the highlighted first option (Tests)
        await pilot.press("down", "enter")  # Lint
        await pilot.press("down", "down", "down", "enter")  # Submit
        answered = await events.wait_for(ev.QuestionsAnswered)
        await settle(app, pilot)
    assert answered.answers == {QUESTIONS[1]["question"]: "Tests, Lint"}


async def test_esc_in_the_questions_dialog_stops_the_turn(workspace: Path) -> None:
    model = ScriptedModel(
        [assistant(tool_call("q1", "AskUserQuestion", questions=QUESTIONS)), "after"]
    )
    app, events = make_app(workspace, model, [ASK])
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "set it up")
        await events.wait_for(ev.QuestionsAsked)
        await pilot.pause()
        await pilot.press("escape")
        finished = await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
        assert finished.subtype == "interrupted"
        assert not isinstance(app.screen, QuestionsScreen)
        history = app.session.history
        assert history[-1].content[0].is_error  # the call's interrupted result
        assert history[-1].content[-1] == TextBlock(INTERRUPT_NOTE)
        await type_and_send(pilot, "use SQLite")
        await events.wait_for(ev.TurnFinished, 2)
        await settle(app, pilot)
    check_invariant(model.requests[-1].messages)


async def test_plan_dialog_approves_and_switches_mode(workspace: Path) -> None:
    model = ScriptedModel(
        [
            assistant(tool_call("p1", "ExitPlanMode", plan=PLAN)),
            assistant(tool_call("w1", "Write", file_path="hello.txt", content="hello\n")),
            "done",
        ]
    )
    app, events = make_app(workspace, model, [PLAN_TOOL, WRITE], "--permission-mode", "plan")
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "plan it")
        await events.wait_for(ev.PlanReviewRequested)
        await pilot.pause()
        assert isinstance(app.screen, PlanReviewScreen)
        await pilot.press("enter")  # 1. Yes, and auto-accept edits
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
        assert app.session.config.policy.mode == "acceptEdits"
    assert str(result(model, "p1").content).startswith(APPROVED)
    assert (workspace / "hello.txt").read_text() == "hello\n"


async def test_plan_dialog_rejects_with_feedback(workspace: Path) -> None:
    model = ScriptedModel([assistant(tool_call("p1", "ExitPlanMode", plan=PLAN)), "revising"])
    app, events = make_app(workspace, model, [PLAN_TOOL], "--permission-mode", "plan")
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "plan it")
        await events.wait_for(ev.PlanReviewRequested)
        await pilot.pause()
        await pilot.press("3")
        await pilot.pause()
        await pilot.press(*"fewer steps", "enter")
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
        assert app.session.config.policy.mode == "plan"
    got = result(model, "p1")
    assert got.is_error and str(got.content).endswith("the user said:\nfewer steps")


async def test_a_turn_stopped_elsewhere_closes_its_open_questions_dialog(
    workspace: Path, monkeypatch: Any
) -> None:
    """A turn that ends while its question is still open (stopped by something other than
    the dialog's Esc) takes the dialog away: no one would read the answer. A turn that ends
    with no dialog open does not even look for one (the dialogs' module, ~80 ms to import,
    was imported at the end of every session's first turn)."""
    import tui.screens.ask_dialogs as dialogs

    closing: list[object] = []
    close = dialogs.close_dialogs

    def counted(screen: Any) -> None:
        closing.append(screen)
        close(screen)

    monkeypatch.setattr(dialogs, "close_dialogs", counted)
    model = ScriptedModel(
        ["plain answer", assistant(tool_call("q1", "AskUserQuestion", questions=QUESTIONS))]
    )
    app, events = make_app(workspace, model, [ASK])
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "hello")
        await events.wait_for(ev.TurnFinished)
        await settle(app, pilot)
        assert closing == []
        await type_and_send(pilot, "set it up")
        await events.wait_for(ev.QuestionsAsked)
        await pilot.pause()
        assert isinstance(app.screen, QuestionsScreen)
        app.session.submit(ops.Interrupt())
        await events.wait_for(ev.TurnFinished, 2)
        await settle(app, pilot)
        assert closing and not isinstance(app.screen, QuestionsScreen)
