"""A plugin's parts in the forms eddy's loaders read: hook configurations for
agent/hooks/config.py ``load_hooks`` and MCP server entries for agent/mcp/config.py.

The other components go to their loaders as the plugins themselves (the loaders take the
plugins and read each one's folders): commands (agent/prompt/commands.py), skills
(agent/prompt/skills.py), agents (agent/subagents/definitions.py), output styles
(agent/prompt/output_styles.py).

Names are Claude Code's: a plugin's MCP server ``db`` is the server ``plugin_<plugin>_db``,
so its tools are ``mcp__plugin_<plugin>_db__<tool>`` (the names its hooks' matchers and the
permission rules use).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.plugins.plugin import Plugin


@dataclass(frozen=True)
class PluginSource:
    """Where a plugin's configuration came from, as a settings file's source reads
    (``label``, ``scope``), with the variables its hooks get in their environment."""

    label: str
    scope: str
    env: Mapping[str, str] = field(default_factory=dict)


def server_name(plugin: Plugin, server: str) -> str:
    """The session's name of a plugin's MCP server (``plugin_<plugin>_<server>``)."""
    return f"plugin_{plugin.name}_{server}"


def _substituted(value: Any, plugin: Plugin) -> Any:
    if isinstance(value, str):
        return plugin.substitute(value)
    if isinstance(value, list):
        return [_substituted(v, plugin) for v in value]
    if isinstance(value, dict):
        return {k: _substituted(v, plugin) for k, v in value.items()}
    return value


def hook_sources(
    plugins: Iterable[Plugin], workspace: Path, approved: Callable[[str], bool]
) -> list[tuple[PluginSource, dict[str, Any]]]:
    """The plugins' hooks as ``(source, {"hooks": ...})`` pairs for ``load_hooks``, with
    ``${CLAUDE_PLUGIN_ROOT}`` and ``${CLAUDE_PLUGIN_DATA}`` filled in. A project's plugin's
    hooks come only when ``approved("hooks")`` (the project's hooks are approved)."""
    out = []
    for plugin in plugins:
        if plugin.borne == "project" and not approved("hooks"):
            continue
        env = {**plugin.variables(), "CLAUDE_PROJECT_DIR": str(workspace)}
        scope = "project" if plugin.borne == "project" else "user"
        for label, hooks in plugin.hooks:
            source = PluginSource(f"plugin {plugin.plugin_id} ({label})", scope, env)
            out.append((source, {"hooks": _substituted(hooks, plugin)}))
    return out


@dataclass(frozen=True)
class PluginServers:
    """One plugin's MCP servers for agent/mcp/config.py.

    Attributes:
        scope: ``project`` for a project's plugin (its servers wait for the user's approval,
            as ``.mcp.json``'s do), else ``user``.
        label: the plugin, for messages.
        servers: entries by session name (``plugin_<plugin>_<server>``), variables filled in.
        env: what a stdio server gets in its environment besides its own ``env``.
    """

    scope: str
    label: str
    servers: dict[str, Any]
    env: Mapping[str, str]


def mcp_servers(plugins: Iterable[Plugin], workspace: Path) -> list[PluginServers]:
    """Every plugin's MCP servers (see :class:`PluginServers`)."""
    out = []
    for plugin in plugins:
        if not plugin.mcp_servers:
            continue
        servers = {
            server_name(plugin, name): _substituted(entry, plugin)
            for name, (_label, entry) in plugin.mcp_servers.items()
        }
        env = {**plugin.variables(), "CLAUDE_PROJECT_DIR": str(workspace)}
        scope = "project" if plugin.borne == "project" else "user"
        out.append(PluginServers(scope, f"plugin {plugin.plugin_id}", servers, env))
    return out
