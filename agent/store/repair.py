"""Repair a replayed history so it passes ``check_invariant`` once a prompt is added.

A transcript can stop anywhere: eddy may be killed while a tool runs, so the replayed history
can hold a tool call without a result, a result that answers no call, empty messages or a
repeated tool call. :func:`repair_history` fixes these in one pass (the history may still end
with an assistant message, or be empty) and says in words what it changed; repairing a
repaired history changes nothing. Reading the file itself is :func:`agent.store.load.load`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agent.messages import (
    Block,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from agent.turn.normalise import normalise_assistant
from tools.textfile import plural

INTERRUPTED_RESULT = (
    "eddy stopped before the result of this tool call was saved (the session was "
    "interrupted). The call may or may not have run: check its effects before relying on them."
)
LOST_START = "[The start of this conversation could not be read from the transcript.]"


@dataclass
class Repaired:
    """The result of ``repair_history``.

    Attributes:
        history: the repaired messages.
        problems: what was changed, in words (empty when nothing was).
        origin: for each repaired message, the index of the input message it came from, or
            None for a message the repair inserted.
    """

    history: list[Message]
    problems: list[str]
    origin: list[int | None]


def interrupted_result(use: ToolUseBlock) -> ToolResultBlock:
    """The is_error result given to a tool call whose result was never recorded."""
    if use.input_error:
        return ToolResultBlock(use.id, not_run_text(use), is_error=True)
    return ToolResultBlock(use.id, INTERRUPTED_RESULT, is_error=True)


def not_run_text(use: ToolUseBlock) -> str:
    """The result of a call the runner refused because it was malformed (``input_error``)."""
    return f"{use.name} was not run: {use.input_error}."


def _blank(block: dict[str, Any]) -> bool:
    return block.get("type") == "text" and not str(block.get("text", "")).strip()


def _blank_inside(result: ToolResultBlock) -> bool:
    """A result whose block content holds blank text (the API refuses it)."""
    return not isinstance(result.content, str) and any(_blank(b) for b in result.content)


def _describe(counts: Counter[str]) -> list[str]:
    words = {
        "recovered": lambda n: f"kept the saved results of {plural(n, 'tool call')}",
        "interrupted": lambda n: f"added interrupted results for {plural(n, 'tool call')}",
        "orphan": lambda n: f"dropped {plural(n, 'tool result')} that answered no tool call",
        "empty": lambda n: f"dropped {plural(n, 'empty message')}",
        "empty_text": lambda n: f"dropped {plural(n, 'empty text block')}",
        "duplicate": lambda n: f"gave {plural(n, 'repeated tool call id')} a fresh id",
        "stray_call": lambda n: f"dropped {plural(n, 'tool call')} in user messages",
        "lost_start": lambda n: "the first message was lost: added a note in its place",
    }
    return [describe(counts[key]) for key, describe in words.items() if counts[key]]


def repair_history(
    history: Sequence[Message], finished: Mapping[str, ToolResultBlock] | None = None
) -> Repaired:
    """Make ``history`` valid up to a next prompt.

    Rules, applied in one pass: empty text blocks, empty messages and a repeated tool_use id
    in one message are dropped; a tool_result that does not answer the tool calls of the
    message just before is dropped; results are put first, in tool_use order; a tool call
    without a result gets an is_error result saying the session was interrupted (in the
    following user message, or in a new one); a history that starts with an assistant message
    gets a user note first.

    Args:
        history: the replayed messages.
        finished: results recorded as each call finished (``result`` records): a call whose
            results message was never written gets its own result back from here.

    Returns:
        The repaired history, the problems in words, and where each message came from.
    """
    out: list[Message] = []
    origin: list[int | None] = []
    counts: Counter[str] = Counter()
    saved = finished or {}

    def lost_result(use: ToolUseBlock) -> ToolResultBlock:
        """The result of a call whose results message was lost: its own, if it was saved."""
        if use.id in saved:
            counts["recovered"] += 1
            return saved[use.id]
        counts["interrupted"] += 1
        return interrupted_result(use)

    def close_calls() -> None:
        """Answer the tool calls of a trailing assistant message that no user message follows."""
        uses = out[-1].tool_uses if out and out[-1].role == "assistant" else []
        if uses:
            out.append(Message("user", tuple(lost_result(u) for u in uses)))
            origin.append(None)

    ids: set[str] = set()
    for index, msg in enumerate(history):
        blocks: list[Block] = []
        for b in msg.content:
            if isinstance(b, TextBlock) and not b.text.strip():
                counts["empty_text"] += 1
            elif isinstance(b, ToolUseBlock) and msg.role == "user":
                counts["stray_call"] += 1  # a call can only be an assistant's
            elif isinstance(b, ToolResultBlock) and _blank_inside(b):
                counts["empty_text"] += 1
                kept = tuple(x for x in b.content if isinstance(x, dict) and not _blank(x))
                blocks.append(ToolResultBlock(b.tool_use_id, kept or "(no output)", b.is_error))
            else:
                blocks.append(b)
        if msg.role == "assistant":
            counts["orphan"] += sum(isinstance(b, ToolResultBlock) for b in blocks)
            # the one normaliser of assistant messages, as live turns use it
            normal = normalise_assistant(Message("assistant", tuple(blocks)), ids)
            if normal is None:
                counts["empty"] += 1
                continue
            original = {u.id for u in msg.tool_uses}
            renamed = [u for u in normal.tool_uses if u.id not in original]
            counts["duplicate"] += len(renamed)
            ids.update(u.id for u in normal.tool_uses)
            if not out:
                out.append(Message("user", (TextBlock(LOST_START),)))
                origin.append(None)
                counts["lost_start"] += 1
            close_calls()
            content: tuple[Block, ...] = normal.content
        else:
            expected = out[-1].tool_uses if out and out[-1].role == "assistant" else []
            wanted = {u.id for u in expected}
            answers: dict[str, ToolResultBlock] = {}
            rest: list[Block] = []
            for b in blocks:
                if not isinstance(b, ToolResultBlock):
                    rest.append(b)
                elif b.tool_use_id in wanted and b.tool_use_id not in answers:
                    answers[b.tool_use_id] = b
                else:
                    counts["orphan"] += 1
            head: list[Block] = []
            for use in expected:
                answer = answers.get(use.id)
                if answer is None and use.input_error:  # never run: say why, as a turn does
                    answer = ToolResultBlock(use.id, not_run_text(use), is_error=True)
                elif answer is None:
                    answer = lost_result(use)
                head.append(answer)
            content = (*head, *rest)
            if not content:
                counts["empty"] += 1
                continue
        same = len(content) == len(msg.content) and all(
            a is b for a, b in zip(content, msg.content, strict=True)
        )
        out.append(msg if same else Message(msg.role, content))
        origin.append(index)
    close_calls()
    return Repaired(out, _describe(counts), origin)
