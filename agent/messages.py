"""Blocks, messages, the pairing invariant, and conversion to and from API params.

Messages are immutable: the history is append-only except that the trailing user message may be
*replaced* by a longer one (a prompt after an interruption joins it). Immutability lets each
message cache its API form and its JSON (``to_param``, ``to_json``), so building a request does
not convert or encode the whole history again.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Role = Literal["user", "assistant"]


@dataclass(frozen=True, slots=True)
class TextBlock:
    """Text. ``extra`` keeps the other fields the API sent (``citations``) for the round trip."""

    text: str
    extra: dict[str, Any] | None = field(default=None, compare=False)

    def to_param(self) -> dict[str, Any]:
        if self.extra:
            return {"type": "text", "text": self.text, **self.extra}
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
    """A client tool call. ``input_error`` says why the call must not run (its input was not a
    JSON object, or its id repeated an earlier one); the runner answers it with an error."""

    id: str
    name: str
    input: dict[str, Any]
    input_error: str | None = field(default=None, compare=False)

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


def compact_json(value: Any) -> bytes:
    """``value`` as UTF-8 JSON the way httpx encodes a request's JSON body (compact, non-ASCII
    kept, no NaN), which the SDK sends.

    Raises:
        ValueError: NaN or infinity; UnicodeEncodeError (a ValueError) for a lone surrogate.
    """
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


def same_json(a: Any, b: Any) -> bool:
    """Whether two JSON values encode to the same bytes: equal, with the same types and the
    same key order (``==`` ignores both: ``{"a": 1, "b": 1.0} == {"b": 1, "a": 1}``)."""
    if a is b:  # a block's fields are the objects its param held: whole subtrees match here
        return True
    kind = type(a)
    if kind is not type(b):
        return False
    if kind is dict:
        if list(a) != list(b):
            return False
        return all(v is b[k] or same_json(v, b[k]) for k, v in a.items())
    if kind is list:
        return len(a) == len(b) and all(
            v is w or same_json(v, w) for v, w in zip(a, b, strict=True)
        )
    return bool(a == b)


@dataclass(frozen=True)
class Message:
    """One message of the history. Immutable; ``to_param`` and ``to_json`` are computed once."""

    role: Role
    content: tuple[Block, ...]
    _param: dict[str, Any] | None = field(default=None, compare=False, repr=False)
    _json: bytes | None = field(default=None, compare=False, repr=False)

    @classmethod
    def from_param(cls, param: dict[str, Any], encoded: bytes | None = None) -> Message:
        """Build a message from its API form (string content becomes one text block).

        Args:
            param: the API form.
            encoded: ``param`` as :func:`compact_json` encodes it (a transcript line holds
                it): kept as the message's JSON when its own API form is exactly ``param``,
                so a resumed history is not encoded again for its first request.
        """
        content = param["content"]
        if isinstance(content, str):
            return cls(param["role"], (TextBlock(content),))
        message = cls(param["role"], tuple(block_from_param(b) for b in content))
        if encoded is not None and same_json(message.to_param(), param):
            object.__setattr__(message, "_json", encoded)
        return message

    def to_param(self) -> dict[str, Any]:
        """The API form ``{"role", "content": [...]}`` (cached; do not mutate the result)."""
        if self._param is None:
            param = {"role": self.role, "content": [b.to_param() for b in self.content]}
            object.__setattr__(self, "_param", param)
            return param
        return self._param

    def to_json(self) -> bytes:
        """The API form as a request body holds it (:func:`compact_json`; cached)."""
        encoded = self._json
        if encoded is None:
            encoded = compact_json(self.to_param())
            object.__setattr__(self, "_json", encoded)
        return encoded

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
        extra = {
            k: v
            for k, v in param.items()
            if k not in ("type", "text", "cache_control") and v is not None
        }
        return TextBlock(param["text"], extra or None)
    if kind == "thinking":
        return ThinkingBlock(param["thinking"], param.get("signature", ""))
    if kind == "redacted_thinking":
        return RedactedThinkingBlock(param["data"])
    if kind == "tool_use":
        raw = param.get("input")
        if raw is None or isinstance(raw, dict):
            return ToolUseBlock(param["id"], param["name"], dict(raw or {}))
        error = f"the input was not a JSON object (it was {type(raw).__name__})"
        return ToolUseBlock(param["id"], param["name"], {}, error)
    if kind == "tool_result":
        content = param.get("content", "")
        if not isinstance(content, str):
            content = tuple(content)
        return ToolResultBlock(param["tool_use_id"], content, bool(param.get("is_error", False)))
    return OtherBlock(dict(param))


def message_from_param(param: dict[str, Any]) -> Message:
    """Build a message from its API form (string content becomes one text block)."""
    return Message.from_param(param)


THINKING_TYPES = ("thinking", "redacted_thinking")


def unanswered_server_calls(message: Message) -> set[str]:
    """Ids of the server tool calls (``server_tool_use``) in ``message`` with no result in it.

    Only a response paused by the API (``stop_reason: pause_turn``) has them; sent back as
    the last message of the next request, it lets the model continue.
    """
    calls, answered = set(), set()
    for b in message.content:
        if isinstance(b, OtherBlock):
            kind = str(b.param.get("type", ""))
            if kind == "server_tool_use":
                calls.add(str(b.param.get("id")))
            elif kind.endswith("_tool_result"):
                answered.add(str(b.param.get("tool_use_id")))
    return calls - answered


def tool_use_index(
    history: list[Message], start: int = 0, index: dict[str, int] | None = None
) -> dict[str, int]:
    """Map each tool_use id in ``history[start:]`` to the first message using it, added to
    ``index`` (a new dict by default); with ``start`` a caller extends it as history grows."""
    out = {} if index is None else index
    for i in range(start, len(history)):
        for use in history[i].tool_uses:
            out.setdefault(use.id, i)
    return out


class InvariantViolation(Exception):
    """The history breaks (P1)-(P3) of docs/loop.md; sending it would get an HTTP 400.

    Attributes:
        rule: "P1", "P2" or "P3"; or what else the API refuses: "ids" (a tool_use id used
            twice), "text" (empty or blank text), "input" (a tool_use input that is not an
            object), "thinking" (cache_control on a thinking block), "empty" (no content),
            "server" (a server_tool_use without its result, except in a paused last message).
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


