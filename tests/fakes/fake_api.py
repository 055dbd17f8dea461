"""A fake Anthropic Messages API: real HTTP and real SSE on 127.0.0.1, stdlib only.

It runs ``http.server.ThreadingHTTPServer`` in a daemon thread, so it serves any asyncio loop in
the test process as well as a subprocess pointed at it with ``ANTHROPIC_BASE_URL``.

- Replies are scripted (a list, or a function of the request body) and streamed as SSE in the
  real wire format; faults on demand: HTTP errors with headers, an SSE ``error`` event, a cut
  connection, a stall, a delay between events.
- Every ``/v1/messages`` request is validated independently of the engine (pairing invariant
  P1-P3, empty blocks, duplicate ids, cache_control count, sampling parameters): a violation is
  recorded in ``violations`` and answered with a 400, so a bug cannot hide.
- Usage is computed realistically, including prompt caching (breakpoints, 20-block look-back,
  512-token minimum): ``input + cache_creation + cache_read == prompt tokens`` always.

CLI (for end-to-end tests): ``python -m tests.fakes.fake_api --port 0 --script FILE.json
[--log FILE]`` prints the base URL on its first stdout line and serves until killed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import select
import signal
import socket
import sys
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = [
    "FakeAnthropic",
    "HttpError",
    "RawReply",
    "Reply",
    "count_tokens",
    "prompt_tokens",
    "text",
    "thinking",
    "tool_use",
    "validate_request",
]

MIN_CACHEABLE_TOKENS = 512
CACHE_LOOKBACK_BLOCKS = 20
MAX_CACHE_BREAKPOINTS = 4
STALL_LIMIT_S = 60.0

ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    408: "timeout_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


# ---------------------------------------------------------------------------------------------
# Script items


@dataclass
class Reply:
    """One scripted successful response.

    A ``tool_use`` block with a ``raw_input`` string streams that string as its input JSON
    (to send input that is not valid JSON, or not an object).
    """

    content: list[dict[str, Any]]
    # None => the stream ends without message_delta / message_stop (an incomplete message).
    stop_reason: str | None = "end_turn"
    # Default: computed from the content (~len(json)/4, at least 1).
    output_tokens: int | None = None
    # Seconds between SSE events (so a test can interrupt mid-stream).
    delay: float = 0.0
    # Close the connection abruptly after N SSE events (a dropped stream).
    cut_after: int | None = None
    # Emit an SSE `error` event (overloaded_error) after N events and end the stream.
    error_after: int | None = None
    # After N events stop sending but keep the socket open (until server stop or 60 s).
    stall_after: int | None = None
    # Model reported in the response; default: the request's model.
    model: str | None = None


@dataclass
class HttpError:
    """An HTTP error answered before any body: status, JSON error body and extra headers."""

    status: int
    error_type: str | None = None
    message: str = "Error"
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class RawReply:
    """A 200 response whose body is sent byte for byte (a recorded SSE stream, or a body that
    is not SSE at all), in chunks of ``chunk`` bytes."""

    body: bytes
    content_type: str = "text/event-stream; charset=utf-8"
    chunk: int = 4096


ScriptItem = Reply | HttpError | RawReply
Responder = Callable[[dict[str, Any]], ScriptItem]


def text(t: str) -> dict[str, Any]:
    return {"type": "text", "text": t}


def tool_use(id: str, name: str, input: dict[str, Any]) -> dict[str, Any]:  # noqa: A002
    return {"type": "tool_use", "id": id, "name": name, "input": input}


def thinking(t: str, signature: str = "sig") -> dict[str, Any]:
    return {"type": "thinking", "thinking": t, "signature": signature}


def _item_from_json(d: dict[str, Any]) -> ScriptItem:
    """A script item from its JSON form: ``{"status": ...}`` is an HttpError, else a Reply."""
    if "status" in d:
        return HttpError(
            status=int(d["status"]),
            error_type=d.get("error_type"),
            message=d.get("message", "Error"),
            headers={str(k): str(v) for k, v in (d.get("headers") or {}).items()},
        )
    known = {f for f in Reply.__dataclass_fields__}
    unknown = set(d) - known
    if unknown:
        raise ValueError(f"unknown reply keys: {sorted(unknown)}")
    return Reply(**d)


# ---------------------------------------------------------------------------------------------
# Token accounting and prompt caching


def _canon(block: Any) -> bytes:
    """Deterministic bytes of one block, with its own cache_control marker removed."""
    if isinstance(block, dict) and "cache_control" in block:
        block = {k: v for k, v in block.items() if k != "cache_control"}
    return json.dumps(block, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _tokens(data: bytes) -> int:
    return max(1, len(data) // 4)


@dataclass
class _PromptBlock:
    tokens: int
    cum_tokens: int  # tokens of the prefix up to and including this block
    prefix_hash: str  # hash of the prefix up to and including this block
    breakpoint: bool


def _prompt_blocks(body: dict[str, Any]) -> list[_PromptBlock]:
    """The prompt as blocks in prefix order: tools, then system, then messages."""
    pieces: list[tuple[bytes, bytes, bool]] = []  # (hash bytes, token bytes, has cache_control)
    for tool in body.get("tools") or []:
        data = _canon(tool)
        pieces.append((b"T" + data, data, isinstance(tool, dict) and "cache_control" in tool))
    system = body.get("system")
    if isinstance(system, str):
        if system:
            data = _canon({"type": "text", "text": system})
            pieces.append((b"S" + data, data, False))
    elif isinstance(system, list):
        for block in system:
            data = _canon(block)
            pieces.append((b"S" + data, data, isinstance(block, dict) and "cache_control" in block))
    for msg in body.get("messages") or []:
        if not isinstance(msg, dict):
            continue
        role = str(msg.get("role", "")).encode()
        content = msg.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for j, block in enumerate(blocks or []):
            data = _canon(block)
            head = b"\x1e" + role + b"\x1f" if j == 0 else b"\x1f"
            pieces.append((head + data, data, isinstance(block, dict) and "cache_control" in block))
    out: list[_PromptBlock] = []
    h = hashlib.sha256(b"model:" + str(body.get("model", "")).encode())
    cum = 0
    for hash_bytes, token_bytes, bp in pieces:
        h.update(len(hash_bytes).to_bytes(8, "big"))
        h.update(hash_bytes)
        n = _tokens(token_bytes)
        cum += n
        out.append(_PromptBlock(n, cum, h.copy().hexdigest(), bp))
    return out


def prompt_tokens(body: dict[str, Any]) -> int:
    """Total prompt tokens of a request: sum of max(1, len(block json)//4) over its blocks."""
    blocks = _prompt_blocks(body)
    return blocks[-1].cum_tokens if blocks else 0


count_tokens = prompt_tokens


class _PromptCache:
    """Cached prefixes (hash -> tokens), shared by the requests made to one server.

    A request reads the longest cached prefix ending at a block boundary at most 20 blocks
    before one of its breakpoints; like the real API it writes only the breakpoint prefixes
    (``generous=True`` also writes every boundary within those 20 blocks). Prefixes under
    512 tokens are never cached. Entries never expire.
    """

    def __init__(self, generous: bool = False) -> None:
        self._lock = threading.Lock()
        self.entries: dict[str, int] = {}
        self.generous = generous
        """Also write every boundary within 20 blocks of a breakpoint (not what the API does)."""

    def usage(self, body: dict[str, Any]) -> dict[str, int]:
        """The input-side usage of a request; stores the prefixes it writes."""
        blocks = _prompt_blocks(body)
        total = blocks[-1].cum_tokens if blocks else 0
        bps = [
            i for i, b in enumerate(blocks) if b.breakpoint and b.cum_tokens >= MIN_CACHEABLE_TOKENS
        ]
        read = 0
        creation = 0
        with self._lock:
            for bp in bps:
                for j in range(max(0, bp - CACHE_LOOKBACK_BLOCKS), bp + 1):
                    hit = self.entries.get(blocks[j].prefix_hash)
                    if hit is not None and hit > read:
                        read = hit
            if bps:
                creation = max(0, blocks[bps[-1]].cum_tokens - read)
                for bp in bps:
                    if self.generous:
                        for j in range(max(0, bp - CACHE_LOOKBACK_BLOCKS), bp + 1):
                            if blocks[j].cum_tokens >= MIN_CACHEABLE_TOKENS:
                                self.entries[blocks[j].prefix_hash] = blocks[j].cum_tokens
                    else:  # as the real API: a write happens at the breakpoint only
                        self.entries[blocks[bp].prefix_hash] = blocks[bp].cum_tokens
        return {
            "input_tokens": total - read - creation,
            "cache_creation_input_tokens": creation,
            "cache_read_input_tokens": read,
        }


# ---------------------------------------------------------------------------------------------
# Request validation (independent of the engine: raw dicts only)


def _count_cache_markers(body: dict[str, Any]) -> int:
    n = 0

    def visit(block: Any) -> None:
        nonlocal n
        if isinstance(block, dict):
            if block.get("cache_control") is not None:
                n += 1
            inner = block.get("content") if block.get("type") == "tool_result" else None
            if isinstance(inner, list):
                for b in inner:
                    visit(b)

    for tool in body.get("tools") or []:
        visit(tool)
    if isinstance(body.get("system"), list):
        for b in body["system"]:
            visit(b)
    for msg in body.get("messages") or []:
        if isinstance(msg, dict) and isinstance(msg.get("content"), list):
            for b in msg["content"]:
                visit(b)
    return n


def _check_text(where: str, block: dict[str, Any], out: list[str]) -> None:
    t = block.get("text")
    if not isinstance(t, str):
        out.append(f"{where}.text: Field required")
    elif t == "":
        out.append(f"{where}.text: text content blocks must be non-empty")
    elif not t.strip():
        out.append(f"{where}.text: text content blocks must contain non-whitespace text")


def validate_request(body: Any, *, count_only: bool = False) -> list[str]:
    """Every way ``body`` breaks the Messages API rules this fake enforces (empty if none).

    ``count_only`` relaxes the checks to those of ``/v1/messages/count_tokens`` (no max_tokens,
    no requirement that the conversation ends with a user message).
    """
    out: list[str] = []
    if not isinstance(body, dict):
        return ["Request body must be a JSON object"]
    if not isinstance(body.get("model"), str) or not body.get("model"):
        out.append("model: Field required")
    if not count_only:
        mt = body.get("max_tokens")
        if mt is None:
            out.append("max_tokens: Field required")
        elif not isinstance(mt, int) or isinstance(mt, bool) or mt < 1:
            out.append("max_tokens: Input should be an integer greater than or equal to 1")
    for param in ("temperature", "top_p", "top_k"):
        if param in body:
            out.append(
                f"`{param}` is not supported for this model. Remove `{param}` from the request."
            )
    th = body.get("thinking")
    if isinstance(th, dict) and th.get("type") == "enabled" and not count_only:
        budget = th.get("budget_tokens")
        if not isinstance(budget, int) or budget < 1024:
            out.append(
                "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
            )
        elif isinstance(body.get("max_tokens"), int) and budget >= body["max_tokens"]:
            out.append("`max_tokens` must be greater than `thinking.budget_tokens`.")

    system = body.get("system")
    if system is not None:
        if isinstance(system, list):
            for j, b in enumerate(system):
                if not isinstance(b, dict) or b.get("type") != "text":
                    out.append(f"system.{j}: Input should be a text block")
                else:
                    _check_text(f"system.{j}", b, out)
        elif not isinstance(system, str):
            out.append("system: Input should be a valid string or list of text blocks")

    tools = body.get("tools")
    if tools is not None:
        if not isinstance(tools, list):
            out.append("tools: Input should be a valid list")
        else:
            names: set[str] = set()
            for j, tool in enumerate(tools):
                if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
                    out.append(f"tools.{j}.name: Field required")
                    continue
                if tool["name"] in names:
                    out.append("tools: Tool names must be unique.")
                names.add(tool["name"])
                if "type" not in tool and not isinstance(tool.get("input_schema"), dict):
                    out.append(f"tools.{j}.custom.input_schema: Field required")

    markers = _count_cache_markers(body)
    if markers > MAX_CACHE_BREAKPOINTS:
        out.append(
            f"A maximum of {MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. "
            f"Found {markers}."
        )

    messages = body.get("messages")
    if not isinstance(messages, list):
        out.append("messages: Field required")
        return out
    if not messages:
        out.append("messages: at least one message is required")
        return out

    # Per message and per block structure; collect tool_use ids per assistant message.
    norm: list[tuple[str, list[Any]]] = []  # (role, blocks) with string content as one text block
    seen_ids: set[str] = set()
    for i, msg in enumerate(messages):
        if not isinstance(msg, dict):
            out.append(f"messages.{i}: Input should be a valid dictionary")
            norm.append(("", []))
            continue
        role = msg.get("role")
        if role not in ("user", "assistant"):
            out.append(f"messages.{i}.role: Input should be 'user' or 'assistant'")
        content = msg.get("content")
        if isinstance(content, str):
            if not content.strip():
                out.append(
                    f"messages.{i}: all messages must have non-empty content except for "
                    "the optional final assistant message"
                )
            norm.append((str(role), [{"type": "text", "text": content}]))
            continue
        if not isinstance(content, list):
            out.append(f"messages.{i}.content: Input should be a valid list")
            norm.append((str(role), []))
            continue
        if not content:
            out.append(
                f"messages.{i}: all messages must have non-empty content except for "
                "the optional final assistant message"
            )
        norm.append((str(role), content))
        for j, block in enumerate(content):
            where = f"messages.{i}.content.{j}"
            if not isinstance(block, dict) or not isinstance(block.get("type"), str):
                out.append(f"{where}.type: Field required")
                continue
            kind = block["type"]
            if kind == "text":
                _check_text(where, block, out)
            elif kind == "tool_use":
                if role != "assistant":
                    out.append(f"{where}: `tool_use` blocks can only be in `assistant` messages")
                bid = block.get("id")
                if not isinstance(bid, str) or not bid:
                    out.append(f"{where}.id: Field required")
                elif bid in seen_ids:
                    out.append(f"{where}: `tool_use` ids must be unique; duplicate: {bid}")
                else:
                    seen_ids.add(bid)
                if not isinstance(block.get("name"), str) or not block.get("name"):
                    out.append(f"{where}.name: Field required")
                if not isinstance(block.get("input"), dict):
                    out.append(f"{where}.input: Input should be a valid dictionary")
            elif kind == "tool_result":
                if role != "user":
                    out.append(f"{where}: `tool_result` blocks can only be in `user` messages")
                if not isinstance(block.get("tool_use_id"), str):
                    out.append(f"{where}.tool_use_id: Field required")
                inner = block.get("content")
                if isinstance(inner, list):
                    for k, ib in enumerate(inner):
                        if isinstance(ib, dict) and ib.get("type") == "text":
                            _check_text(f"{where}.content.{k}", ib, out)
                elif inner is not None and not isinstance(inner, str):
                    out.append(f"{where}.content: Input should be a valid string or list")
            elif kind in ("thinking", "redacted_thinking"):
                if role != "assistant":
                    out.append(f"{where}: `{kind}` blocks can only be in `assistant` messages")
                key = "signature" if kind == "thinking" else "data"
                if not isinstance(block.get(key), str) or not block.get(key):
                    out.append(f"{where}.{kind}.{key}: Field required")
                if "cache_control" in block:
                    out.append(f"{where}.{kind}.cache_control: Extra inputs are not permitted")

    # (P1) starts with a user message and ends with one.
    if norm[0][0] != "user":
        out.append('messages.0.role: the first message must use the "user" role')

    def unanswered_server_calls(blocks: list[Any]) -> set[Any]:
        calls = {
            b.get("id")
            for b in blocks
            if isinstance(b, dict) and b.get("type") == "server_tool_use"
        }
        done = {
            b.get("tool_use_id")
            for b in blocks
            if isinstance(b, dict) and str(b.get("type", "")).endswith("_tool_result")
        }
        return calls - done

    for i, (role, blocks) in enumerate(norm[:-1]):
        if role == "assistant" and unanswered_server_calls(blocks):
            out.append(f"messages.{i}: `server_tool_use` blocks must be followed by their results")
    # a paused response (pause_turn) is sent back as the last message: the one allowed prefill
    paused = norm[-1][0] == "assistant" and bool(unanswered_server_calls(norm[-1][1]))
    if not count_only and norm[-1][0] != "user" and not paused:
        out.append(
            f"messages.{len(norm) - 1}: This model does not support assistant message prefill. "
            "The conversation must end with a user message."
        )

    def tool_use_ids(i: int) -> list[str]:
        role, blocks = norm[i]
        if role != "assistant":
            return []
        return [
            b["id"]
            for b in blocks
            if isinstance(b, dict) and b.get("type") == "tool_use" and isinstance(b.get("id"), str)
        ]

    # (P2) each assistant message with tool_use ids u1..uq is followed immediately by a user
    # message whose first q blocks are tool_results for u1..uq in order.
    for i in range(len(norm)):
        ids = tool_use_ids(i)
        if not ids:
            continue
        nxt = norm[i + 1] if i + 1 < len(norm) else ("", [])
        results = [
            b.get("tool_use_id")
            for b in nxt[1]
            if nxt[0] == "user" and isinstance(b, dict) and b.get("type") == "tool_result"
        ]
        missing = [u for u in ids if u not in results]
        if missing:
            out.append(
                f"messages.{i}: `tool_use` ids were found without `tool_result` blocks "
                f"immediately after: {', '.join(missing)}. Each `tool_use` block must have a "
                "corresponding `tool_result` block in the next message."
            )
            continue
        head = nxt[1][: len(ids)]
        head_ids = [
            b.get("tool_use_id") if isinstance(b, dict) and b.get("type") == "tool_result" else None
            for b in head
        ]
        if head_ids != ids:
            out.append(
                f"messages.{i + 1}: `tool_result` blocks must come first in the message, in the "
                f"order of the `tool_use` blocks of messages.{i}: expected {', '.join(ids)}."
            )

    # (P3) no other tool_result block anywhere.
    for k, (role, blocks) in enumerate(norm):
        prev_ids = tool_use_ids(k - 1) if k > 0 else []
        for j, b in enumerate(blocks):
            if not (isinstance(b, dict) and b.get("type") == "tool_result"):
                continue
            tid = b.get("tool_use_id")
            if role == "user" and j < len(prev_ids) and tid == prev_ids[j]:
                continue
            out.append(
                f"messages.{k}.content.{j}: unexpected `tool_use_id` found in `tool_result` "
                f"blocks: {tid}. Each `tool_result` block must have a corresponding `tool_use` "
                "block in the previous message."
            )
    return out


# ---------------------------------------------------------------------------------------------
# SSE events of a reply


def _text_chunks(t: str, words: int = 3) -> list[str]:
    parts = re.findall(r"\s*\S+\s*", t) or ([t] if t else [])
    return ["".join(parts[k : k + words]) for k in range(0, len(parts), words)]


def _json_fragments(obj: Any) -> list[str]:
    s = json.dumps(obj, ensure_ascii=False)
    n = max(2, min(8, len(s) // 12 + 1))
    n = min(n, len(s)) or 1
    size = -(-len(s) // n)
    return [s[k : k + size] for k in range(0, len(s), size)]


def _reply_events(
    reply: Reply, *, msg_id: str, model: str, usage_in: dict[str, int], output_tokens: int
) -> list[tuple[str, dict[str, Any]]]:
    ev: list[tuple[str, dict[str, Any]]] = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": msg_id,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {**usage_in, "output_tokens": 1},
                },
            },
        ),
        ("ping", {"type": "ping"}),
    ]
    for i, block in enumerate(reply.content):
        kind = block.get("type")

        def delta(d: dict[str, Any], i: int = i) -> None:
            ev.append(
                ("content_block_delta", {"type": "content_block_delta", "index": i, "delta": d})
            )

        if kind == "text":
            start: dict[str, Any] = {"type": "text", "text": ""}
            ev.append(
                (
                    "content_block_start",
                    {"type": "content_block_start", "index": i, "content_block": start},
                )
            )
            for chunk in _text_chunks(block.get("text", "")):
                delta({"type": "text_delta", "text": chunk})
            for citation in block.get("citations") or []:  # as the API streams them
                delta({"type": "citations_delta", "citation": citation})
        elif kind == "tool_use":
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            ev.append(
                (
                    "content_block_start",
                    {"type": "content_block_start", "index": i, "content_block": start},
                )
            )
            delta({"type": "input_json_delta", "partial_json": ""})
            raw = block.get("raw_input")  # a test's malformed input, streamed as written
            frags = [raw] if isinstance(raw, str) else _json_fragments(block.get("input", {}))
            for frag in frags:
                delta({"type": "input_json_delta", "partial_json": frag})
        elif kind == "thinking":
            start = {"type": "thinking", "thinking": "", "signature": ""}
            ev.append(
                (
                    "content_block_start",
                    {"type": "content_block_start", "index": i, "content_block": start},
                )
            )
            for chunk in _text_chunks(block.get("thinking", "")):
                delta({"type": "thinking_delta", "thinking": chunk})
            delta({"type": "signature_delta", "signature": block.get("signature", "sig")})
        else:  # redacted_thinking and anything else: whole block in the start event
            ev.append(
                (
                    "content_block_start",
                    {"type": "content_block_start", "index": i, "content_block": block},
                )
            )
        ev.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
    if reply.stop_reason is not None:
        ev.append(
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": reply.stop_reason, "stop_sequence": None},
                    "usage": {**usage_in, "output_tokens": output_tokens},
                },
            )
        )
        ev.append(("message_stop", {"type": "message_stop"}))
    return ev


