"""Which plugins a session loads: those installed and switched on, and ``--plugin-dir``.

Installed plugins are read where Claude Code put them and where eddy puts them, in the same
layout (Claude Code's plugins reference and marketplace docs)::

    <plugins home>/installed_plugins.json   {"version": 2, "plugins": {"name@mkt": [
                                              {"scope": "user", "installPath": ..., "version": ...,
                                               "projectPath": ... (project and local scopes)}]}}
    <plugins home>/known_marketplaces.json  {"mkt": {"source": {...}, "installLocation": ...}}
    <plugins home>/cache/<mkt>/<plugin>/<version>/   the installed copies
    <plugins home>/marketplaces/<mkt>/               cloned marketplaces

Claude Code's home is ``~/.claude/plugins`` (``$CLAUDE_CONFIG_DIR/plugins``), only read;
eddy's is ``plugins/`` in its data directory, where ``/plugin install`` writes. An
installation of scope ``user`` applies in every project, one of scope ``project`` or
``local`` only in its ``projectPath``.

Switched on: ``enabledPlugins`` (``{"name@mkt": true}``) of every settings file, the highest
file that names a plugin deciding; an installed plugin no file names is on (its
``defaultEnabled``, true unless its manifest says false). A plugin enabled but not installed
is one line ("not installed: /plugin install ..."). ``--plugin-dir DIR`` loads a plugin for
the session as ``name@inline``; it wins over an installed plugin of the same name. Plugins
in a skills folder (``~/.claude/skills/<name>/.claude-plugin/plugin.json``, the project's
``.claude/skills/...``) load as ``name@skills-dir`` (Claude Code's "skills-directory
plugins").

A plugin switched on by a project's settings file (``.claude/settings.json``, the local
files, eddy's ``.eddy/`` files), or found in the project's skills folder, is the project's
choice (``borne="project"``): its hooks and MCP servers are the project's grants
(agent/plugins/grants.py). The user's own files, an installation with no file naming it, and
``--plugin-dir`` make it the user's.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.plugins.plugin import MANIFEST, Borne, Plugin, read_plugin

INSTALLED = "installed_plugins.json"
KNOWN = "known_marketplaces.json"
INLINE = "inline"
SKILLS_DIR = "skills-dir"
_PROJECT_SCOPES = ("project", "local")


def claude_plugins_home() -> Path:
    """Claude Code's plugins folder: ``$CLAUDE_CONFIG_DIR/plugins`` or ``~/.claude/plugins``."""
    base = os.environ.get("CLAUDE_CONFIG_DIR")
    return (Path(base) if base else Path.home() / ".claude") / "plugins"


def eddy_plugins_home() -> Path:
    """eddy's plugins folder (same layout), in its data directory."""
    from agent.paths import data_dir

    return data_dir() / "plugins"


def plugin_data_dir(plugin_id: str) -> Path:
    """A plugin's persistent data directory (``${CLAUDE_PLUGIN_DATA}``): eddy's
    ``plugins/data/<id>`` (characters other than letters, digits, ``_`` and ``-`` as ``-``)."""
    return eddy_plugins_home() / "data" / re.sub(r"[^A-Za-z0-9_-]", "-", plugin_id)


