"""Give a session its MCP servers: read the configuration, start what may start, say the rest."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.mcp.approval import may_start
from agent.mcp.config import load_mcp_config

if TYPE_CHECKING:
    from agent.mcp.manager import McpManager
    from agent.session.core import Session


def attach_mcp(
    session: Session,
    settings_raw: Sequence[tuple[Any, dict[str, Any]]],
    *,
    mcp_config_files: Sequence[Path | str] = (),
    strict: bool = False,
    headless: bool = False,
) -> list[str]:
    """Configure ``session``'s MCP servers and start them in the background.

    Nothing is started (no thread, no SDK import) when no server is configured. Project
    servers the user has not approved wait (``/mcp approve``); headless runs start them.

    Returns:
        The configuration problems and what waits for approval, for the user.
    """
    workspace = session.config.workspace
    config = load_mcp_config(
        workspace, settings_raw, mcp_config_files=mcp_config_files, strict=strict
    )
    problems = [f"MCP: {p}" for p in config.problems]
    if not config.servers:
        return problems
    from agent.mcp.manager import McpManager
    from agent.paths import project_data_dir

    manager = McpManager(
        config,
        approved=lambda c: may_start(c, workspace, headless=headless),
        log_dir=project_data_dir(workspace) / "mcp-logs",
        wait_at_first_call=headless,
        background=not headless,  # -p waits for them: nothing to keep responsive
    )
    manager.attach(session)
    manager.start()
    waiting = [c.name for c in config.servers.values() if not manager.may_start(c)]
    if waiting:
        names = ", ".join(waiting)
        problems.append(
            f"MCP: this project's .mcp.json names servers not approved yet: {names}. "
            "/mcp approve NAME (or /mcp approve all) starts them; the answer is remembered."
        )
    return problems


def manager_of(session: Session) -> McpManager | None:
    """The session's MCP manager, or None when it has no servers."""
    return getattr(session, "mcp", None)
