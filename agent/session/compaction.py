"""Compaction as a session does it: automatically before a call that would nearly fill the
window, or when asked (``/compact``). The summarising itself is in ``agent/turn/compact.py``.

``Compactor`` sits below the session: it rewrites the ``Conversation`` it is given (the one
writer of the history) and refreshes the system prompt; it never touches the session itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from agent import events as ev
from agent.messages import Message
from agent.model.pricing import context_window
from agent.model.protocol import Model, ModelRequest, estimate_tokens
from agent.turn.compact import CompactionError, compact

if TYPE_CHECKING:
    from agent.extension import Extensions
    from agent.session.config import SessionConfig
    from agent.session.conversation import Conversation, Write
    from agent.turn.loop import Turn
    from agent.turn.toolset import ToolSet

NOTHING_TO_COMPACT = "Nothing to compact yet: the conversation is empty."


def should_autocompact(
    threshold: float | None, model: str, known_tokens: int, history: list[Message]
) -> bool:
    """Whether the next call would pass ``threshold`` (a share of ``model``'s window).

    Args:
        threshold: the share, or None (never compact automatically).
        model: the model id (its window).
        known_tokens: the context last measured (or estimated).
        history: the history about to be sent (its newest message is not measured yet).
    """
    if threshold is None or not history:
        return False
    upcoming = known_tokens + estimate_tokens(history[-1].to_param())
    return upcoming >= threshold * context_window(model)


class Compactor:
    """Compacts one session's conversation.

    Args:
        model: the session's model (it writes the summary).
        spec: the session's request spec (its system blocks are refreshed after compaction).
        tools: the session's tools (the summary request offers them too: the cached prefix).
        config: the session's config (threshold, model id, ``refresh_system``).
        conversation: the history to rewrite.
        write: writes to the session's transcript.
        emit: the session's event sink.
    """

    def __init__(
        self,
        model: Model,
        spec: ModelRequest,
        tools: ToolSet,
        config: SessionConfig,
        conversation: Conversation,
        write: Write,
        emit: Callable[[ev.Event], None],
    ) -> None:
        self.model = model
        self.spec = spec
        self.tools = tools
        self.config = config
        self.conversation = conversation
        self._write = write
        self._emit = emit
        self.extensions: Extensions | None = None
        """The session's extensions: one may keep the conversation as it is (PreCompact hooks);
        each is told after a compaction (SessionStart hooks)."""

    async def before_call(self, turn: Turn) -> bool:
        """Before a call of ``turn``: compact if it would nearly fill the window."""
        conversation, config = self.conversation, self.config
        known = turn.context_tokens or conversation.context_tokens
        if not should_autocompact(config.autocompact, config.model, known, conversation.history):
            return False
        self._emit(ev.Notice(turn.turn_id, "Context nearly full: compacting the conversation."))
        return await self.compact(turn_id=turn.turn_id, automatic=True)

    async def compact(
        self, focus: str = "", *, turn_id: int = ev.NO_TURN, automatic: bool = False
    ) -> bool:
        """Replace the history by a summary plus the recent turns. False if it failed."""
        if not self.conversation.history:  # an op from any front end: a notice, not a failure
            self._emit(ev.Notice(turn_id, NOTHING_TO_COMPACT))
            return False
        extensions = self.extensions
        if extensions is not None:
            trigger = "auto" if automatic else "manual"
            blocked = await extensions.before_compact(trigger, focus, turn_id)
            if blocked is not None:
                self._emit(ev.Notice(turn_id, blocked))
                return False
        spec, history = self.spec, self.conversation.history
        tools = self.tools.params()
        request = ModelRequest(spec.model, history, spec.system, tools, spec.max_tokens)
        try:
            done = await compact(self.model, request, history, focus=focus)
        except CompactionError as exc:
            text = f"Compaction failed: {exc}. The conversation goes on uncompacted."
            self._emit(ev.Error(turn_id, text, "compaction"))
            return False
        config = self.config
        if config.refresh_system is not None:  # memory files are re-read, not summarised
            config.system = config.refresh_system()
            spec.system = [{"type": "text", "text": config.system}]
        self.conversation.rewrite(done.history)
        kept = self.conversation
        self._write(lambda t: t.compaction(kept.history, done.summary))
        self._emit(
            ev.Compacted(
                turn_id,
                done.summary,
                done.dropped_messages,
                done.kept_messages,
                automatic,
                kept.context_tokens,
            )
        )
        if extensions is not None:
            await extensions.after_compact()
        return True