def read_json(path: Path) -> Any:
    """A JSON file's value; None when it is missing or unreadable."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None


@dataclass(frozen=True)
class Installation:
    """One installation of a plugin (a record of ``installed_plugins.json``).

    Attributes:
        plugin_id: ``name@marketplace``.
        scope: user, project, local or managed.
        path: the installed copy.
        version: its version ("unknown" when none could be told).
        project: the project it was installed for (project and local scopes).
        home: the plugins folder whose registry holds it (Claude Code's or eddy's).
    """

    plugin_id: str
    scope: str
    path: Path
    version: str = ""
    project: Path | None = None
    home: Path | None = None

    def applies_to(self, workspace: Path) -> bool:
        """Whether it is installed for ``workspace``."""
        if self.scope not in _PROJECT_SCOPES:
            return True
        return self.project is not None and self.project == Path(workspace).resolve()


def installations(home: Path) -> list[Installation]:
    """The installations recorded in ``home``'s ``installed_plugins.json`` (v1 or v2)."""
    data = read_json(home / INSTALLED)
    plugins = data.get("plugins") if isinstance(data, dict) else None
    if not isinstance(plugins, dict):
        return []
    out = []
    for plugin_id, records in plugins.items():
        for record in records if isinstance(records, list) else [records]:
            if not isinstance(record, dict) or not isinstance(record.get("installPath"), str):
                continue
            project = record.get("projectPath")
            out.append(
                Installation(
                    str(plugin_id),
                    str(record.get("scope", "user")),
                    Path(record["installPath"]),
                    str(record.get("version", "")),
                    Path(project).resolve() if isinstance(project, str) else None,
                    home,
                )
            )
    return out


def all_installations() -> list[Installation]:
    """Claude Code's installations, then eddy's (a later one of the same id and scope wins)."""
    return [*installations(claude_plugins_home()), *installations(eddy_plugins_home())]


@dataclass(frozen=True)
class Switch:
    """Where ``enabledPlugins`` decided a plugin: on or off, the file, its scope."""

    on: bool
    label: str
    scope: str


def switches(
    settings_raw: Sequence[tuple[Any, dict[str, Any]]], problems: list[str]
) -> dict[str, Switch]:
    """``enabledPlugins`` of every settings file, the highest file deciding each plugin."""
    out: dict[str, Switch] = {}
    for source, data in settings_raw:
        value = data.get("enabledPlugins")
        if value is None:
            continue
        label = str(getattr(source, "label", source))
        if not isinstance(value, dict):
            problems.append(f'{label}: enabledPlugins: expected {{"name@marketplace": true}}.')
            continue
        for plugin_id, on in value.items():
            if not isinstance(on, bool):
                problems.append(f"{label}: enabledPlugins.{plugin_id}: expected true or false.")
                continue
            out[str(plugin_id)] = Switch(on, label, str(getattr(source, "scope", "user")))
    return out


@dataclass
class PluginSet:
    """The plugins a session loads, and what the user should read about them once.

    Attributes:
        plugins: by name, in load order.
        problems: one line each (a plugin's own problems included).
        unsupported: one line per plugin with components eddy does not support.
    """

    plugins: dict[str, Plugin] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.plugins.values())

    def __len__(self) -> int:
        return len(self.plugins)

    def __bool__(self) -> bool:
        return bool(self.plugins)

    @property
    def unsupported(self) -> list[str]:
        """One line per plugin with components eddy does not support."""
        return [
            f"plugin {p.plugin_id}: not supported by eddy, left out: {', '.join(p.unsupported)}."
            for p in self
            if p.unsupported
        ]

    def add(self, plugin: Plugin) -> None:
        """Load ``plugin`` (its problems join the set's; a failed one is left out)."""
        self.problems += plugin.problems
        if plugin.failed:
            return
        other = self.plugins.get(plugin.name)
        if other is not None:
            self.problems.append(
                f"plugin {plugin.plugin_id}: its name is also {other.plugin_id}'s; "
                f"{plugin.plugin_id} is used."
            )
        self.plugins[plugin.name] = plugin

    def messages(self) -> list[str]:
        """The problems and the unsupported components, for the start-up messages."""
        return [*self.problems, *self.unsupported]


