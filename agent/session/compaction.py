"""Compaction as the session does it: automatically before a call that would nearly fill the
window, or when asked (``/compact``). The summarising itself is in ``agent/compact.py``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent import events as ev
from agent.compact import CompactionError, compact
from agent.model import ModelRequest, estimate_tokens
from agent.pricing import context_window

if TYPE_CHECKING:
    from agent.loop import Turn
    from agent.session.core import Session


async def maybe_autocompact(session: Session, turn: Turn) -> bool:
    """Before a call of ``turn``: compact if it would pass the threshold. True if it did."""
    threshold = session.config.autocompact
    if threshold is None:
        return False
    window = context_window(session.config.model)
    known = turn.context_tokens or session.context_tokens
    history = session.history
    upcoming = known + estimate_tokens(history[-1].to_param()) if history else 0
    if upcoming < threshold * window:
        return False
    session.emit_event(ev.Notice(turn.turn_id, "Context nearly full: compacting the conversation."))
    return await compact_session(session, turn_id=turn.turn_id, automatic=True)


async def compact_session(
    session: Session, focus: str = "", *, turn_id: int = 0, automatic: bool = False
) -> bool:
    """Replace the session's history by a summary plus the recent turns. False if it failed."""
    spec = session.spec
    request = ModelRequest(spec.model, session.history, spec.system, spec.tools, spec.max_tokens)
    try:
        done = await compact(session.model, request, session.history, focus=focus)
    except CompactionError as exc:
        session.emit_event(
            ev.Error(
                turn_id,
                f"Compaction failed: {exc}. The conversation goes on uncompacted.",
                "compaction",
            )
        )
        return False
    session.history[:] = done.history  # in place: a running turn shares this list
    session.history_changed()
    config = session.config
    if config.refresh_system is not None:
        config.system = config.refresh_system()
        spec.system = [{"type": "text", "text": config.system}]
    session.context_tokens = session.estimate_context()
    session.recorder.write(lambda t: t.compaction(session.history, done.summary))
    session.emit_event(
        ev.Compacted(turn_id, done.summary, done.dropped_messages, done.kept_messages, automatic)
    )
    return True
