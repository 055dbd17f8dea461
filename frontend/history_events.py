"""A saved history as the events a live turn would have emitted (after a rewind, on resume):
a prompt, the answer's text, tool calls with their results, corrections, for any front end.

What the engine added for the model only (attached files, plan-mode reminders) is not shown; a
compaction summary shows as one line. Every event has turn id 0 (nothing here is live).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from agent import events as ev
from agent.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from agent.turn.compact import SUMMARY_PREFIX

REPLAY_MESSAGES = 24
"""At most this many of the newest messages are rendered on resume (the model has them all)."""

Summary = Callable[[str, dict[str, Any]], str]
"""A tool call's one-line summary, from its name and input."""

_HIDDEN_PREFIXES = ("<system-reminder>", "Contents of @", "Contents of directory @", "[@")
_BASH_INPUT = "<bash-input>"
_INTERRUPTED = "The user interrupted"
"""How the results of interrupted calls begin (agent/turn/runner.py ``interrupted_results``)."""


def _result_text(block: ToolResultBlock) -> str:
    if isinstance(block.content, str):
        return block.content
    return "".join(str(b.get("text", "")) for b in block.content if isinstance(b, dict))


def _shown_text(text: str) -> str | None:
    """The user's words in a text block, or None for what only the model reads."""
    if not text.strip() or text.startswith(_HIDDEN_PREFIXES):
        return None
    return text


def _shell(text: str, call_id: str) -> list[ev.Event]:
    """A ``!command`` block as the Bash call it was."""
    command, _, rest = text[len(_BASH_INPUT) :].partition("</bash-input>")
    output = rest.split("<bash-stdout>", 1)[-1].rsplit("</bash-stdout>", 1)[0]
    return [
        ev.ToolCallStarted(0, call_id, "Bash", {"command": command}, command),
        ev.ToolCallFinished(0, call_id, "Bash", "done", output, False),
    ]


def history_events(
    messages: Sequence[Message], summary: Summary | None = None
) -> Iterator[ev.Event]:
    """The events that render ``messages`` (turn id 0: nothing here is live).

    Args:
        messages: the history (or its tail).
        summary: a tool call's one-line summary, from its name and input.
    """
    replay = _Replay(summary)
    for msg in messages:
        if msg.role == "assistant":
            yield from replay.answer(msg)
        else:
            yield from replay.user_message(msg)
    yield ev.TurnFinished(0, "success", 0, 0, 0.0, 0.0, 0)


class _Replay:
    """What a replay remembers across messages: each call's tool name, the ``!command`` count."""

    def __init__(self, summary: Summary | None) -> None:
        self._summary = summary
        self._names: dict[str, str] = {}
        self._shell_ids = 0

    def answer(self, msg: Message) -> Iterator[ev.Event]:
        """An assistant message: its text, its tool calls started, then the message itself."""
        for block in msg.content:
            if isinstance(block, TextBlock) and block.text.strip():
                yield ev.TextDelta(0, block.text)
            elif isinstance(block, ToolUseBlock):
                self._names[block.id] = block.name
                yield ev.ToolCallStarted(0, block.id, block.name, block.input, self._line(block))
        yield ev.AssistantMessage(0, msg.to_param(), None)

    def _line(self, block: ToolUseBlock) -> str:
        """The call's one-line summary; empty when there is no summary or it fails."""
        if self._summary is None:
            return ""
        try:
            return self._summary(block.name, block.input)
        except Exception:
            return ""

    def user_message(self, msg: Message) -> Iterator[ev.Event]:
        """A user message: tool results, then its text (a correction once results came)."""
        after_results = False
        for block in msg.content:
            if isinstance(block, ToolResultBlock):
                after_results = True
                yield self._finished(block)
            elif isinstance(block, TextBlock):
                yield from self._user_text(block.text, after_results)

    def _finished(self, block: ToolResultBlock) -> ev.Event:
        """A tool result as the call's end, interrupted calls as they showed live."""
        status: ev.ToolStatus = "failed" if block.is_error else "done"
        if block.is_error and _result_text(block).startswith(_INTERRUPTED):
            status = "interrupted"  # as it showed live, not as a failure
        content = block.content if isinstance(block.content, str) else list(block.content)
        name = self._names.get(block.tool_use_id, "tool")
        return ev.ToolCallFinished(0, block.tool_use_id, name, status, content, block.is_error)

    def _user_text(self, raw: str, after_results: bool) -> Iterator[ev.Event]:
        """A user text block: a ``!command``, a correction, a compaction summary or a prompt."""
        if raw.startswith(_BASH_INPUT):
            self._shell_ids += 1
            yield from _shell(raw, f"replayed-shell-{self._shell_ids}")
            return
        text = _shown_text(raw)
        if text is None:
            return
        if after_results:
            yield ev.CorrectionsDelivered(0, (text,))
        elif text.startswith(SUMMARY_PREFIX):
            yield ev.Notice(0, "Earlier messages were compacted into a summary.")
        else:
            yield ev.TurnStarted(0, text)


def tail_start(history: Sequence[Message], limit: int = REPLAY_MESSAGES) -> int:
    """Where the newest ``limit`` (or fewer) messages of ``history`` begin.

    At a prompt (a user message that is not only tool results) if there is one among them;
    otherwise, inside one long prompt, at an answer, so the newest messages still show.
    Below ``len(history)`` whenever ``history`` and ``limit`` are not empty.
    """
    start = max(0, len(history) - limit)
    window = range(start, len(history))
    for i in window:
        if _starts_exchange(history[i]):
            return i
    for i in window:
        if history[i].role == "assistant":
            return i
    return start


def _starts_exchange(msg: Message) -> bool:
    return msg.role == "user" and not any(isinstance(b, ToolResultBlock) for b in msg.content)
