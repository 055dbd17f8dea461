"""AskUserQuestion and ExitPlanMode over ACP: the protocol has no dialog of its own, so each
becomes a ``session/request_permission`` whose options are the choices (a question's labels;
approve with accept-edits / approve / reject for a plan). The answer is the op the TUI's
dialogs send. A multi-select question offers its labels one at a time as single choices (the
protocol picks one option); a cancelled request (``session/cancel``) answers nothing: the
cancel interrupts the turn, which closes the call validly.
"""

from __future__ import annotations

import logging
from typing import Any

from acp import schema

from agent import events as ev
from agent import ops

log = logging.getLogger("eddy.acp")

PLAN_OPTIONS = [
    schema.PermissionOption(
        option_id="acceptEdits", name="Approve, accept edits", kind="allow_once"
    ),
    schema.PermissionOption(
        option_id="default", name="Approve, ask before edits", kind="allow_once"
    ),
    schema.PermissionOption(option_id="reject", name="Keep planning", kind="reject_once"),
]


def _call(call_id: str, title: str, text: str) -> schema.ToolCallUpdate:
    block = schema.ContentToolCallContent(
        type="content", content=schema.TextContentBlock(type="text", text=text)
    )
    return schema.ToolCallUpdate(
        tool_call_id=call_id, title=title, kind="think", status="pending", content=[block]
    )


async def _choose(
    conn: Any, session_id: str, call: schema.ToolCallUpdate, options: list[Any]
) -> str | None:
    try:
        response = await conn.request_permission(
            session_id=session_id, tool_call=call, options=options
        )
    except Exception as exc:  # the client failed to answer: treat as cancelled
        log.warning("dialog request failed: %s", exc)
        return None
    return getattr(response.outcome, "option_id", None)


async def ask_dialog(
    conn: Any, session_id: str, event: ev.QuestionsAsked | ev.PlanReviewRequested
) -> ops.Op | None:
    """Ask the client; the op answering ``event``, or None when the request was cancelled."""
    if isinstance(event, ev.PlanReviewRequested):
        chosen = await _choose(
            conn,
            session_id,
            _call(event.call_id, "Plan ready for review", event.plan),
            PLAN_OPTIONS,
        )
        if chosen is None:
            return None
        if chosen == "reject":
            return ops.AnswerPlan(event.request_id, False)
        mode: ops.PlanMode = "acceptEdits" if chosen == "acceptEdits" else "default"
        return ops.AnswerPlan(event.request_id, True, mode)
    answers: dict[str, str] = {}
    for question in event.questions:
        text = str(question.get("question", ""))
        labels = [
            str(o.get("label", "")) for o in question.get("options", []) if isinstance(o, dict)
        ]
        options = [
            schema.PermissionOption(option_id=str(i), name=label, kind="allow_once")
            for i, label in enumerate(labels)
        ]
        chosen = await _choose(
            conn,
            session_id,
            _call(event.call_id, str(question.get("header") or text), text),
            options,
        )
        if chosen is None or not chosen.isdigit() or int(chosen) >= len(labels):
            return None
        answers[text] = labels[int(chosen)]
    return ops.AnswerQuestions(event.request_id, answers)