def _sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


# ---------------------------------------------------------------------------------------------
# The server


class _ClientGone(Exception):
    pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    fake: FakeAnthropic

    def handle_error(self, request: Any, client_address: Any) -> None:
        exc = sys.exc_info()[1]
        if isinstance(exc, OSError):  # a client dropped its (keep-alive) connection
            return
        self.fake.server_errors.append(repr(exc))
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fake-anthropic/1.0"
    # TCP_NODELAY, as API servers set it: with Nagle the last small write of a stream (the
    # chunked body's end) waited for the client's delayed ACK, up to 40 ms per response
    disable_nagle_algorithm = True
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass

    def setup(self) -> None:
        super().setup()
        self.server.fake._track(self.connection, True)

    def finish(self) -> None:
        self.server.fake._track(self.connection, False)
        try:
            super().finish()
        except OSError:
            pass

    def do_POST(self) -> None:  # noqa: N802
        self.server.fake._handle(self)

    def do_HEAD(self) -> None:  # noqa: N802
        """A probe with no body (Claude Code's and eddy's ``HEAD /api/hello`` at start-up,
        to open the connection ahead of the first request): noted, answered 200."""
        self.server.fake._probed(self)

    def do_GET(self) -> None:  # noqa: N802
        self.server.fake._send_error(self, 404, None, f"{self.command} {self.path} not found", {})