def load_plugins(
    workspace: Path,
    settings_raw: Sequence[tuple[Any, dict[str, Any]]],
    plugin_dirs: Sequence[Path] = (),
) -> PluginSet:
    """The plugins of a session in ``workspace`` (see the module docstring); never raises.

    Args:
        workspace: the project.
        settings_raw: ``Settings.raw`` (each settings file's source and object).
        plugin_dirs: ``--plugin-dir`` directories.
    """
    workspace = Path(workspace).resolve()
    out = PluginSet()
    switched = switches(settings_raw, out.problems)
    inline = _inline_plugins(plugin_dirs)
    inline_names = {p.name for p in inline}
    installed: dict[str, Installation] = {}
    for each in all_installations():
        if each.applies_to(workspace):
            installed[each.plugin_id] = each
    for plugin_id in dict.fromkeys([*installed, *switched]):
        if plugin_id in installed and plugin_id.split("@", 1)[0] in inline_names:
            continue  # --plugin-dir wins over an installed plugin of the same name
        plugin = _installed_plugin(
            plugin_id, switched.get(plugin_id), installed.get(plugin_id), out.problems
        )
        if plugin is not None:
            out.add(plugin)
    for plugin in _skills_dir_plugins(workspace, switched):
        if plugin.name not in inline_names:
            out.add(plugin)
    for plugin in inline:
        out.add(plugin)
    return out


def _inline_plugins(plugin_dirs: Sequence[Path]) -> list[Plugin]:
    """The plugins of the ``--plugin-dir`` directories."""
    inline = []
    for folder in plugin_dirs:
        root = Path(folder).expanduser().resolve()
        name = _manifest_name(root) or root.name
        inline.append(
            read_plugin(
                root,
                f"{name}@{INLINE}",
                borne="user",
                enabled_by="--plugin-dir",
                data_dir=plugin_data_dir(f"{name}@{INLINE}"),
            )
        )
    return inline


def _installed_plugin(
    plugin_id: str,
    switch: Switch | None,
    record: Installation | None,
    problems: list[str],
) -> Plugin | None:
    """The installed plugin ``plugin_id`` if it is switched on (or on by default), else None;
    a plugin switched on but not installed is said in ``problems``."""
    if record is None:
        if switch is not None and switch.on and not plugin_id.endswith(f"@{SKILLS_DIR}"):
            problems.append(
                f"plugin {plugin_id}: switched on in {switch.label} but not installed; "
                f"/plugin install {plugin_id} installs it."
            )
        return None
    if switch is not None and not switch.on:
        return None
    if switch is None and _manifest_default_off(record.path):
        return None
    borne: Borne = "project" if switch is not None and switch.scope in _PROJECT_SCOPES else "user"
    return read_plugin(
        record.path,
        plugin_id,
        name=plugin_id.split("@", 1)[0],
        borne=borne,
        enabled_by=switch.label if switch is not None else "installed",
        data_dir=plugin_data_dir(plugin_id),
    )


def _manifest_name(root: Path) -> str | None:
    data = read_json(root / MANIFEST)
    name = data.get("name") if isinstance(data, dict) else None
    return name if isinstance(name, str) and name.strip() else None


def _manifest_default_off(root: Path) -> bool:
    data = read_json(root / MANIFEST)
    return isinstance(data, dict) and data.get("defaultEnabled") is False


def _skills_dir_plugins(workspace: Path, switched: dict[str, Switch]) -> list[Plugin]:
    from agent.memory.files import claude_user_dir

    out = []
    places: list[tuple[Path, Borne]] = [
        (claude_user_dir() / "skills", "user"),
        (workspace / ".claude" / "skills", "project"),
    ]
    for folder, borne in places:
        try:
            roots = sorted(p.parent.parent for p in folder.glob(f"*/{MANIFEST.as_posix()}"))
        except OSError:
            continue
        for root in roots:
            name = _manifest_name(root) or root.name
            plugin_id = f"{name}@{SKILLS_DIR}"
            switch = switched.get(plugin_id)
            if switch is not None and not switch.on:
                continue
            where = "~/.claude/skills" if borne == "user" else ".claude/skills"
            out.append(
                read_plugin(
                    root,
                    plugin_id,
                    name=name,
                    borne=borne,
                    enabled_by=where,
                    data_dir=plugin_data_dir(plugin_id),
                )
            )
    return out
