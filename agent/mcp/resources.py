"""``@server:uri`` in a prompt attaches that MCP resource, as ``@path`` attaches a file.

Only servers that are connected and list resources are asked; a mention of anything else is
left alone (``@someone:`` in prose). A resource's text is attached up to a size cap; a binary
one is named; a failure is a note, never an error of the prompt.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from agent.prompt.mentions import MAX_BYTES, mentioned_paths

if TYPE_CHECKING:
    from agent.mcp.manager import McpManager

READ_TIMEOUT = 30.0


def resource_mentions(text: str, manager: McpManager) -> list[tuple[str, str]]:
    """``(server, uri)`` for each ``@server:uri`` naming a server that offers resources."""
    out = []
    for raw in mentioned_paths(text):
        server, sep, uri = raw.partition(":")
        conn = manager.connections.get(server)
        if sep and uri and conn is not None and conn.state == "connected" and conn.resources:
            out.append((server, uri))
    return out


def _text_of(server: str, uri: str, result: Any) -> str:
    parts = []
    for content in result.contents:
        text = getattr(content, "text", None)
        if isinstance(text, str):
            parts.append(text)
        else:
            mime = getattr(content, "mime_type", None) or "unknown type"
            parts.append(f"[binary content ({mime}), not attached]")
    body = "\n".join(parts)
    note = ""
    if len(body.encode("utf-8")) > MAX_BYTES:
        body = body.encode("utf-8")[:MAX_BYTES].decode("utf-8", errors="ignore")
        note = "\n[... cut at 256 KB]"
    return f"Contents of @{server}:{uri}:\n```\n{body}\n```{note}"


async def attach_resources(manager: McpManager, text: str) -> list[str]:
    """Text blocks for the resources ``text`` mentions (see the module note)."""
    out = []
    for server, uri in resource_mentions(text, manager):
        try:
            # not wait_for: on 3.11 it can swallow Esc's cancellation that comes with the read
            async with asyncio.timeout(READ_TIMEOUT):
                result = await manager.read_resource(server, uri)
        except Exception as exc:  # a failed read is a note; the prompt goes on
            out.append(f"[@{server}:{uri} could not be read: {exc or type(exc).__name__}]")
            continue
        out.append(_text_of(server, uri, result))
    return out
