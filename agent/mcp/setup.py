"""A session's MCP servers: read the configuration, start what may start, say the rest."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.mcp.approval import McpJsonChoices, answer_of, may_start, needs_approval
from agent.mcp.config import load_mcp_config

if TYPE_CHECKING:
    from agent.mcp.manager import McpManager
    from agent.plugins.parts import PluginServers


NONBLOCKING = "MCP_CONNECTION_NONBLOCKING"
"""Claude Code's variable: set (``1``, ``true``), ``-p`` sends its first request without
waiting for its servers; each server's tools join the requests after it connected."""


def nonblocking() -> bool:
    """Whether ``-p``'s first request goes without waiting for the servers
    (``MCP_CONNECTION_NONBLOCKING``)."""
    return os.environ.get(NONBLOCKING, "").strip().lower() in ("1", "true", "yes", "on")


def start_mcp(
    workspace: Path,
    settings_raw: Sequence[tuple[Any, dict[str, Any]]],
    *,
    mcp_config_files: Sequence[Path | str] = (),
    strict: bool = False,
    headless: bool = False,
    plugin_servers: Sequence[PluginServers] = (),
    roots: Callable[[], tuple[Path, ...]] | None = None,
) -> tuple[McpManager | None, list[str]]:
    """The configured MCP servers, starting in the background.

    Nothing is started (no thread, no SDK import) when no server is configured. Project
    servers (a project's plugins' too) the user has not approved wait (``/mcp approve``);
    headless runs start them, and their first request waits for them (not with
    ``MCP_CONNECTION_NONBLOCKING``).

    Returns:
        The manager (None without servers; bind it to the session's tool set and register
        it as an extension), and the configuration problems and what waits for approval.
    """
    config = load_mcp_config(
        workspace,
        settings_raw,
        mcp_config_files=mcp_config_files,
        strict=strict,
        plugin_servers=plugin_servers,
    )
    problems = [f"MCP: {p}" for p in config.problems]
    if not config.servers:
        return None, problems
    from agent.mcp.disabled import DisabledServers
    from agent.mcp.early import in_host
    from agent.mcp.hosted import hosts
    from agent.mcp.manager import McpManager
    from agent.paths import project_data_dir

    choices = McpJsonChoices.of(settings_raw)
    held = headless and nonblocking()  # the first request does not wait for them
    hosted = headless and not held and in_host() and hosts(config.servers.values())
    manager = McpManager(
        config,
        approved=lambda c: may_start(c, workspace, headless=headless, choices=choices),
        log_dir=project_data_dir(workspace) / "mcp-logs",
        wait_at_first_call=headless and not held,
        connect_after_first_call=held,
        roots=roots or (lambda: (workspace,)),
        background=not headless,  # -p waits for them: nothing to keep responsive
        disabled=DisabledServers(workspace),  # /mcp disable, kept where Claude Code keeps it
        hosted=hosted,  # the MCP SDK imported beside eddy's start-up, not in its way
    )
    manager.start()
    off = [
        c.name for c in config.servers.values() if needs_approval(c) and c.name in choices.disabled
    ]
    if off:
        problems.append(f"MCP: not started (disabledMcpjsonServers): {', '.join(off)}.")
    # the servers never answered for are the front end's question (agent/mcp/ask.py), not a
    # problem: the TUI and line mode ask at once, the others say they wait (waiting_line)
    denied = [
        c.name
        for c in config.servers.values()
        if not manager.may_start(c)
        and c.name not in choices.disabled
        and answer_of(workspace, c.name) is False
    ]
    if denied:
        problems.append(
            f"MCP: not started, you said no for this project: {', '.join(denied)}. "
            "/mcp approve NAME starts one; the answer is remembered."
        )
    return manager, problems
