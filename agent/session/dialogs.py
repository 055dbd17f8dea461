"""Questions a tool asks the user (AskUserQuestion, ExitPlanMode), the way the gate asks for
permission: an event with a request id, answered by an operation, an asyncio Future between.

The tool awaits the Future inside the turn's task, so Esc (which cancels that task) ends the
wait like any running tool: the call gets the loop's "interrupted" result and the history stays
valid. In headless mode the session gives the tools no dialogs (``ctx.dialogs`` is None) and
they refuse.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any

from agent import events as ev
from agent import ops

PLAN_MODES = ("acceptEdits", "default")
"""The modes an approved plan may continue in."""


class SessionDialogs:
    """The session's :class:`tools.base.UserDialogs`.

    Args:
        emit: the session's event sink.
        turn_id: the current turn's id.
        mode: the permission mode now.
        set_mode: switch the permission mode (an approved plan leaves plan mode).
    """

    def __init__(
        self,
        emit: Callable[[ev.Event], None],
        turn_id: Callable[[], int],
        mode: Callable[[], str],
        set_mode: Callable[[str], None],
    ) -> None:
        self._emit = emit
        self._turn_id = turn_id
        self._mode = mode
        self._set_mode = set_mode
        self.pending: dict[str, asyncio.Future[Any]] = {}

    def permission_mode(self) -> str:
        """The session's permission mode now."""
        return self._mode()

    def answer(self, op: ops.AnswerQuestions | ops.AnswerPlan) -> None:
        """Deliver the user's answer (an unknown or stale id is ignored)."""
        fut = self.pending.get(op.request_id)
        if fut is not None and not fut.done():
            fut.set_result(op)

    async def _wait(self, prefix: str, event: Callable[[str], ev.Event]) -> Any:
        request_id = f"{prefix}-{uuid.uuid4().hex[:8]}"
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.pending[request_id] = fut
        try:
            self._emit(event(request_id))
            return await fut
        finally:
            self.pending.pop(request_id, None)

    async def ask_questions(self, call_id: str, questions: list[dict[str, Any]]) -> dict[str, str]:
        """Ask the user; their answer to each question, by question text."""
        turn = self._turn_id()
        answer: ops.AnswerQuestions = await self._wait(
            "ask", lambda rid: ev.QuestionsAsked(turn, rid, call_id, tuple(questions))
        )
        answers = {str(k): str(v) for k, v in answer.answers.items()}
        self._emit(ev.QuestionsAnswered(turn, answer.request_id, answers))
        return answers

    async def review_plan(self, call_id: str, plan: str) -> tuple[bool, str, str]:
        """Show the plan; (approved, the mode eddy continues in, feedback). An approval
        switches the mode before the result reaches the model."""
        turn = self._turn_id()
        review: ops.AnswerPlan = await self._wait(
            "plan", lambda rid: ev.PlanReviewRequested(turn, rid, call_id, plan)
        )
        mode = review.mode if review.mode in PLAN_MODES else "default"
        self._emit(ev.PlanReviewed(turn, review.request_id, review.approved, mode, review.feedback))
        if review.approved:
            self._set_mode(mode)
        return review.approved, mode, review.feedback
