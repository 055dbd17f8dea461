"""Blocks, messages, the pairing invariant, and conversion to and from API params.

Messages are immutable: the history is append-only except that the trailing user message may be
*replaced* by a longer one (a prompt after an interruption joins it). Immutability lets each
message cache its API form, so building a request does not re-serialise the whole history.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Role = Literal["user", "assistant"]


@dataclass(frozen=True, slots=True)
class TextBlock:
    text: str

    def to_param(self) -> dict[str, Any]:
        return {"type": "text", "text": self.text}


@dataclass(frozen=True, slots=True)
class ThinkingBlock:
    """Model thinking; sent back unchanged (with its signature) in the same assistant message."""

    thinking: str
    signature: str

    def to_param(self) -> dict[str, Any]:
        return {"type": "thinking", "thinking": self.thinking, "signature": self.signature}


@dataclass(frozen=True, slots=True)
class RedactedThinkingBlock:
    data: str

    def to_param(self) -> dict[str, Any]:
        return {"type": "redacted_thinking", "data": self.data}


@dataclass(frozen=True, slots=True)
class ToolUseBlock:
    id: str
    name: str
    input: dict[str, Any]

    def to_param(self) -> dict[str, Any]:
        return {"type": "tool_use", "id": self.id, "name": self.name, "input": self.input}


@dataclass(frozen=True, slots=True)
class ToolResultBlock:
    """The result of one tool call. ``content`` is text or a tuple of API blocks (text/image)."""

    tool_use_id: str
    content: str | tuple[dict[str, Any], ...]
    is_error: bool = False

    def to_param(self) -> dict[str, Any]:
        content: Any = self.content if isinstance(self.content, str) else list(self.content)
        param: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": self.tool_use_id,
            "content": content,
        }
        if self.is_error:
            param["is_error"] = True
        return param


@dataclass(frozen=True, slots=True)
class OtherBlock:
    """Any block we do not model (image, document, server tool blocks): kept verbatim."""

    param: dict[str, Any]

    def to_param(self) -> dict[str, Any]:
        return self.param


Block = (
    TextBlock | ThinkingBlock | RedactedThinkingBlock | ToolUseBlock | ToolResultBlock | OtherBlock
)


@dataclass(frozen=True)
class Message:
    """One message of the history. Immutable; ``to_param`` is computed once."""

    role: Role
    content: tuple[Block, ...]
    _param: dict[str, Any] | None = field(default=None, compare=False, repr=False)

    def to_param(self) -> dict[str, Any]:
        """The API form ``{"role", "content": [...]}`` (cached; do not mutate the result)."""
        if self._param is None:
            param = {"role": self.role, "content": [b.to_param() for b in self.content]}
            object.__setattr__(self, "_param", param)
            return param
        return self._param

    @property
    def tool_uses(self) -> list[ToolUseBlock]:
        return [b for b in self.content if isinstance(b, ToolUseBlock)]

    @property
    def text(self) -> str:
        return "".join(b.text for b in self.content if isinstance(b, TextBlock))

    def with_blocks(self, *blocks: Block) -> Message:
        """A new message of the same role with ``blocks`` appended."""
        return Message(self.role, (*self.content, *blocks))


def user(*parts: str | Block) -> Message:
    """A user message from strings (text blocks) and blocks."""
    return Message("user", tuple(TextBlock(p) if isinstance(p, str) else p for p in parts))


def assistant(*parts: str | Block) -> Message:
    """An assistant message from strings (text blocks) and blocks."""
    return Message("assistant", tuple(TextBlock(p) if isinstance(p, str) else p for p in parts))


def block_from_param(param: dict[str, Any]) -> Block:
    """Build a block from its API (or SDK ``model_dump``) form."""
    kind = param.get("type")
    if kind == "text":
        return TextBlock(param["text"])
    if kind == "thinking":
        return ThinkingBlock(param["thinking"], param.get("signature", ""))
    if kind == "redacted_thinking":
        return RedactedThinkingBlock(param["data"])
    if kind == "tool_use":
        return ToolUseBlock(param["id"], param["name"], dict(param.get("input") or {}))
    if kind == "tool_result":
        content = param.get("content", "")
        if not isinstance(content, str):
            content = tuple(content)
        return ToolResultBlock(param["tool_use_id"], content, bool(param.get("is_error", False)))
    return OtherBlock(dict(param))


def message_from_param(param: dict[str, Any]) -> Message:
    """Build a message from its API form (string content becomes one text block)."""
    content = param["content"]
    if isinstance(content, str):
        return Message(param["role"], (TextBlock(content),))
    return Message(param["role"], tuple(block_from_param(b) for b in content))


class InvariantViolation(Exception):
    """The history breaks (P1)-(P3) of LOOP-MODEL.md; sending it would get an HTTP 400.

    Attributes:
        rule: "P1", "P2" or "P3".
        index: the index of the offending message.
    """

    def __init__(self, rule: str, index: int, detail: str) -> None:
        super().__init__(f"{rule} violated at message {index}: {detail}")
        self.rule = rule
        self.index = index
        self.detail = detail


def _check_pair(history: list[Message], i: int) -> None:
    """Check (P2)/(P3) for message ``i`` given its predecessor."""
    msg = history[i]
    prev = history[i - 1] if i > 0 else None
    expected = (
        [u.id for u in prev.tool_uses] if prev is not None and prev.role == "assistant" else []
    )
    if msg.role == "assistant":
        if any(isinstance(b, ToolResultBlock) for b in msg.content):
            raise InvariantViolation("P3", i, "tool_result block in an assistant message")
        if expected:
            raise InvariantViolation(
                "P2", i, f"tool_use ids {expected} are not followed by a user message of results"
            )
        return
    results = [b for b in msg.content if isinstance(b, ToolResultBlock)]
    head = msg.content[: len(expected)]
    head_ids = [b.tool_use_id if isinstance(b, ToolResultBlock) else None for b in head]
    if head_ids != expected:
        raise InvariantViolation(
            "P2", i, f"the first blocks must be results for {expected}, found {head_ids}"
        )
    if len(results) != len(expected):
        raise InvariantViolation("P3", i, "a tool_result block answers no preceding tool_use")


def check_invariant(history: list[Message], start: int = 0, *, at_rest: bool = False) -> None:
    """Raise InvariantViolation if ``history`` breaks (P1)-(P3) as a request to send.

    Args:
        history: the messages to send.
        start: messages before ``start`` are known to be valid (incremental checking); the
            pair (start-1, start) is still checked.
        at_rest: check a history between turns: it may end with an assistant message without
            tool calls (the next prompt will follow it).

    Raises:
        InvariantViolation: naming the rule and the message index.
    """
    if not history:
        raise InvariantViolation("P1", 0, "the history is empty")
    if history[0].role != "user":
        raise InvariantViolation("P1", 0, "the history must start with a user message")
    last = history[-1]
    if last.role != "user" and not (at_rest and not last.tool_uses):
        raise InvariantViolation("P1", len(history) - 1, "the history must end with a user message")
    for i in range(max(0, start), len(history)):
        if not history[i].content:
            raise InvariantViolation("P1", i, "a message has no content")
        _check_pair(history, i)


def is_valid(history: list[Message], *, at_rest: bool = False) -> bool:
    """True when ``history`` may be sent as it is (or, ``at_rest``, after a next prompt)."""
    try:
        check_invariant(history, at_rest=at_rest)
    except InvariantViolation:
        return False
    return True