class FakeAnthropic:
    """A scripted Messages API on 127.0.0.1; see the module docstring."""

    def __init__(
        self,
        script: list[ScriptItem] | Responder | None = None,
        *,
        default: Reply | None = None,
        log_file: str | None = None,
    ) -> None:
        self._lock = threading.RLock()
        self._script: list[ScriptItem] = []
        self._responder: Responder | None = None
        if callable(script):
            self._responder = script
        elif script is not None:
            self._script = list(script)
        self.default = default
        self.log_file = log_file
        self.base_url = ""
        self.requests: list[dict[str, Any]] = []
        # each /v1/messages body as the bytes on the wire (tests of the exact encoding)
        self.raw_bodies: list[bytes] = []
        self.headers: list[dict[str, str]] = []
        self.peers: list[tuple[str, int]] = []
        """The client's address of each Messages request (a new port: a new connection)."""
        self.probes: list[tuple[str, tuple[str, int]]] = []
        """Each HEAD request's path and the client's address."""
        self.probed = threading.Event()
        """Set once the first HEAD request is answered (a test waits for it)."""
        self.on_probe: Callable[[], Any] | None = None
        """Called at each HEAD request, once answered and noted (a test tells another
        process)."""
        self.violations: list[str] = []
        self.usage_log: list[dict[str, int]] = []
        self.count_requests: list[dict[str, Any]] = []
        self.server_errors: list[str] = []  # exceptions inside the fake itself (its own bugs)
        # (what, time.time()) for each /v1/messages call: "request" when its body has been read,
        # "replied" when its last byte was written: benchmarks time a client's phases with it.
        self.timeline: list[tuple[str, float]] = []
        # False only where another client is timed (bench: Claude Code sends shapes this fake
        # does not model, e.g. role "system" messages); eddy's tests always validate.
        self.validate = True
        self.cache = _PromptCache()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self._conns: set[socket.socket] = set()

    # -- lifecycle -----------------------------------------------------------------------------

    def start(self, port: int = 0, host: str = "127.0.0.1") -> FakeAnthropic:
        if self._server is not None:
            return self
        self._stopping.clear()
        server = _Server((host, port), _Handler)
        server.fake = self
        self._server = server
        self.base_url = f"http://{host}:{server.server_address[1]}"
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.name = f"fake-anthropic-{server.server_address[1]}"
        self._thread.start()
        return self

    def _probed(self, h: _Handler) -> None:
        with self._lock:  # noted before the answer: the client that got it finds it here
            self.probes.append((h.path, h.client_address[:2]))
        # ``probed`` after the answer: a test that acts on it (sends the first prompt) finds
        # the probe's exchange over, so the prompt can go on its connection
        h.send_response(200)
        h.send_header("Content-Length", "0")
        h.end_headers()
        h.wfile.flush()
        self.probed.set()
        if self.on_probe is not None:
            self.on_probe()

    def close_connections(self) -> None:
        """Close the server's side of every open connection (an idle keep-alive one, as a
        server that times them out does)."""
        with self._lock:
            conns = list(self._conns)
        for conn in conns:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def stop(self) -> None:
        server = self._server
        if server is None:
            return
        self._stopping.set()
        server.shutdown()
        self.close_connections()
        server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None
        self._thread = None

    def __enter__(self) -> FakeAnthropic:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- script --------------------------------------------------------------------------------

    def push(self, *replies: ScriptItem) -> None:
        """Append replies to the list script."""
        with self._lock:
            if self._responder is not None:
                raise TypeError("push() needs a list script; this server has a responder")
            self._script.extend(replies)

    @property
    def responder(self) -> Responder | None:
        return self._responder

    @responder.setter
    def responder(self, fn: Responder | None) -> None:
        with self._lock:
            self._responder = fn

    @property
    def pending(self) -> int:
        """Replies left in the list script."""
        return len(self._script)

    def _next_item(self, body: dict[str, Any]) -> ScriptItem:
        with self._lock:
            if self._responder is not None:
                fn = self._responder
            elif self._script:
                return self._script.pop(0)
            else:
                return self.default or Reply([text("(script exhausted)")])
        return fn(body)

    # -- connections ---------------------------------------------------------------------------

    def _track(self, conn: socket.socket, add: bool) -> None:
        with self._lock:
            if add:
                self._conns.add(conn)
            else:
                self._conns.discard(conn)

    # -- HTTP ----------------------------------------------------------------------------------

    @staticmethod
    def _request_id() -> str:
        return "req_" + uuid.uuid4().hex[:24]

    def _send_json(
        self, h: _Handler, status: int, body: dict[str, Any], headers: dict[str, str], rid: str
    ) -> None:
        data = json.dumps(body).encode()
        h.send_response(status)
        h.send_header("content-type", "application/json")
        h.send_header("content-length", str(len(data)))
        h.send_header("request-id", rid)
        for k, v in headers.items():
            h.send_header(k, v)
        h.end_headers()
        h.wfile.write(data)

    def _send_error(
        self,
        h: _Handler,
        status: int,
        error_type: str | None,
        message: str,
        headers: dict[str, str],
    ) -> None:
        rid = self._request_id()
        etype = (
            error_type
            or ERROR_TYPES.get(status)
            or ("api_error" if status >= 500 else "invalid_request_error")
        )
        body = {"type": "error", "error": {"type": etype, "message": message}, "request_id": rid}
        try:
            self._send_json(h, status, body, headers, rid)
        except OSError:
            h.close_connection = True

    @staticmethod
    def _read_body(h: _Handler) -> bytes:
        if "chunked" in h.headers.get("transfer-encoding", "").lower():
            data = b""
            while True:
                size = int(h.rfile.readline().strip().split(b";")[0], 16)
                if size == 0:
                    h.rfile.readline()
                    return data
                data += h.rfile.read(size)
                h.rfile.readline()
        n = int(h.headers.get("content-length") or 0)
        return h.rfile.read(n) if n else b""

    def _handle(self, h: _Handler) -> None:
        path = h.path.split("?", 1)[0].rstrip("/")
        try:
            raw = self._read_body(h)
        except (OSError, ValueError):
            h.close_connection = True
            return
        arrived = time.time()  # before this fake parses it: tens of ms for a body of MBs
        if path not in ("/v1/messages", "/v1/messages/count_tokens"):
            self._send_error(h, 404, None, f"Not found: {h.command} {path}", {})
            return
        try:
            body = json.loads(raw or b"null")
        except ValueError:
            body = None
        hdrs = {k.lower(): v for k, v in h.headers.items()}
        if path == "/v1/messages":
            with self._lock:
                self.timeline.append(("request", arrived))
                self.requests.append(
                    body if body is not None else {"_raw": raw.decode("utf-8", "replace")}
                )
                self.raw_bodies.append(raw)
                self.headers.append(hdrs)
                self.peers.append(h.client_address[:2])
                if self.log_file:
                    with open(self.log_file, "a", encoding="utf-8") as f:
                        f.write(json.dumps(body) + "\n")
        else:
            with self._lock:
                self.count_requests.append(body)
        if not (
            hdrs.get("x-api-key") or hdrs.get("authorization", "").lower().startswith("bearer ")
        ):
            self._send_error(h, 401, None, "invalid x-api-key", {})
            return
        if not isinstance(body, dict):
            msg = "Request body must be a JSON object"
            if path == "/v1/messages":
                with self._lock:
                    self.violations.append(msg)
            self._send_error(h, 400, None, msg, {})
            return
        if path == "/v1/messages/count_tokens":
            problems = validate_request(body, count_only=True)
            if problems:
                self._send_error(h, 400, None, problems[0], {})
                return
            rid = self._request_id()
            try:
                self._send_json(h, 200, {"input_tokens": prompt_tokens(body)}, {}, rid)
            except OSError:
                h.close_connection = True
            return

        problems = validate_request(body) if self.validate else []
        if problems:
            with self._lock:
                self.violations.extend(problems)
            self._send_error(h, 400, None, problems[0], {})
            return
        try:
            item = self._next_item(body)
        except Exception as e:  # a broken responder is a test bug: make it loud
            msg = f"fake responder raised {type(e).__name__}: {e}"
            with self._lock:
                self.violations.append(msg)
            self._send_error(h, 500, None, msg, {"x-should-retry": "false"})
            return
        if isinstance(item, HttpError):
            self._send_error(h, item.status, item.error_type, item.message, item.headers)
            return
        if isinstance(item, RawReply):
            self._reply_raw(h, item)
            return
        self._reply(h, body, item)
        with self._lock:
            self.timeline.append(("replied", time.time()))

    def _reply_raw(self, h: _Handler, reply: RawReply) -> None:
        try:
            h.send_response(200)
            h.send_header("content-type", reply.content_type)
            h.send_header("transfer-encoding", "chunked")
            h.send_header("request-id", self._request_id())
            h.end_headers()
            for k in range(0, len(reply.body), reply.chunk):
                self._chunk(h, reply.body[k : k + reply.chunk])
            h.wfile.write(b"0\r\n\r\n")
        except OSError:
            h.close_connection = True

    def _reply(self, h: _Handler, body: dict[str, Any], reply: Reply) -> None:
        usage_in = self.cache.usage(body)
        out_tokens = reply.output_tokens
        if out_tokens is None:
            out_tokens = _tokens(json.dumps(reply.content).encode())
        with self._lock:
            self.usage_log.append({**usage_in, "output_tokens": out_tokens})
        model = reply.model or str(body.get("model"))
        msg_id = "msg_" + uuid.uuid4().hex[:24]
        rid = self._request_id()
        if not body.get("stream"):
            self._reply_json(h, reply, msg_id, model, usage_in, out_tokens, rid)
            return
        events = _reply_events(
            reply, msg_id=msg_id, model=model, usage_in=usage_in, output_tokens=out_tokens
        )
        try:
            h.send_response(200)
            h.send_header("content-type", "text/event-stream; charset=utf-8")
            h.send_header("cache-control", "no-cache")
            h.send_header("transfer-encoding", "chunked")
            h.send_header("request-id", rid)
            h.end_headers()
            for n, (name, data) in enumerate(events):
                if reply.cut_after is not None and n >= reply.cut_after:
                    self._abort(h)
                    return
                if reply.error_after is not None and n >= reply.error_after:
                    err = {
                        "type": "error",
                        "error": {"type": "overloaded_error", "message": "Overloaded"},
                    }
                    self._chunk(h, _sse("error", err))
                    break
                if reply.stall_after is not None and n >= reply.stall_after:
                    self._stall(h)
                    self._abort(h)
                    return
                if n and reply.delay:
                    self._pause(h, reply.delay)
                self._chunk(h, _sse(name, data))
            h.wfile.write(b"0\r\n\r\n")
        except (OSError, _ClientGone):
            h.close_connection = True

    def _reply_json(
        self,
        h: _Handler,
        reply: Reply,
        msg_id: str,
        model: str,
        usage_in: dict[str, int],
        out_tokens: int,
        rid: str,
    ) -> None:
        if reply.cut_after is not None or reply.stall_after is not None:
            if reply.stall_after is not None:
                self._stall(h)
            self._abort(h)
            return
        if reply.error_after is not None:
            self._send_error(h, 529, None, "Overloaded", {})
            return
        if reply.delay:
            self._pause(h, reply.delay)
        msg = {
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": reply.content,
            "stop_reason": reply.stop_reason,
            "stop_sequence": None,
            "usage": {**usage_in, "output_tokens": out_tokens},
        }
        try:
            self._send_json(h, 200, msg, {}, rid)
        except OSError:
            h.close_connection = True

    @staticmethod
    def _chunk(h: _Handler, data: bytes) -> None:
        h.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")

    @staticmethod
    def _abort(h: _Handler) -> None:
        """Drop the connection mid-body (the client sees an incomplete chunked message)."""
        h.close_connection = True
        try:
            h.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _client_gone(self, h: _Handler) -> bool:
        try:
            readable, _, _ = select.select([h.connection], [], [], 0)
            if readable:
                return h.connection.recv(1, socket.MSG_PEEK) == b""
        except (OSError, ValueError):
            return True
        return False

    def _pause(self, h: _Handler, seconds: float) -> None:
        """Sleep ``seconds``, ending early (with _ClientGone) on server stop or client close."""
        end = seconds
        step = 0.02
        waited = 0.0
        while waited < end:
            if self._stopping.wait(min(step, end - waited)):
                raise _ClientGone
            waited += step
            if self._client_gone(h):
                raise _ClientGone

    def _stall(self, h: _Handler) -> None:
        try:
            self._pause(h, STALL_LIMIT_S)
        except _ClientGone:
            pass


# ---------------------------------------------------------------------------------------------
# CLI


def _load_script(path: str) -> tuple[list[ScriptItem], Reply | None]:
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    default: Reply | None = None
    if isinstance(data, dict):
        d = data.get("default")
        item = _item_from_json(d) if d else None
        if item is not None and not isinstance(item, Reply):
            raise ValueError("default must be a reply, not an HTTP error")
        default = item
        data = data.get("script", [])
    return [_item_from_json(d) for d in data], default


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.fakes.fake_api", description=__doc__)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0)
    p.add_argument(
        "--script", help="JSON list of replies ({content, stop_reason, ...} or {status, ...})"
    )
    p.add_argument("--log", help="append each request body to this file as one JSON line")
    args = p.parse_args(argv)
    script, default = _load_script(args.script) if args.script else ([], None)
    fake = FakeAnthropic(script, default=default, log_file=args.log)
    fake.start(port=args.port, host=args.host)
    done = threading.Event()

    def on_signal(signum: int, frame: Any) -> None:
        done.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    print(fake.base_url, flush=True)
    try:
        while not done.wait(0.5):
            pass
    finally:
        fake.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
