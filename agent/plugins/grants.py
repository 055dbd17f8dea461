"""What a project's plugins grant: the interface the trust question reads.

A plugin switched on by a project's settings file (``enabledPlugins`` in
``.claude/settings.json``, ``.eddy/settings.json`` or a local file), or found in the
project's ``.claude/skills``, is the project's choice, so what it would run is the project's
grant, as the project's own hooks and servers are:

* its hooks are ``hooks`` grants: they take effect only when the trust layer approves the
  project's hooks (:func:`agent.plugins.parts.hook_sources` asks ``approved("hooks")``);
* its MCP servers are ``mcp`` grants: they start only after the per-server approval that
  ``.mcp.json``'s servers get (their scope is ``project``: agent/mcp/approval.py);
* its skills and commands with ``allowed-tools`` are ``skills`` grants: those tools are
  granted only when the project's skills are approved (agent/prompt/skills.py,
  agent/prompt/commands.py), and its skills ask before their first run as the project's own.

The trust layer lists :func:`plugin_grants` with the project's other grants
(agent/settings/grants.py ``collect_grants``): the question shows them, the user's yes per
kind covers them, and a change of one asks again. ``open_session`` hands the verdict on a
kind to ``agent.plugins.parts.hook_sources(..., approved)`` and the skills' loader. A plugin
the user switched on in their own settings, or loaded with ``--plugin-dir``, is theirs and
grants nothing of the project's. A plugin's agents grant nothing: their ``permissionMode``
is not honoured (agent/subagents/definitions.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.plugins.parts import server_name
from agent.plugins.plugin import Plugin


@dataclass(frozen=True)
class PluginGrant:
    """One thing a project's plugin grants (the shape of the trust layer's ``Grant``).

    Attributes:
        kind: ``hooks`` or ``mcp``.
        source: the plugin and the file that switched it on
            (``plugin lint@team (switched on in .claude/settings.json)``).
        text: what it does (``runs `./check.sh` on PreToolUse[Bash]``).
    """

    kind: str
    source: str
    text: str


def grants_of(plugins: Iterable[Plugin]) -> list[PluginGrant]:
    """The grants of the project's plugins among ``plugins``."""
    out: list[PluginGrant] = []
    for plugin in plugins:
        if plugin.borne != "project":
            continue
        source = f"plugin {plugin.plugin_id} (switched on in {plugin.enabled_by})"
        for _label, hooks in plugin.hooks:
            for event, groups in hooks.items():
                for group in groups if isinstance(groups, list) else []:
                    out += _hook_grants(plugin, source, event, group)
        for name, (_label, entry) in plugin.mcp_servers.items():
            what = _server_text(entry, plugin)
            out.append(
                PluginGrant("mcp", source, f"MCP server {server_name(plugin, name)}: {what}")
            )
        for what, tools in _tool_grants(plugin):
            out.append(PluginGrant("skills", source, f"{what} may use {tools} without asking"))
    return out


def _hook_grants(plugin: Plugin, source: str, event: str, group: Any) -> list[PluginGrant]:
    """One grant per command hook of ``group`` (a matcher group of ``event``)."""
    if not isinstance(group, dict):
        return []
    matcher = group.get("matcher")
    where = f"{event}[{matcher}]" if isinstance(matcher, str) and matcher else event
    out = []
    for handler in group.get("hooks") or []:
        if isinstance(handler, dict) and isinstance(handler.get("command"), str):
            command = plugin.substitute(handler["command"])
            out.append(PluginGrant("hooks", source, f"runs `{command}` on {where}"))
    return out


def _tool_grants(plugin: Plugin) -> list[tuple[str, str]]:
    """(``skill name`` or ``command /name``, its allowed tools) of a plugin's skills and
    commands that have ``allowed-tools``."""
    from agent.memory.frontmatter import read_front_matter

    found: list[tuple[str, Path]] = []
    for folder in plugin.skills:
        single = folder / "SKILL.md"
        skills = [single] if single.is_file() else sorted(folder.glob("*/SKILL.md"))
        found += [(f"skill {plugin.name}:{f.parent.name}", f) for f in skills]
    for place in plugin.commands:
        if place.is_file():
            found.append((f"command /{plugin.name}:{place.stem}", place))
            continue
        for f in sorted(place.rglob("*.md")) if place.is_dir() else []:
            name = ":".join(f.relative_to(place).with_suffix("").parts)
            found.append((f"command /{plugin.name}:{name}", f))
    out = []
    for what, path in found:
        fm = read_front_matter(path, [], "")
        tools = list(fm.items("allowed-tools")) if fm is not None else []
        if tools:
            out.append((what, ", ".join(tools)))
    return out


def _server_text(entry: Any, plugin: Plugin) -> str:
    if not isinstance(entry, dict):
        return "(not a server entry)"
    if isinstance(entry.get("url"), str):
        return f"connects to {plugin.substitute(entry['url'])}"
    args = entry.get("args")
    words = [str(entry.get("command", "")), *map(str, args if isinstance(args, list) else [])]
    return "runs `" + plugin.substitute(" ".join(words).strip()) + "`"


def plugin_grants(
    workspace: Path, settings_raw: Sequence[tuple[Any, dict[str, Any]]]
) -> list[PluginGrant]:
    """What the plugins a project switches on would run in ``workspace`` (see the module
    docstring); reads only, runs nothing, never raises.

    Args:
        workspace: the project.
        settings_raw: ``Settings.raw`` of the project (every settings file, lowest first).
    """
    from agent.plugins.registry import load_plugins

    return grants_of(load_plugins(workspace, settings_raw))
