"""One plugin directory, read as Claude Code defines it (its plugins reference).

A plugin is a directory; ``.claude-plugin/plugin.json`` (the manifest) is optional: without
it the default layout alone is the plugin and its name is the directory's (or the one its
marketplace entry gives). The components and their default places:

==============  ======================  ==================================================
component       default                 manifest field
==============  ======================  ==================================================
commands        ``commands/``           ``commands`` (replaces the default)
agents          ``agents/``             ``agents`` (replaces the default)
skills          ``skills/``             ``skills`` (adds to the default); a ``SKILL.md`` at
                                        the root alone is a one-skill plugin
hooks           ``hooks/hooks.json``    ``hooks`` (paths or inline; adds to the default)
MCP servers     ``.mcp.json``           ``mcpServers`` (paths or inline; adds)
output styles   ``output-styles/``      ``outputStyles`` (replaces the default)
==============  ======================  ==================================================

Manifest paths are relative to the plugin root and start with ``./`` (``skills`` also takes
``.``); a path that leaves the root is refused. What eddy does not support (LSP servers,
monitors, themes, workflows, ``userConfig``, channels, ``bin/``, a plugin's
``settings.json``, dependencies) is named once per plugin in :attr:`Plugin.unsupported`,
never dropped silently. A problem (a manifest that is not JSON, a field of the wrong type, a
missing file) is one line naming the plugin in :attr:`Plugin.problems`; the rest still loads,
except for a manifest that cannot be read at all, which leaves the plugin out
(:attr:`Plugin.failed`).

``${CLAUDE_PLUGIN_ROOT}`` (the plugin's directory) and ``${CLAUDE_PLUGIN_DATA}`` (its
persistent data directory) are substituted where Claude Code substitutes them (the loaders
call :meth:`Plugin.substitute`) and exported to its hooks and servers (:meth:`Plugin.env`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

MANIFEST = Path(".claude-plugin") / "plugin.json"
Borne = Literal["user", "project"]
"""Whose choice a plugin is: the user's own (their settings, ``--plugin-dir``) or the
project's (enabled by a project's settings file): its hooks and MCP servers are then the
project's grants (agent/plugins/grants.py)."""

_UNSUPPORTED_FIELDS = {
    "lspServers": "LSP servers",
    "userConfig": "userConfig",
    "channels": "channels",
    "workflows": "workflows",
    "dependencies": "dependencies",
    "monitors": "monitors",
    "themes": "themes",
}
_UNSUPPORTED_PLACES = {
    ".lsp.json": "LSP servers (.lsp.json)",
    "monitors/monitors.json": "monitors (monitors/)",
    "themes": "themes (themes/)",
    "workflows": "workflows (workflows/)",
    "bin": "executables (bin/)",
    "settings.json": "plugin settings (settings.json)",
}
_PATH_FIELDS = ("commands", "agents", "skills", "outputStyles")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


