"""``ops.Rewind`` as the session applies it: code and/or conversation back to before a prompt
(the checkpoints and the rewind list are in agent/checkpoints/rewind_list.py and
agent/checkpoints/engine.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent import events as ev
from agent import ops
from agent.checkpoints.rewind_list import RewindError

if TYPE_CHECKING:
    from agent.session.core import Session


def rewind_session(session: Session, op: ops.Rewind) -> None:
    """Rewind ``session`` as ``op`` says; an Error event explains a refusal."""
    if session.busy:
        session.emit_event(ev.Error(0, "Stop the running turn (Esc) before rewinding.", "rewind"))
        return
    try:
        new, done = session.rewinder.apply(
            op.number, op.mode, op.overwrite_conflicts, session.history
        )
    except RewindError as exc:
        session.emit_event(ev.Error(0, str(exc), "rewind"))
        return
    if new is not None:
        session.history[:] = new
        session.history_changed()
        # the last call saw messages that are gone: estimate what is kept
        session.context_tokens = session.estimate_context()
        session.record()
    session.emit_event(done)
