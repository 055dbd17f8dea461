"""How a session records itself in its transcript (the format is in ``agent/store/format.py``).

The session owns one ``SessionRecorder``: it turns engine events into transcript records and
makes sure a failing disk never stops the conversation (the failure is reported once, then
nothing more is written).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agent import events as ev
from agent.messages import Message, ToolResultBlock

if TYPE_CHECKING:
    from agent.store.transcript import Transcript

Emit = Callable[[ev.Event], None]


class SessionRecorder:
    """Writes a session's changes to its transcript, if it has one.

    Args:
        report: where the one error about a failing transcript goes (the front end's sink,
            not the session's: the error itself is not recorded).

    Attributes:
        transcript: the open transcript, or None for a session that is not saved.
        failed: a write failed; nothing more is written.
    """

    def __init__(self, report: Emit) -> None:
        self.transcript: Transcript | None = None
        self.failed = False
        self._report = report

    def write(self, action: Callable[[Transcript], Any]) -> None:
        """Write to the transcript; a failure is reported once and never stops the session."""
        if self.transcript is None or self.failed:
            return
        try:
            action(self.transcript)
        except (OSError, ValueError) as exc:
            self.failed = True
            self._report(
                ev.Error(
                    0,
                    f"Could not save the session transcript ({exc}); "
                    "the conversation goes on but will not be resumable.",
                    "transcript",
                )
            )

    def record_event(self, event: ev.Event, history: list[Message]) -> None:
        """Record what ``event`` changed (``history`` is the session's, already updated)."""
        h = history
        if isinstance(event, (ev.AssistantMessage, ev.ModelCallStarted)):
            self.write(lambda t: t.record_history(h))
        elif isinstance(event, ev.CorrectionsDelivered):
            self.write(lambda t: t.record_history(h, delivered=event.texts))
        elif isinstance(event, ev.Interrupted):
            self.write(lambda t: _record_then(t, h, t.interrupt))
        elif isinstance(event, ev.ToolCallFinished):
            # as each call ends: a crash mid-batch keeps the results that exist (repair)
            block = ToolResultBlock(event.call_id, _content(event.content), event.is_error)
            self.write(lambda t: t.append({"type": "result", "result": block.to_param()}))
        elif isinstance(event, ev.UsageUpdated):
            self.write(lambda t: t.usage(event.usage, event.cost_usd))
        elif isinstance(event, ev.TodosUpdated):
            self.write(lambda t: t.todos(event.todos))
        elif isinstance(event, ev.HookRan):  # what a hook printed is kept (loading skips it)
            self.write(lambda t: t.append({**ev.to_json(event), "type": "hook"}))
        elif isinstance(event, ev.TurnFinished):
            self.write(lambda t: _record_then(t, h, t.sync))


def _record_then(transcript: Transcript, history: list[Message], then: Callable[[], None]) -> None:
    transcript.record_history(history)
    then()


def _content(content: str | list[dict[str, Any]]) -> str | tuple[dict[str, Any], ...]:
    return content if isinstance(content, str) else tuple(content)
