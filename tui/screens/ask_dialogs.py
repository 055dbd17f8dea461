"""Opening and closing the dialogs of AskUserQuestion and ExitPlanMode for the main screen:
each answers the engine when it closes (the answers, the review, or Esc: stop the turn), unless
the turn ended first (then it is closed with nothing to send)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent import events as ev
from agent import ops
from tui.screens.plan_review import PlanReviewScreen, Review
from tui.screens.questions import QuestionsScreen

if TYPE_CHECKING:
    from tui.screens.main import MainScreen


def open_dialog(screen: MainScreen, event: ev.QuestionsAsked | ev.PlanReviewRequested) -> None:
    """Push the dialog ``event`` asks for; its result goes to the session."""
    session = screen.session
    if session is None:
        return

    if isinstance(event, ev.QuestionsAsked):
        questions = QuestionsScreen(event.request_id, event.questions)

        def answered(answers: dict[str, str] | None) -> None:
            if questions.withdrawn:
                return
            if answers is None:
                session.submit(ops.Interrupt())
            else:
                session.submit(ops.AnswerQuestions(event.request_id, answers))

        screen.app.push_screen(questions, answered)
        return

    review_screen = PlanReviewScreen(event.request_id, event.plan)

    def reviewed(review: Review | None) -> None:
        if review_screen.withdrawn:
            return
        if review is None:
            session.submit(ops.Interrupt())
            return
        approved, mode, feedback = review
        plan_mode: ops.PlanMode = "acceptEdits" if mode == "acceptEdits" else "default"
        session.submit(ops.AnswerPlan(event.request_id, approved, plan_mode, feedback))

    screen.app.push_screen(review_screen, reviewed)


def close_dialogs(screen: MainScreen) -> None:
    """Close the question and plan dialogs the engine no longer waits for."""
    app = screen.app
    while isinstance(app.screen, QuestionsScreen | PlanReviewScreen):
        dialog = app.screen
        dialog.withdrawn = True
        dialog.dismiss(None)