def _check_blocks(msg: Message, i: int, ids: Mapping[str, int]) -> None:
    """The per-block rules the API enforces besides the pairing.

    ``ids`` maps each tool_use id to the first message that uses it: an id of message ``i``
    that maps elsewhere, or that ``i`` uses twice, is used twice.
    """
    if not msg.content:
        raise InvariantViolation("empty", i, "a message has no content")
    here: set[str] = set()
    for block in msg.content:
        if isinstance(block, TextBlock) and not block.text.strip():
            raise InvariantViolation("text", i, "an empty or whitespace-only text block")
        elif isinstance(block, ToolResultBlock) and not isinstance(block.content, str):
            if any(
                b.get("type") == "text" and not str(b.get("text", "")).strip()
                for b in block.content
            ):
                raise InvariantViolation("text", i, "blank text inside a tool result")
        elif isinstance(block, ToolUseBlock):
            if block.id in here or ids.get(block.id, i) != i:
                raise InvariantViolation("ids", i, f"tool_use id {block.id} is used twice")
            here.add(block.id)
            if not isinstance(block.input, dict):
                raise InvariantViolation("input", i, f"the input of {block.id} is not an object")
        elif (
            isinstance(block, OtherBlock)
            and block.param.get("type") in THINKING_TYPES
            and "cache_control" in block.param
        ):
            raise InvariantViolation("thinking", i, "cache_control on a thinking block")


def check_invariant(
    history: list[Message],
    start: int = 0,
    *,
    at_rest: bool = False,
    id_index: Mapping[str, int] | None = None,
) -> None:
    """Raise InvariantViolation if ``history`` breaks (P1)-(P3) as a request to send.

    Args:
        history: the messages to send.
        start: messages before ``start`` are known to be valid (incremental checking); the
            pair (start-1, start) is still checked.
        at_rest: check a history between turns: it may end with an assistant message without
            tool calls (the next prompt will follow it).
        id_index: ``tool_use_index(history)`` if the caller keeps it up to date (so a long
            history is not scanned again for each request).

    Besides (P1)-(P3) it checks what else the API refuses (see ``InvariantViolation``);
    tool_use ids are compared across the whole history, also before ``start``.

    Raises:
        InvariantViolation: naming the rule and the message index.
    """
    if not history:
        raise InvariantViolation("P1", 0, "the history is empty")
    if history[0].role != "user":
        raise InvariantViolation("P1", 0, "the history must start with a user message")
    last = history[-1]
    resting = at_rest and not last.tool_uses
    paused = not last.tool_uses and bool(unanswered_server_calls(last))  # pause_turn
    if last.role != "user" and not (resting or paused):
        raise InvariantViolation("P1", len(history) - 1, "the history must end with a user message")
    first = max(0, start)
    ids = tool_use_index(history) if id_index is None else id_index
    for i in range(first, len(history)):
        _check_blocks(history[i], i, ids)
        _check_pair(history, i)
        if i < len(history) - 1 and unanswered_server_calls(history[i]):
            raise InvariantViolation("server", i, "a server tool call without its result")


def is_valid(history: list[Message], *, at_rest: bool = False) -> bool:
    """True when ``history`` may be sent as it is (or, ``at_rest``, after a next prompt)."""
    try:
        check_invariant(history, at_rest=at_rest)
    except InvariantViolation:
        return False
    return True