@dataclass
class Plugin:
    """One plugin: where it is, whose choice it is, and its components' places.

    Attributes:
        name: the namespace of its components (``/name:command``, ``name:agent``).
        plugin_id: ``name@marketplace`` (``name@inline`` for ``--plugin-dir``).
        root: its directory (``${CLAUDE_PLUGIN_ROOT}``).
        borne: ``user`` or ``project`` (see :data:`Borne`).
        enabled_by: where it was switched on, for messages (a settings file's label,
            ``--plugin-dir``, ``installed``).
        data_dir: its persistent data directory (``${CLAUDE_PLUGIN_DATA}``).
        version: the manifest's version, or "".
        description: the manifest's description, or "".
        commands: command files and folders.
        agents: agent files and folders.
        skills: folders of ``<name>/SKILL.md`` folders, or folders holding a SKILL.md.
        styles: output style files and folders.
        hooks: hook configurations (``{"PreToolUse": [...]}``), each with where it came from.
        mcp_servers: MCP server entries by the plugin's own server name, with their source.
        unsupported: the components eddy does not support, named once.
        problems: what was wrong (one line each, naming the plugin).
        failed: the plugin cannot load at all (its manifest is unreadable).
    """

    name: str
    plugin_id: str
    root: Path
    borne: Borne = "user"
    enabled_by: str = ""
    data_dir: Path | None = None
    version: str = ""
    description: str = ""
    commands: list[Path] = field(default_factory=list)
    agents: list[Path] = field(default_factory=list)
    skills: list[Path] = field(default_factory=list)
    styles: list[Path] = field(default_factory=list)
    hooks: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    mcp_servers: dict[str, tuple[str, Any]] = field(default_factory=dict)
    unsupported: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    failed: bool = False

    def variables(self) -> dict[str, str]:
        """The plugin's variables: ``CLAUDE_PLUGIN_ROOT`` and ``CLAUDE_PLUGIN_DATA``."""
        out = {"CLAUDE_PLUGIN_ROOT": str(self.root)}
        if self.data_dir is not None:
            out["CLAUDE_PLUGIN_DATA"] = str(self.data_dir)
        return out

    def substitute(self, text: str) -> str:
        """``text`` with ``${CLAUDE_PLUGIN_ROOT}`` and ``${CLAUDE_PLUGIN_DATA}`` filled in
        (the data directory is made on the first reference, as Claude Code does)."""
        if "${CLAUDE_PLUGIN_DATA}" in text and self.data_dir is not None:
            try:
                self.data_dir.mkdir(parents=True, exist_ok=True)
            except OSError:
                pass  # a hook or server that needs it says so when it runs
        for name, value in self.variables().items():
            text = text.replace("${" + name + "}", value)
        return text

    def say(self, text: str) -> None:
        """Add a problem line naming the plugin."""
        self.problems.append(f"plugin {self.plugin_id}: {text}")


def read_plugin(
    root: Path,
    plugin_id: str,
    *,
    name: str | None = None,
    borne: Borne = "user",
    enabled_by: str = "",
    data_dir: Path | None = None,
    entry: dict[str, Any] | None = None,
) -> Plugin:
    """The plugin at ``root``; never raises (what is wrong is in its ``problems``).

    Args:
        root: the plugin's directory.
        plugin_id: ``name@marketplace``.
        name: its name when the manifest has none (the marketplace entry's, else the
            directory's).
        borne: whose choice it is.
        enabled_by: where it was switched on.
        data_dir: its persistent data directory.
        entry: its marketplace entry, whose component fields supplement the manifest.
    """
    plugin = Plugin(name or root.name, plugin_id, root, borne, enabled_by, data_dir=data_dir)
    manifest = _read_manifest(plugin)
    if manifest is None:
        plugin.failed = True
        return plugin
    declared = manifest.get("name")
    if declared is not None and (not isinstance(declared, str) or not _NAME.match(declared)):
        plugin.say(f"{MANIFEST}: name must be a name without spaces; the directory's is used.")
    elif isinstance(declared, str) and name is None:
        plugin.name = declared
    for key in ("version", "description"):
        value = manifest.get(key)
        if isinstance(value, str):
            setattr(plugin, key, value)
    fields = dict(manifest)
    for key, value in (entry or {}).items():  # the marketplace entry supplements the manifest
        if key in (*_PATH_FIELDS, "hooks", "mcpServers") and key not in fields:
            fields[key] = value
    _read_components(plugin, fields)
    return plugin


def _read_manifest(plugin: Plugin) -> dict[str, Any] | None:
    """The plugin's manifest (empty when it has none), or None when the plugin cannot be
    loaded (no directory, a manifest that cannot be read): ``plugin`` says why."""
    root = plugin.root
    if not root.is_dir():
        plugin.say(f"its directory {root} does not exist; not loaded.")
        return None
    path = root / MANIFEST
    if not path.is_file():
        return {}
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        plugin.say(f"{MANIFEST} cannot be read ({exc}); not loaded.")
        return None
    if not isinstance(loaded, dict):
        plugin.say(f"{MANIFEST} is not a JSON object; not loaded.")
        return None
    return loaded


