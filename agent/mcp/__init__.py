"""MCP: Model Context Protocol servers, configured as Claude Code users configure them.

* :mod:`agent.mcp.config` reads ``.mcp.json``, ``~/.claude.json`` and eddy's settings;
* :mod:`agent.mcp.connection` keeps one server's connection (state, lists, calls);
* :mod:`agent.mcp.transport` opens the transport to one server (stdio, SSE, HTTP, OAuth);
* :mod:`agent.mcp.manager` runs them on their own loop and offers their tools to a session;
* :mod:`agent.mcp.host` and :mod:`agent.mcp.hosted`: a headless run's stdio servers, connected
  from a process of their own (the MCP host, ``python -m agent.mcp``) and seen here as
  connections like the others; :mod:`agent.mcp.early` starts it before ``-p``'s imports;
* :mod:`agent.mcp.adapter` turns a server's tool into ``mcp__<server>__<tool>``;
* :mod:`agent.mcp.results` turns a call's result into one tool result;
* :mod:`agent.mcp.oauth` logs in to HTTP servers (``/mcp login``);
* :mod:`agent.mcp.approval` and :mod:`agent.mcp.ask`: project servers start only once approved;
* :mod:`agent.mcp.command` is ``/mcp`` and the servers' prompts as commands;
* :mod:`agent.mcp.resources` attaches ``@server:uri`` mentions;
* :mod:`agent.mcp.setup` gives a session its servers.

The SDK (``mcp``) is imported only when a server starts (in the MCP host, for the servers it
connects): a session without servers pays nothing for it.
"""
