"""An MCP server's tool as one of eddy's tools: ``mcp__<server>__<tool>``.

The name, the server's description and its input schema go to the model unchanged (names are
reduced to the characters the API allows). ``read_only`` stays False whatever the server says:
the permission policy lets read-only tools run without asking, and a server's annotations are
hints from a program eddy does not control. A ``readOnlyHint`` only makes the call
``concurrent`` (the runner runs such calls in parallel, docs/loop.md item 6).
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from typing import Any

from tools.base import ResolvedPath, ToolContext, ToolError, ToolResult

MAX_DESCRIPTION = 2048
"""Claude Code cuts MCP tool descriptions here too: a server cannot flood the prompt."""
MAX_NAME = 64

Caller = Callable[[str, str, dict[str, Any], ToolContext], Awaitable[ToolResult]]
"""``(server, tool, args) -> result``: the manager's bridge to the server's event loop."""


def api_name(text: str) -> str:
    """``text`` with every character the API refuses in a tool name replaced by ``_``."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", text)


def tool_name(server: str, tool: str) -> str:
    """The name the model calls: ``mcp__<server>__<tool>`` (at most 64 characters)."""
    return f"mcp__{api_name(server)}__{api_name(tool)}"[:MAX_NAME]


MAX_SCHEMA_CHARS = 32_000
"""A server's schema longer than this (as JSON) is not sent: one server must not flood every
request (or push it past the API's size limit); the server still checks the arguments."""


def input_schema(schema: Any) -> dict[str, Any]:
    """The server's schema, as an object schema the API accepts."""
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return {"type": "object", "properties": {}}
    try:
        size = len(json.dumps(schema))
    except (TypeError, ValueError, RecursionError):
        size = MAX_SCHEMA_CHARS + 1  # not JSON: not sent either
    if size > MAX_SCHEMA_CHARS:
        return {"type": "object", "properties": {}}
    return schema


class McpTool:
    """A tool of a connected MCP server (see the module note).

    Args:
        server: the server's configured name.
        tool: the server's ``mcp.types.Tool``.
        call: runs the call on the server's event loop.
    """

    read_only = False

    def __init__(self, server: str, tool: Any, call: Caller) -> None:
        self.server = server
        self.mcp_name: str = tool.name
        self.name = tool_name(server, tool.name)
        description = (tool.description or "").strip() or f"The {tool.name} tool of {server}."
        if len(description) > MAX_DESCRIPTION:
            description = description[:MAX_DESCRIPTION] + "…"
        self.description = description
        self.input_schema = input_schema(tool.input_schema)
        annotations = tool.annotations
        self.concurrent = bool(annotations is not None and annotations.read_only_hint)
        """The server marks the tool read-only: it may run beside other read-only calls."""
        self._call = call

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Call the tool on its server; failures are is_error results."""
        if not isinstance(args, dict):
            raise ToolError(f"{self.name}: the input must be an object")
        return await self._call(self.server, self.mcp_name, args, ctx)

    def paths(self, args: dict[str, Any], ctx: ToolContext) -> list[ResolvedPath]:
        """No paths: an MCP server's effects are outside what eddy can see or restore."""
        return []

    def summary(self, args: dict[str, Any]) -> str:
        """The server, the tool and the first argument, shortened."""
        first = next((str(v) for v in args.values()), "") if isinstance(args, dict) else ""
        first = first if len(first) <= 60 else first[:57] + "…"
        return f"{self.server}: {self.mcp_name}" + (f" {first}" if first else "")
