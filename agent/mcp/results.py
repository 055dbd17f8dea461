"""An MCP ``CallToolResult`` as one tool result the Messages API accepts.

Text stays text; images of the four types the API reads become image blocks (others are named
in a note); embedded resources give their text (a binary one is named); resource links are
named; ``structuredContent`` is sent as JSON when the server gave no text for it; ``isError``
is kept. Output longer than ``MAX_MCP_OUTPUT_TOKENS`` (25,000 by default, like Claude Code;
about 4 characters a token) is cut with a note saying so and how to raise the limit.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from tools.base import ToolResult

DEFAULT_MAX_OUTPUT_TOKENS = 25_000
CHARS_PER_TOKEN = 4
IMAGE_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})


def max_output_tokens(env: Mapping[str, str] | None = None) -> int:
    """``MAX_MCP_OUTPUT_TOKENS``, or the default when unset or not a positive number."""
    raw = (os.environ if env is None else env).get("MAX_MCP_OUTPUT_TOKENS", "")
    try:
        value = int(raw)
    except ValueError:
        return DEFAULT_MAX_OUTPUT_TOKENS
    return value if value > 0 else DEFAULT_MAX_OUTPUT_TOKENS


def _block_of(item: Any) -> dict[str, Any]:
    kind = getattr(item, "type", None)
    if kind == "text":
        return {"type": "text", "text": item.text}
    if kind == "image":
        if item.mime_type in IMAGE_TYPES:
            source = {"type": "base64", "media_type": item.mime_type, "data": item.data}
            return {"type": "image", "source": source}
        return {"type": "text", "text": f"[image of type {item.mime_type}, not shown]"}
    if kind == "audio":
        return {"type": "text", "text": f"[audio of type {item.mime_type}, not shown]"}
    if kind == "resource":
        res = item.resource
        text = getattr(res, "text", None)
        if isinstance(text, str):
            return {"type": "text", "text": text}
        mime = getattr(res, "mime_type", None) or "unknown type"
        return {"type": "text", "text": f"[binary resource {res.uri} ({mime}), not shown]"}
    if kind == "resource_link":
        return {"type": "text", "text": f"[resource {item.uri}: {item.name}]"}
    return {"type": "text", "text": f"[content of type {kind}, not shown]"}


def _cut(blocks: list[dict[str, Any]], max_chars: int, max_tokens: int) -> list[dict[str, Any]]:
    """Keep text up to ``max_chars`` in total; say what was cut."""
    out: list[dict[str, Any]] = []
    used = 0
    cut = 0
    for block in blocks:
        if block["type"] != "text":
            out.append(block)
            continue
        text = block["text"]
        room = max_chars - used
        if len(text) <= room:
            out.append(block)
            used += len(text)
            continue
        if room > 0:
            out.append({"type": "text", "text": text[:room]})
            used = max_chars
        cut += len(text) - max(room, 0)
    if cut:
        note = (
            f"[MCP output cut: about {cut // CHARS_PER_TOKEN} more tokens over the limit of "
            f"{max_tokens} (MAX_MCP_OUTPUT_TOKENS raises it).]"
        )
        out.append({"type": "text", "text": note})
    return out


def to_tool_result(result: Any, *, max_tokens: int | None = None) -> ToolResult:
    """One tool result for an MCP ``CallToolResult`` (see the module note)."""
    limit = max_tokens if max_tokens is not None else max_output_tokens()
    blocks = [_block_of(item) for item in (result.content or [])]
    structured = getattr(result, "structured_content", None)
    if structured is not None and not any(b["type"] == "text" for b in blocks):
        blocks.append({"type": "text", "text": json.dumps(structured, ensure_ascii=False)})
    blocks = [b for b in blocks if b["type"] != "text" or b["text"].strip()]
    blocks = _cut(blocks, limit * CHARS_PER_TOKEN, limit)
    is_error = bool(getattr(result, "is_error", False))
    if not blocks:
        return ToolResult(
            "(the tool failed with no message)" if is_error else "(no output)", is_error
        )
    if all(b["type"] == "text" for b in blocks):
        return ToolResult("\n".join(b["text"] for b in blocks), is_error)
    return ToolResult(blocks, is_error)
