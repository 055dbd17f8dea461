"""MCP: Model Context Protocol servers, configured as Claude Code users configure them.

* :mod:`agent.mcp.config` reads ``.mcp.json``, ``~/.claude.json`` and eddy's settings;
* :mod:`agent.mcp.connection` keeps one server's connection (state, lists, calls);
* :mod:`agent.mcp.manager` runs them on their own loop and offers their tools to a session;
* :mod:`agent.mcp.adapter` turns a server's tool into ``mcp__<server>__<tool>``;
* :mod:`agent.mcp.results` turns a call's result into one tool result.

The SDK (``mcp``) is imported only when a server starts: a session without servers pays
nothing for it.
"""

from agent.mcp.config import McpConfig, ServerConfig, load_mcp_config
from agent.mcp.manager import McpManager

__all__ = ["McpConfig", "McpManager", "ServerConfig", "load_mcp_config"]
