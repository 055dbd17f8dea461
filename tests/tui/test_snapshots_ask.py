"""SVG snapshots of AskUserQuestion's and ExitPlanMode's dialogs (issue 22). Deterministic as
tests/tui/test_snapshots_states.py: fixed size, frozen clock, scripted models. Review the SVGs
before ``--snapshot-update``."""

from __future__ import annotations

from pathlib import Path

from agent import events as ev
from agent.messages import assistant
from tests.agent.test_ask_and_plan import QUESTIONS
from tests.fakes.scripted import ScriptedModel, tool_call
from tests.helpers.tui import SIZE, make_app, type_and_send, wait_ready
from tools.ask_user_question import TOOL as ASK
from tools.exit_plan_mode import TOOL as PLAN_TOOL

PLAN = """## Plan

1. Add `total()` rounding to two decimals in `shop/cart.py`
2. Cover it with a test in `tests/test_cart.py`
3. Run the suite"""


def test_questions_dialog(snap_compare, workspace: Path) -> None:
    """The first of two questions, the second option highlighted, "Other" last."""
    model = ScriptedModel([assistant(tool_call("q1", "AskUserQuestion", questions=QUESTIONS))])
    app, events = make_app(workspace, model, [ASK])

    async def run_before(pilot) -> None:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "set up the service")
        await events.wait_for(ev.QuestionsAsked)
        await pilot.pause()
        await pilot.press("down")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_multi_select_question_with_a_pick(snap_compare, workspace: Path) -> None:
    """A multi-select question: one option ticked, Submit last."""
    model = ScriptedModel([assistant(tool_call("q1", "AskUserQuestion", questions=QUESTIONS[1:]))])
    app, events = make_app(workspace, model, [ASK])

    async def run_before(pilot) -> None:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "set up CI")
        await events.wait_for(ev.QuestionsAsked)
        await pilot.pause()
        await pilot.press("2")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_plan_review_dialog(snap_compare, workspace: Path) -> None:
    """The plan as markdown, then approve (two modes) or keep planning."""
    model = ScriptedModel([assistant(tool_call("p1", "ExitPlanMode", plan=PLAN))])
    app, events = make_app(workspace, model, [PLAN_TOOL], "--permission-mode", "plan")

    async def run_before(pilot) -> None:
        await wait_ready(app, pilot)
        await type_and_send(pilot, "fix the rounding")
        await events.wait_for(ev.PlanReviewRequested)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
