"""A permission question, asked inline: what will run, then y / a(lways) / n, then why not."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent import events as ev
from agent import ops
from plain.questions import Question, permission_decision

if TYPE_CHECKING:
    from plain.app import PlainApp


def ask_permission(app: PlainApp, event: ev.PermissionRequested) -> None:
    """Print what ``event``'s call would do and ask whether it may; answer the engine.

    "n" asks for an optional reason, which the model reads in the refusal. Backing out (Esc,
    Ctrl+C, the end of input) is a plain "no".
    """
    app.printer.lines(app.renderer.permission(event))
    request_id = event.request_id

    def deny(reason: str = "") -> None:
        app.submit(ops.AnswerPermission(request_id, "deny", reason))

    def why(reason: str) -> bool:
        deny(reason.strip())
        return True

    def answer(text: str) -> bool:
        decision = permission_decision(text)
        if decision is None:
            app.say("Answer y (yes), a (always) or n (no); Esc stops the turn.", "yellow")
            return False
        if decision == "deny":
            message = "Why not? (optional, the model reads it; Enter skips) › "
            app.ask(Question(message, why, deny, key=request_id), first=True)
        else:
            app.submit(ops.AnswerPermission(request_id, decision))  # type: ignore[arg-type]
        return True

    message = f"Allow {event.name}? y / a(lways) / n › "
    app.ask(Question(message, answer, deny, key=request_id))