def _read_components(plugin: Plugin, manifest: dict[str, Any]) -> None:
    root = plugin.root
    plugin.commands = _paths(plugin, manifest, "commands", ["commands"], replace=True)
    plugin.agents = _paths(plugin, manifest, "agents", ["agents"], replace=True)
    plugin.styles = _paths(plugin, manifest, "outputStyles", ["output-styles"], replace=True)
    skills = _paths(plugin, manifest, "skills", ["skills"], replace=False)
    if not skills and "skills" not in manifest and (root / "SKILL.md").is_file():
        skills = [root]  # a SKILL.md at the root alone: a one-skill plugin
    plugin.skills = skills
    _read_hooks(plugin, manifest.get("hooks"))
    _read_servers(plugin, manifest.get("mcpServers"))
    unsupported = [
        label
        for key, label in _UNSUPPORTED_FIELDS.items()
        if manifest.get(key) or (key in ("monitors", "themes") and _experimental(manifest, key))
    ]
    unsupported += [
        label for place, label in _UNSUPPORTED_PLACES.items() if (root / place).exists()
    ]
    plugin.unsupported = list(dict.fromkeys(unsupported))


def _experimental(manifest: dict[str, Any], key: str) -> bool:
    experimental = manifest.get("experimental")
    return isinstance(experimental, dict) and bool(experimental.get(key))


def _resolve(plugin: Plugin, key: str, text: Any) -> Path | None:
    """A manifest path: relative to the root, starting with ``./`` (or ``.``), inside it."""
    if not isinstance(text, str) or not text.strip():
        plugin.say(f"{key}: expected a path such as ./{key}/; ignored.")
        return None
    if not (text.startswith("./") or text == "."):
        plugin.say(f"{key}: {text!r} must be relative to the plugin and start with ./; ignored.")
        return None
    path = (plugin.root / text).resolve()
    if path != plugin.root.resolve() and plugin.root.resolve() not in path.parents:
        plugin.say(f"{key}: {text!r} leaves the plugin's directory; ignored.")
        return None
    if not path.exists():
        plugin.say(f"{key}: {text} does not exist; ignored.")
        return None
    return path


def _listed(plugin: Plugin, key: str, value: Any) -> list[Any]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return value
    plugin.say(f"{key}: expected a path or a list of paths; ignored.")
    return []


def _paths(
    plugin: Plugin, manifest: dict[str, Any], key: str, default: list[str], *, replace: bool
) -> list[Path]:
    defaults = [plugin.root / d for d in default if (plugin.root / d).exists()]
    if key not in manifest or manifest[key] is None:
        return defaults
    found = []
    for text in _listed(plugin, key, manifest[key]):
        path = _resolve(plugin, key, text)
        if path is not None:
            found.append(path)
    if replace:
        return list(dict.fromkeys(found))
    return list(dict.fromkeys([*defaults, *found]))


def _json_file(plugin: Plugin, key: str, path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        plugin.say(f"{key}: {path.relative_to(plugin.root)} cannot be read ({exc}); ignored.")
        return None


def _config_sources(plugin: Plugin, key: str, default: str, value: Any) -> list[tuple[str, Any]]:
    """The default file (if there) and the manifest's paths or inline object, each with a
    label; a path to the default file is not read twice."""
    sources: list[tuple[str, Any]] = []
    default_path = plugin.root / default
    if default_path.is_file():
        sources.append((default, _json_file(plugin, key, default_path)))
    if value is None:
        return sources
    if isinstance(value, dict):
        sources.append((f"plugin.json {key}", value))
        return sources
    for text in _listed(plugin, key, value):
        path = _resolve(plugin, key, text)
        if path is None or path == default_path.resolve():
            continue
        if isinstance(text, dict):
            sources.append((f"plugin.json {key}", text))
        else:
            sources.append((str(text).removeprefix("./"), _json_file(plugin, key, path)))
    return sources


def _read_hooks(plugin: Plugin, value: Any) -> None:
    for label, data in _config_sources(plugin, "hooks", "hooks/hooks.json", value):
        if data is None:
            continue
        hooks = data.get("hooks") if isinstance(data, dict) and "hooks" in data else data
        if not isinstance(hooks, dict):
            plugin.say(f"hooks: {label}: expected an object of events; ignored.")
            continue
        plugin.hooks.append((label, hooks))


def _read_servers(plugin: Plugin, value: Any) -> None:
    for label, data in _config_sources(plugin, "mcpServers", ".mcp.json", value):
        if data is None:
            continue
        servers = (
            data.get("mcpServers") if isinstance(data, dict) and "mcpServers" in data else data
        )
        if not isinstance(servers, dict):
            plugin.say(f"mcpServers: {label}: expected an object of servers; ignored.")
            continue
        for name, server in servers.items():
            plugin.mcp_servers[str(name)] = (label, server)
