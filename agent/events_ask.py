"""Events that ask the person something and say how it was answered: a permission question,
AskUserQuestion's questions, ExitPlanMode's plan review. Part of ``agent.events.Event``
(import them from there)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal


@dataclass(frozen=True)
class PermissionRequested:
    """A call needs the user's approval; answer with ``ops.AnswerPermission(request_id, ...)``.

    Attributes:
        preview: the unified diff the call would make (Edit, MultiEdit, Write), computed by
            the engine so every front end (eddy-events too) shows the same; None otherwise.
    """

    turn_id: int
    request_id: str
    call_id: str
    name: str
    input: dict[str, Any]
    summary: str
    suggested_rule: str | None = None
    warning: str = ""
    """Why this call asks although a rule or the mode would allow it (a protected file, no
    sandbox); empty for an ordinary question."""
    preview: str | None = None
    agent: str = ""
    """The subagent that asks (its id and type, ``"a1b2 (Explore)"``); empty for the main
    agent. A subagent's questions go to the same user, answered by the same op."""
    type: Literal["permission_requested"] = "permission_requested"


@dataclass(frozen=True)
class PermissionResolved:
    turn_id: int
    request_id: str
    decision: str
    type: Literal["permission_resolved"] = "permission_resolved"


@dataclass(frozen=True)
class QuestionsAsked:
    """AskUserQuestion: the model asks the user; answer with ``ops.AnswerQuestions``.

    Attributes:
        questions: the tool's ``questions`` as the model wrote them (question, header,
            options with label and description, multiSelect).
    """

    turn_id: int
    request_id: str
    call_id: str
    questions: tuple[dict[str, Any], ...]
    type: Literal["questions_asked"] = "questions_asked"


@dataclass(frozen=True)
class QuestionsAnswered:
    """The user answered (``answers``: question text -> answer)."""

    turn_id: int
    request_id: str
    answers: dict[str, str]
    type: Literal["questions_answered"] = "questions_answered"


@dataclass(frozen=True)
class PlanReviewRequested:
    """ExitPlanMode: the model presents its plan; answer with ``ops.AnswerPlan``."""

    turn_id: int
    request_id: str
    call_id: str
    plan: str
    type: Literal["plan_review_requested"] = "plan_review_requested"


@dataclass(frozen=True)
class PlanReviewed:
    """The user approved the plan (and eddy continues in ``mode``) or rejected it."""

    turn_id: int
    request_id: str
    approved: bool
    mode: str
    feedback: str = ""
    type: Literal["plan_reviewed"] = "plan_reviewed"
