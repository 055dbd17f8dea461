"""WebSearch ``{query, allowed_domains, blocked_domains}`` where the provider has no server-side
search (Amazon Bedrock): Claude Code's client tool, answering every call with why not.

With the Anthropic API the search is the API's own server tool, passed in every request
(agent/model/web_search.py); this tool is offered only when that cannot be, so that a model asked
to search gets a clear error instead of silently lacking the tool.
"""

from __future__ import annotations

from typing import Any

from tools.base import ResolvedPath, ToolContext, ToolError, ToolResult


class WebSearchUnavailableTool:
    """The WebSearch tool (Claude Code's name and input fields), for providers without search."""

    name = "WebSearch"
    description = (
        "Searches the web. Not available with the current API provider: every call fails "
        "with the reason. Use WebFetch on a known URL instead."
    )
    input_schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "query": {"type": "string", "minLength": 2, "description": "The search query"},
            "allowed_domains": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Only include search results from these domains",
            },
            "blocked_domains": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Never include search results from these domains",
            },
        },
        "required": ["query"],
        "additionalProperties": False,
    }
    read_only = True

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def paths(self, args: dict[str, Any], ctx: ToolContext) -> list[ResolvedPath]:
        """No paths."""
        return []

    def summary(self, args: dict[str, Any]) -> str:
        """The query."""
        return str(args.get("query", ""))[:200]

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Fail with the reason (see the module docstring)."""
        raise ToolError(self.reason)
