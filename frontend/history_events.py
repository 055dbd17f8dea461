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
from agent.session.reports import Report, read_notification
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
            yield from replay.assistant(msg)
        else:
            yield from replay.user(msg)
    yield ev.TurnFinished(0, "success", 0, 0, 0.0, 0.0, 0)


class _Replay:
    """What replaying a history keeps from one message to the next: the calls' names (their
    results name them) and the ``!command`` blocks seen (each gets its own call id)."""

    def __init__(self, summary: Summary | None) -> None:
        self.summary = summary
        self.names: dict[str, str] = {}
        self.shell_ids = 0

    def assistant(self, msg: Message) -> Iterator[ev.Event]:
        """The answer's text and its tool calls."""
        for block in msg.content:
            if isinstance(block, TextBlock) and block.text.strip():
                yield ev.TextDelta(0, block.text)
            elif isinstance(block, ToolUseBlock):
                self.names[block.id] = block.name
                try:
                    line = self.summary(block.name, block.input) if self.summary else ""
                except Exception:
                    line = ""
                yield ev.ToolCallStarted(0, block.id, block.name, block.input, line)
        yield ev.AssistantMessage(0, msg.to_param(), None)

    def user(self, msg: Message) -> Iterator[ev.Event]:
        """Tool results, then the user's words: a prompt, or corrections after results. The
        reports of background work show as their lines, as live: before the prompt they
        followed, after the results they followed, or as the start of the turn they started
        by themselves (a message of reports alone)."""
        after_results = False
        reports = [r.event(0) for b in msg.content if (r := _report(b)) is not None]
        prompted = False
        for block in msg.content:
            if isinstance(block, ToolResultBlock):
                after_results = True
                yield self._result(block)
            elif isinstance(block, TextBlock):
                if block.text.startswith(_BASH_INPUT):
                    self.shell_ids += 1
                    yield from _shell(block.text, f"replayed-shell-{self.shell_ids}")
                    continue
                text = _shown_text(block.text)
                if text is None:
                    continue
                if after_results:
                    yield ev.CorrectionsDelivered(0, (text,))
                elif text.startswith(SUMMARY_PREFIX):
                    yield ev.Notice(0, "Earlier messages were compacted into a summary.")
                else:
                    yield from reports  # shown live when the work ended, before this prompt
                    reports, prompted = [], True
                    yield ev.TurnStarted(0, text)
        yield from reports
        if reports and not after_results and not prompted:
            summaries = "\n".join(r.summary for r in reports)
            yield ev.TurnStarted(0, summaries, origin="background")

    def _result(self, block: ToolResultBlock) -> ev.ToolCallFinished:
        status: ev.ToolStatus = "failed" if block.is_error else "done"
        if block.is_error and _result_text(block).startswith(_INTERRUPTED):
            status = "interrupted"  # as it showed live, not as a failure
        content = block.content if isinstance(block.content, str) else list(block.content)
        name = self.names.get(block.tool_use_id, "tool")
        return ev.ToolCallFinished(0, block.tool_use_id, name, status, content, block.is_error)


def _report(block: Any) -> Report | None:
    """The report of background work a user message's block is, or None."""
    return read_notification(block.text) if isinstance(block, TextBlock) else None


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
