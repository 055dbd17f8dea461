"""Compaction: replace old history with a structured summary, keeping recent turns whole.

The summary is asked of the model itself (goal, decisions, files touched, open tasks, and the
user's standing instructions verbatim). The new history is the summary followed by the most
recent turns, untouched, so the invariant holds: the cut is always at the start of a turn (a
user message that carries a prompt, not tool results).
"""

from __future__ import annotations

from dataclasses import dataclass

from agent.messages import Block, Message, TextBlock, ToolResultBlock, check_invariant
from agent.model.protocol import Model, ModelRequest, ModelResponse, estimate_tokens

SUMMARY_INSTRUCTION = """Your task now is to write a summary of the conversation so far, so \
that the work can continue in a fresh context without losing anything that matters. Do not \
call tools. Use exactly these sections:

## Goal
What the user wants, in their terms.
## User's standing instructions
Every instruction, preference or constraint the user stated that still applies, quoted \
verbatim (corrections included).
## Decisions
What was decided and why.
## Files touched
Each file read or changed, and what changed.
## Current state and open tasks
What is done, what is in progress, what remains; errors still unresolved.
"""

SUMMARY_PREFIX = (
    "[This conversation was compacted. Summary of the earlier part, written by you:]\n\n"
)


PROMPT_NOTE = "[The request that started this work, verbatim:]"


class CompactionError(Exception):
    """Compaction could not be done; the history is unchanged."""


@dataclass
class Compacted:
    history: list[Message]
    summary: str
    kept_messages: int
    dropped_messages: int


def turn_starts(history: list[Message]) -> list[int]:
    """Indices of user messages that start a turn (their first block is not a tool result)."""
    return [
        i
        for i, m in enumerate(history)
        if m.role == "user" and m.content and not isinstance(m.content[0], ToolResultBlock)
    ]


def choose_cut(history: list[Message], keep_tokens: int, keep_turns: int = 2) -> int:
    """Where the kept tail begins: the start of one of the last ``keep_turns`` turns, later
    when those turns are larger than ``keep_tokens``. 0 means there is nothing to compact."""
    starts = turn_starts(history)
    if len(starts) < 2:
        return 0
    candidates = starts[1:][-keep_turns:]
    for cut in candidates:
        size = estimate_tokens([m.to_param() for m in history[cut:]])
        if size <= keep_tokens:
            return cut
    return candidates[-1]


async def summarize(
    model: Model, request: ModelRequest, history: list[Message], focus: str = ""
) -> str:
    """Ask ``model`` for the structured summary of ``history``."""
    instruction = SUMMARY_INSTRUCTION
    if focus.strip():
        instruction += f"\nPay particular attention to: {focus.strip()}\n"
    if history and history[-1].role == "user":
        ask = [*history[:-1], history[-1].with_blocks(TextBlock(instruction))]
    else:
        ask = [*history, Message("user", (TextBlock(instruction),))]

    class _Quiet:
        def text(self, delta: str) -> None: ...

        def thinking(self, delta: str) -> None: ...

        def block_done(self, block: object) -> None: ...

        def retrying(self, notice: str) -> None: ...

    req = ModelRequest(request.model, ask, request.system, request.tools, request.max_tokens)
    response: ModelResponse = await model.respond(req, _Quiet())
    summary = response.message.text.strip()
    if not summary:
        raise CompactionError("the model returned an empty summary")
    return summary


def rebuild(history: list[Message], cut: int, summary: str) -> list[Message]:
    """The compacted history: the summary joined to the first kept turn's prompt."""
    head = TextBlock(SUMMARY_PREFIX + summary)
    if cut <= 0 or cut >= len(history):
        blocks: list[Block] = [head]
        starts = turn_starts(history)
        if cut <= 0 and starts and starts[0] < len(history) - 1:
            # the first turn is summarised whole: its prompt stays verbatim all the same
            prompt = [b for b in history[starts[0]].content if isinstance(b, TextBlock)]
            blocks += [TextBlock(PROMPT_NOTE), *prompt]
        if history and history[-1].role == "user" and cut < len(history):
            # nothing kept whole: the trailing user message must not hold tool results
            blocks += [b for b in history[-1].content if not isinstance(b, ToolResultBlock)]
        return [Message("user", tuple(blocks))]
    first = history[cut]
    return [Message("user", (head, *first.content)), *history[cut + 1 :]]


async def compact(
    model: Model,
    request: ModelRequest,
    history: list[Message],
    *,
    focus: str = "",
    keep_tokens: int = 20_000,
) -> Compacted:
    """Summarise the old part of ``history`` and return the compacted history.

    Raises:
        CompactionError: nothing to compact, or the model failed (history unchanged).
    """
    cut = choose_cut(history, keep_tokens)
    if cut == 0 and len(turn_starts(history)) < 1:
        raise CompactionError("there is nothing to compact yet")
    try:
        summary = await summarize(model, request, history[:cut] if cut else history, focus)
    except CompactionError:
        raise
    except Exception as exc:
        message = getattr(exc, "user_message", None) or f"{type(exc).__name__}: {exc}"
        raise CompactionError(message) from exc
    new = rebuild(history, cut, summary)
    check_invariant(new, at_rest=True)
    return Compacted(new, summary, len(history) - cut if cut else 0, cut or len(history))
