"""The MCP servers an editor names in ``session/new`` and ``session/load``.

The editor's user configured them, so they need no approval: they become one more
``--mcp-config`` layer (JSON text, scope "flag") of the session eddy builds, and start
through the same MCP manager as every other server. Stdio entries carry command, args and
env; http and sse entries a url and headers. ACP-transport servers (unstable in the
protocol) are not supported: said, and skipped.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from acp import schema

_BAD = re.compile(r"[^A-Za-z0-9_-]")

CAPABILITIES = schema.McpCapabilities(http=True, sse=True)
"""What eddy tells the editor in ``initialize``: stdio (always), http and sse servers."""


def server_name(name: str, taken: set[str]) -> str:
    """An ``mcpServers`` key for the editor's server name (``mcp__<name>__<tool>`` allows only
    letters, digits, _ and -), unique among ``taken``."""
    base = _BAD.sub("_", name.strip()) or "server"
    out, n = base, 2
    while out in taken:
        out, n = f"{base}_{n}", n + 1
    return out


def mcp_config_text(servers: Sequence[Any] | None) -> tuple[str | None, list[str]]:
    """The editor's servers as ``--mcp-config`` JSON text (None: none to add), and problems."""
    entries: dict[str, dict[str, Any]] = {}
    problems: list[str] = []
    for server in servers or ():
        name = server_name(str(getattr(server, "name", "")), set(entries))
        if isinstance(server, schema.McpServerStdio):
            entries[name] = {
                "command": server.command,
                "args": list(server.args),
                "env": {e.name: e.value for e in server.env},
            }
        elif isinstance(server, schema.HttpMcpServer | schema.SseMcpServer):
            entries[name] = {
                "type": server.type,
                "url": server.url,
                "headers": {h.name: h.value for h in server.headers},
            }
        else:
            kind = getattr(server, "type", type(server).__name__)
            problems.append(f"MCP server {name} from the editor: {kind} servers are not supported.")
    if not entries:
        return None, problems
    return json.dumps({"mcpServers": entries}), problems
