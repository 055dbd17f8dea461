"""The one normaliser every assistant message passes on its way into the history (docs/loop.md:
"Every assistant message enters h through one normaliser, whatever path it came by")."""

from __future__ import annotations

from collections.abc import Collection

from agent.messages import (
    Block,
    Message,
    OtherBlock,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)


def _keeps(block: Block, keep_tools: bool) -> bool:
    """Whether ``block`` may stay in an assistant message entering the history."""
    if isinstance(block, TextBlock):
        return bool(block.text.strip())  # the API refuses empty and whitespace-only text
    if isinstance(block, ToolResultBlock):
        return False  # results live in user messages only
    return keep_tools or not isinstance(block, ToolUseBlock)


class _Taken:
    """The ids used so far: the history's (not copied: it can be large) and this message's."""

    def __init__(self, earlier: Collection[str]) -> None:
        self.earlier = earlier
        self.here: set[str] = set()

    def __contains__(self, key: object) -> bool:
        return key in self.here or key in self.earlier

    def add(self, key: str) -> None:
        self.here.add(key)


def _fresh_id(old: str, taken: _Taken) -> str:
    """A new tool_use id derived from ``old`` that is not in ``taken`` (deterministic)."""
    n = 2
    while f"{old}_repeat{n}" in taken:
        n += 1
    return f"{old}_repeat{n}"


def normalise_assistant(
    message: Message, earlier_ids: Collection[str], *, keep_tools: bool = True
) -> Message | None:
    """The one way an assistant message enters the history, whatever path it came by.

    Empty and whitespace-only text blocks and stray tool_result blocks are dropped; unless
    ``keep_tools``, tool calls are dropped too (a response that stopped before they could
    run). A tool_use whose id was used before (earlier in the history or in this message) gets
    a fresh id and an ``input_error``, so the runner answers it with an error instead of
    running a call the model may have repeated by mistake; a non-object input is ``{}`` with
    an ``input_error`` already (``block_from_param``). The result passes ``check_invariant``'s
    block rules.

    Args:
        message: the assistant message as the model (or a transcript) gave it.
        earlier_ids: every tool_use id already in the history (not modified).
        keep_tools: keep the tool calls (a tool turn) or drop them (a final or partial answer).

    Returns:
        The message to append, or None when nothing worth keeping is left (no content, or
        only thinking in a final answer, which the API would not accept alone).
    """
    taken = _Taken(earlier_ids)
    blocks: list[Block] = []
    for block in message.content:
        if not _keeps(block, keep_tools):
            continue
        if isinstance(block, ToolUseBlock):
            if not isinstance(block.input, dict):
                why = "the input was not a JSON object"
                block = ToolUseBlock(block.id, block.name, {}, why)
            if block.id in taken:
                why = (
                    f"this call repeated the id {block.id} of another call in the "
                    "conversation, so it was not run; call the tool again if it is needed"
                )
                block = ToolUseBlock(_fresh_id(block.id, taken), block.name, block.input, why)
            taken.add(block.id)
        blocks.append(block)
    if not blocks:
        return None
    if not keep_tools and all(
        isinstance(b, (ThinkingBlock, RedactedThinkingBlock)) for b in blocks
    ):
        return None
    if len(blocks) == len(message.content) and all(
        a is b for a, b in zip(blocks, message.content, strict=True)
    ):
        return message  # unchanged: keep its cached API form
    return Message("assistant", tuple(blocks))


def without_server_calls(message: Message, ids: set[str]) -> Message:
    """``message`` without the server tool calls ``ids`` (that will never get a result)."""
    kept = tuple(
        b for b in message.content if not (isinstance(b, OtherBlock) and b.param.get("id") in ids)
    )
    return Message("assistant", kept)
