"""Claude Code's settings keys for a project's servers: ``enableAllProjectMcpServers`` and
``enabledMcpjsonServers`` approve them (from the user's files only), ``disabledMcpjsonServers``
keeps them from starting (from any file, ``-p`` included)."""

from __future__ import annotations

import json
from pathlib import Path

from agent.mcp.approval import McpJsonChoices, may_start
from agent.mcp.config import ServerConfig
from agent.mcp.setup import start_mcp
from agent.settings.files import SettingsSource


def server(name: str, scope: str = "project") -> ServerConfig:
    return ServerConfig(name, scope, ".mcp.json", "stdio", "true")  # type: ignore[arg-type]


def source(scope: str) -> SettingsSource:
    return SettingsSource(scope, Path(f"/{scope}.json"), f"{scope}.json")


def test_the_users_files_approve_project_servers_and_the_projects_cannot(
    tmp_path: Path,
) -> None:
    mine = McpJsonChoices.of([(source("user"), {"enabledMcpjsonServers": ["db"]})])
    assert may_start(server("db"), tmp_path, headless=False, choices=mine)
    assert not may_start(server("web"), tmp_path, headless=False, choices=mine)
    everything = McpJsonChoices.of([(source("user"), {"enableAllProjectMcpServers": True})])
    assert may_start(server("web"), tmp_path, headless=False, choices=everything)
    theirs = McpJsonChoices.of(
        [(source("project"), {"enableAllProjectMcpServers": True,
                              "enabledMcpjsonServers": ["db"]}),
         (source("local"), {"enabledMcpjsonServers": ["db"]})]
    )  # fmt: skip
    assert not may_start(server("db"), tmp_path, headless=False, choices=theirs)


async def test_a_disabled_project_server_starts_nowhere_not_even_headless(
    tmp_path: Path,
) -> None:
    off = McpJsonChoices.of(
        [(source("user"), {"enableAllProjectMcpServers": True}),
         (source("project"), {"disabledMcpjsonServers": ["db"]})]
    )  # fmt: skip
    assert not may_start(server("db"), tmp_path, headless=True, choices=off)
    assert may_start(server("db", "user"), tmp_path, headless=False, choices=off)  # the user's
    (tmp_path / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"db": {"command": "no-such-program-xyz"}}})
    )
    manager, problems = start_mcp(
        tmp_path, [(source("project"), {"disabledMcpjsonServers": ["db"]})], headless=True
    )
    assert manager is not None
    try:
        assert problems == ["MCP: not started (disabledMcpjsonServers): db."]
        assert manager.connections["db"].state == "needs-approval"
    finally:
        await manager.aclose()
