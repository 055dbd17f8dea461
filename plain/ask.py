"""AskUserQuestion and ExitPlanMode in line mode: numbered choices asked at the prompt.

Each question prints its options numbered (``Other`` last); the answer is a number, several
for a multi-select question ("1,3"), or any other text, taken as the "Other" answer. A plan
prints whole, then 1 / 2 approve (and pick the mode), 3 rejects and asks what should change.
Esc (the turn is running) stops the turn, which withdraws the questions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent import events as ev
from agent import ops
from frontend.ask import FEEDBACK_PROMPT, PLAN_CHOICES, answer_for, choices, header, parse_picks
from frontend.sanitize import sanitize
from plain.questions import Question

if TYPE_CHECKING:
    from plain.app import PlainApp


def ask_questions(app: PlainApp, event: ev.QuestionsAsked) -> None:  # noqa: C901
    """Ask ``event``'s questions one after the other; answer the engine after the last."""
    request_id = event.request_id
    questions = list(event.questions)
    answers: dict[str, str] = {}

    def stop() -> None:
        app.submit(ops.Interrupt())

    def ask(index: int) -> None:  # noqa: C901
        if index == len(questions):
            app.submit(ops.AnswerQuestions(request_id, answers))
            return
        q = questions[index]
        listed = choices(q)
        multi = bool(q.get("multiSelect"))
        lines = [
            app.paint(f"[{sanitize(header(q))}] {sanitize(str(q.get('question', '')))}", "bold")
        ]
        for c in listed:
            about = f" — {sanitize(c.description)}" if c.description else ""
            lines.append(f"  {c.number}. {sanitize(c.label)}{about}")
        app.printer.lines(lines)

        def other(text: str) -> bool:
            if not text.strip():
                app.say("Type your answer (Esc stops the turn).", "yellow")
                return False
            answers[str(q["question"])] = text.strip()
            ask(index + 1)
            return True

        def answer(text: str) -> bool:
            picks = parse_picks(text, len(listed), multi)
            if picks is None:
                if text.strip() and not text.strip().isdigit():
                    return other(text)  # words are the "Other" answer
                app.say(f"Answer 1-{len(listed)}{' (several: 1,3)' if multi else ''}.", "yellow")
                return False
            if listed[-1].number in picks:  # "Other": its text next, then the rest
                rest = [p for p in picks if p != listed[-1].number]

                def other_with_rest(text: str) -> bool:
                    if not text.strip():
                        app.say("Type your answer (Esc stops the turn).", "yellow")
                        return False
                    answers[str(q["question"])] = answer_for(q, [*rest, listed[-1].number], text)
                    ask(index + 1)
                    return True

                app.ask(
                    Question("Your answer › ", other_with_rest, stop, key=request_id), first=True
                )
                return True
            answers[str(q["question"])] = answer_for(q, picks)
            ask(index + 1)
            return True

        hint = "numbers, e.g. 1,3" if multi else f"1-{len(listed)}"
        app.ask(Question(f"Choose ({hint}) › ", answer, stop, key=request_id), first=index > 0)

    ask(0)


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
