"""AskUserQuestion and ExitPlanMode in line mode: numbered choices asked at the prompt.

Each question prints its options numbered (``Other`` last); the answer is a number, several
for a multi-select question ("1,3"), or any other text, taken as the "Other" answer. A plan
prints whole, then 1 / 2 approve (and pick the mode), 3 rejects and asks what should change.
Esc (the turn is running) stops the turn, which withdraws the questions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agent import events as ev
from agent import ops
from frontend.ask import (
    FEEDBACK_PROMPT,
    PLAN_CHOICES,
    Choice,
    answer_for,
    choices,
    header,
    parse_picks,
)
from frontend.sanitize import sanitize
from plain.questions import Question

if TYPE_CHECKING:
    from plain.app import PlainApp


def ask_questions(app: PlainApp, event: ev.QuestionsAsked) -> None:
    """Ask ``event``'s questions one after the other; answer the engine after the last."""
    _QuestionsAsked(app, event).ask(0)


class _QuestionsAsked:
    """AskUserQuestion's questions at the prompt: the one asked, and the answers so far."""

    def __init__(self, app: PlainApp, event: ev.QuestionsAsked) -> None:
        self.app = app
        self.request_id = event.request_id
        self.questions = list(event.questions)
        self.answers: dict[str, str] = {}
        self.index = 0
        self.listed: list[Choice] = []
        """The choices of the question asked (``Other`` last)."""

    @property
    def question(self) -> dict[str, Any]:
        """The question asked."""
        return self.questions[self.index]

    @property
    def multi(self) -> bool:
        return bool(self.question.get("multiSelect"))

    def ask(self, index: int) -> None:
        """Print question ``index`` with its numbered choices and ask it; after the last
        one, answer the engine."""
        app = self.app
        if index == len(self.questions):
            app.submit(ops.AnswerQuestions(self.request_id, self.answers))
            return
        self.index = index
        q = self.question
        self.listed = choices(q)
        title = f"[{sanitize(header(q))}] {sanitize(str(q.get('question', '')))}"
        lines = [app.paint(title, "bold")]
        for c in self.listed:
            about = f" — {sanitize(c.description)}" if c.description else ""
            lines.append(f"  {c.number}. {sanitize(c.label)}{about}")
        app.printer.lines(lines)
        hint = "numbers, e.g. 1,3" if self.multi else f"1-{len(self.listed)}"
        message = f"Choose ({hint}) › "
        app.ask(Question(message, self.answer, self.stop, key=self.request_id), first=index > 0)

    def stop(self) -> None:
        """Esc: stop the turn (which withdraws the questions)."""
        self.app.submit(ops.Interrupt())

    def answer(self, text: str) -> bool:
        """The choice(s) typed, or words (the "Other" answer); whether it was an answer."""
        listed = self.listed
        picks = parse_picks(text, len(listed), self.multi)
        if picks is None:
            if text.strip() and not text.strip().isdigit():
                return self.other(text)  # words are the "Other" answer
            several = " (several: 1,3)" if self.multi else ""
            self.app.say(f"Answer 1-{len(listed)}{several}.", "yellow")
            return False
        other = listed[-1].number
        if other in picks:  # "Other": its text next, then the rest
            self._ask_other_text([*(p for p in picks if p != other), other])
            return True
        self._settle(answer_for(self.question, picks))
        return True

    def _ask_other_text(self, picks: list[int]) -> None:
        """Ask the text of the "Other" choice among ``picks``."""

        def typed(text: str) -> bool:
            return self._typed(text, lambda words: answer_for(self.question, picks, words))

        question = Question("Your answer › ", typed, self.stop, key=self.request_id)
        self.app.ask(question, first=True)

    def other(self, text: str) -> bool:
        """Typed words as the "Other" answer."""
        return self._typed(text, str.strip)

    def _typed(self, text: str, answer: Callable[[str], str]) -> bool:
        """A typed answer (``answer`` makes it the question's); empty is asked again."""
        if not text.strip():
            self.app.say("Type your answer (Esc stops the turn).", "yellow")
            return False
        self._settle(answer(text))
        return True

    def _settle(self, answer: str) -> None:
        """The question asked has ``answer``: on to the next one."""
        self.answers[str(self.question["question"])] = answer
        self.ask(self.index + 1)


def review_plan(app: PlainApp, event: ev.PlanReviewRequested) -> None:
    """Print the plan and ask: approve (which mode next) or reject with feedback."""
    request_id = event.request_id
    lines: list[str] = [app.paint("Plan for your review:", "bold")]
    lines += [f"  {sanitize(line)}" for line in event.plan.splitlines()]
    lines += [f"  {i}. {label}" for i, (label, _mode) in enumerate(PLAN_CHOICES, 1)]
    app.printer.lines(lines)

    def stop() -> None:
        app.submit(ops.Interrupt())

    def feedback(text: str) -> bool:
        app.submit(ops.AnswerPlan(request_id, False, feedback=text.strip()))
        return True

    def answer(text: str) -> bool:
        picks = parse_picks(text, len(PLAN_CHOICES), False)
        if picks is None:
            app.say(f"Answer 1-{len(PLAN_CHOICES)}; Esc stops the turn.", "yellow")
            return False
        mode: Any = PLAN_CHOICES[picks[0] - 1][1]
        if mode is None:
            app.ask(Question(f"{FEEDBACK_PROMPT} › ", feedback, stop, key=request_id), first=True)
        else:
            app.submit(ops.AnswerPlan(request_id, True, mode))
        return True

    app.ask(Question("Approve the plan? 1 / 2 / 3 › ", answer, stop, key=request_id))
