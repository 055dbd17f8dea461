"""Installing and switching plugins, and adding marketplaces: what ``/plugin`` and
``eddy plugin`` do, as ``claude plugin`` does, in eddy's own files.

eddy writes only its own: installed copies in ``plugins/cache/<marketplace>/<plugin>/<version>``
of its data directory, the records in its ``installed_plugins.json`` and
``known_marketplaces.json`` there (Claude Code's layout), and ``enabledPlugins`` /
``extraKnownMarketplaces`` in its settings files (user: ``~/.config/eddy/settings.json``,
project: ``.eddy/settings.json``, local: ``.eddy/settings.local.json``). Claude Code's files
are read (agent/plugins/registry.py), never written: a plugin Claude Code installed is
switched off for eddy with ``disable`` (eddy's settings), and uninstalled with Claude Code.

An install copies the plugin (a copy, so a later change of the marketplace does not change
what runs; symbolic links leading out of the plugin are left out), and switches it on at the
install's scope unless its ``defaultEnabled`` is false. Changes take effect in the next
session (``/clear`` starts one).
"""

from __future__ import annotations

import datetime
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from agent.plugins.marketplace import (
    Marketplace,
    PluginError,
    entries,
    fetch,
    known,
    parse_source,
    plugin_dir,
    read_catalog,
    scratch,
)
from agent.plugins.plugin import Plugin, read_plugin
from agent.plugins.registry import (
    INSTALLED,
    KNOWN,
    all_installations,
    claude_plugins_home,
    eddy_plugins_home,
    plugin_data_dir,
    read_json,
    switches,
)

SCOPES = ("user", "project", "local")
NEXT_SESSION = "It takes effect in the next session (/clear starts one)."


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds")


def _settings(workspace: Path) -> list[tuple[Any, dict[str, Any]]]:
    from agent.settings.files import load_settings

    return load_settings(workspace)[0].raw


def _check_scope(scope: str) -> None:
    if scope not in SCOPES:
        raise PluginError(f"scope must be one of {', '.join(SCOPES)}, not {scope!r}.")


def _edit(scope: str, workspace: Path, change: Callable[[dict[str, Any]], None]) -> None:
    from agent.settings.edit import edit_settings
    from agent.settings.files import SettingsError

    try:
        edit_settings(scope, workspace, change)
    except (SettingsError, OSError) as exc:
        raise PluginError(str(exc)) from exc


def _write_registry(name: str, data: dict[str, Any]) -> None:
    from agent.settings.edit import write_json_file

    try:
        write_json_file(eddy_plugins_home() / name, data)
    except OSError as exc:
        raise PluginError(f"cannot write {eddy_plugins_home() / name}: {exc}") from exc


def _eddy_installed() -> dict[str, Any]:
    data = read_json(eddy_plugins_home() / INSTALLED)
    if not isinstance(data, dict) or not isinstance(data.get("plugins"), dict):
        return {"version": 2, "plugins": {}}
    return data


def _switch(plugin_id: str, on: bool | None) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        enabled = data.get("enabledPlugins")
        if not isinstance(enabled, dict):
            enabled = data["enabledPlugins"] = {}
        if on is None:
            enabled.pop(plugin_id, None)
            if not enabled:
                del data["enabledPlugins"]
        else:
            enabled[plugin_id] = on

    return change


def _find(spec: str, markets: dict[str, Marketplace]) -> tuple[str, Marketplace, Path]:
    """The plugin name, its marketplace and the marketplace's folder (fetched)."""
    name, _, market = spec.partition("@")
    if market:
        found = markets.get(market)
        if found is None:
            names = ", ".join(markets) or "none"
            raise PluginError(
                f'no marketplace "{market}" (known: {names}); /plugin marketplace add adds one.'
            )
        return name, found, fetch(found.name, found.source)
    holders = []
    for each in markets.values():
        try:
            folder = fetch(each.name, each.source)
        except PluginError:
            continue  # one unreachable marketplace does not hide the others' plugins
        if name in entries(folder):
            holders.append((each, folder))
    if not holders:
        raise PluginError(f'no known marketplace lists "{name}" (/plugin lists what they have).')
    if len(holders) > 1:
        options = " or ".join(f"{name}@{m.name}" for m, _ in holders)
        raise PluginError(f'"{name}" is in several marketplaces: install {options}.')
    return name, holders[0][0], holders[0][1]


def _outside_links(src: Path) -> Callable[[str, list[str]], list[str]]:
    root = src.resolve()

    def ignore(folder: str, names: list[str]) -> list[str]:
        skipped = []
        for item in names:
            path = Path(folder) / item
            if (
                item == ".git"
                or path.is_symlink()
                and root not in (path.resolve(), *path.resolve().parents)
            ):
                skipped.append(item)
        return skipped

    return ignore


def install(workspace: Path, spec: str, scope: str = "user") -> str:
    """Install plugin ``spec`` (``name`` or ``name@marketplace``) at ``scope``; what to say.

    Raises:
        PluginError: why it cannot be installed.
    """
    _check_scope(scope)
    workspace = Path(workspace).resolve()
    settings_raw = _settings(workspace)
    name, market, folder = _find(spec.strip(), known(settings_raw))
    entry = entries(folder).get(name)
    if entry is None:
        raise PluginError(f'Plugin "{name}" not found in marketplace "{market.name}".')
    plugin_id = f"{name}@{market.name}"
    _remember_marketplace(market, folder)
    with scratch() as work:
        src, sha = plugin_dir(folder, entry, Path(work))
        probe = read_plugin(src, plugin_id, name=name, entry=entry)
        if probe.failed:
            raise PluginError(" ".join(probe.problems))
        version = probe.version or str(entry.get("version") or "") or sha[:12] or "unknown"
        dest = eddy_plugins_home() / "cache" / market.name / name / version
        if dest.exists():
            shutil.rmtree(dest)
        shutil.copytree(src, dest, symlinks=True, ignore=_outside_links(src))
    data = _eddy_installed()
    record: dict[str, Any] = {
        "scope": scope,
        "installPath": str(dest),
        "version": version,
        "installedAt": _now(),
        "lastUpdated": _now(),
    }
    if sha:
        record["gitCommitSha"] = sha
    if scope != "user":
        record["projectPath"] = str(workspace)
    records = [r for r in data["plugins"].get(plugin_id, []) if not _same_place(r, record)]
    data["plugins"][plugin_id] = [*records, record]
    _write_registry(INSTALLED, data)
    default_off = entry.get("defaultEnabled") is False or _manifest_off(dest)
    if not default_off:
        _edit(scope, workspace, _switch(plugin_id, True))
    state = "installed switched off (its defaultEnabled is false)" if default_off else "on"
    return f"Installed {plugin_id} {version} (scope {scope}), {state}. {NEXT_SESSION}"


def _manifest_off(root: Path) -> bool:
    data = read_json(root / ".claude-plugin" / "plugin.json")
    return isinstance(data, dict) and data.get("defaultEnabled") is False


def _same_place(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a.get("scope") == b.get("scope") and a.get("projectPath") == b.get("projectPath")


def _remember_marketplace(market: Marketplace, folder: Path) -> None:
    data = read_json(eddy_plugins_home() / KNOWN)
    data = data if isinstance(data, dict) else {}
    data[market.name] = {
        "source": market.source,
        "installLocation": str(folder),
        "lastUpdated": _now(),
    }
    _write_registry(KNOWN, data)


def _resolve_id(spec: str, ids: Sequence[str]) -> str:
    if "@" in spec:
        return spec
    matches = [i for i in ids if i.split("@", 1)[0] == spec]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise PluginError(f'"{spec}" is ambiguous: {", ".join(matches)}.')
    raise PluginError(f'no installed plugin "{spec}" (/plugin lists them).')


def uninstall(workspace: Path, spec: str, scope: str | None = None) -> str:
    """Uninstall eddy's installation of ``spec`` (at ``scope``, default: its only one).

    Raises:
        PluginError: why not (not installed, installed by Claude Code, ambiguous).
    """
    workspace = Path(workspace).resolve()
    data = _eddy_installed()
    everything = [r.plugin_id for r in all_installations()]
    plugin_id = _resolve_id(spec.strip(), list(dict.fromkeys(everything)))
    records = data["plugins"].get(plugin_id, [])
    if not records:
        if plugin_id in everything:
            raise PluginError(
                f"{plugin_id} was installed by Claude Code: uninstall it there "
                f"(claude plugin uninstall {plugin_id}); /plugin disable {plugin_id} switches "
                "it off for eddy."
            )
        raise PluginError(f'no installed plugin "{plugin_id}".')
    mine = [r for r in records if scope is None or r.get("scope") == scope]
    if scope is None and len(mine) > 1:
        scopes = ", ".join(str(r.get("scope")) for r in mine)
        raise PluginError(f"{plugin_id} is installed at several scopes ({scopes}): name one.")
    if not mine:
        raise PluginError(f"{plugin_id} is not installed at scope {scope}.")
    record = mine[0]
    rest = [r for r in records if r is not record]
    if rest:
        data["plugins"][plugin_id] = rest
    else:
        del data["plugins"][plugin_id]
    _write_registry(INSTALLED, data)
    path = Path(str(record.get("installPath", "")))
    still_used = any(r.get("installPath") == str(path) for r in rest)
    if not still_used and eddy_plugins_home() in path.parents and path.exists():
        shutil.rmtree(path, ignore_errors=True)
    if not rest:
        shutil.rmtree(plugin_data_dir(plugin_id), ignore_errors=True)
    where = str(record.get("scope", "user"))
    if where in SCOPES:
        _edit(where, workspace, _switch(plugin_id, None))
    return f"Uninstalled {plugin_id} (scope {where}). {NEXT_SESSION}"


def set_enabled(workspace: Path, spec: str, on: bool, scope: str | None = None) -> str:
    """Switch ``spec`` on or off in eddy's settings at ``scope`` (default: where it is
    installed, else user); says when a higher settings file decides otherwise.

    Raises:
        PluginError: not installed, ambiguous, a bad scope, a settings file that is not JSON.
    """
    workspace = Path(workspace).resolve()
    records = [r for r in all_installations() if r.applies_to(workspace)]
    settings_raw = _settings(workspace)
    ids = [r.plugin_id for r in records] + list(switches(settings_raw, []))
    plugin_id = _resolve_id(spec.strip(), list(dict.fromkeys(ids)))
    if scope is None:
        installed = [r.scope for r in records if r.plugin_id == plugin_id]
        scope = installed[0] if installed and installed[0] in SCOPES else "user"
    _check_scope(scope)
    _edit(scope, workspace, _switch(plugin_id, on))
    decided = switches(_settings(workspace), []).get(plugin_id)
    word = "on" if on else "off"
    said = f"Switched {plugin_id} {word} (scope {scope}). {NEXT_SESSION}"
    if decided is not None and decided.on != on:
        said += (
            f" But {decided.label} switches it {'on' if decided.on else 'off'} and wins; "
            f"/plugin {'enable' if on else 'disable'} {plugin_id} local overrides it here."
        )
    return said


def add_marketplace(workspace: Path, text: str, scope: str = "user") -> str:
    """Add the marketplace ``text`` names (a directory, a git URL, owner/repo) at ``scope``.

    Raises:
        PluginError: why it cannot be added.
    """
    _check_scope(scope)
    workspace = Path(workspace).resolve()
    source = parse_source(text, workspace)
    if source["source"] in ("directory", "file"):
        folder = fetch("", source)
        name = str(read_catalog(folder)["name"])
    else:
        with scratch() as work:
            staged = fetch_into(source, Path(work) / "m")
            name = str(read_catalog(staged)["name"])
            folder = eddy_plugins_home() / "marketplaces" / name
            if folder.exists():
                shutil.rmtree(folder)
            shutil.move(str(staged), folder)
    market = Marketplace(name, source, scope, folder)
    _remember_marketplace(market, folder)

    def declare(data: dict[str, Any]) -> None:
        extra = data.get("extraKnownMarketplaces")
        if not isinstance(extra, dict):
            extra = data["extraKnownMarketplaces"] = {}
        extra[name] = {"source": source}

    _edit(scope, workspace, declare)
    count = len(entries(folder))
    return (
        f"Added marketplace {name} ({count} plugin{'s' if count != 1 else ''}); "
        f"/plugin install NAME@{name} installs one."
    )


def fetch_into(source: dict[str, Any], into: Path) -> Path:
    """Clone a git marketplace ``source`` into ``into``.

    Raises:
        PluginError: git failed or the repository holds no catalog.
    """
    from agent.plugins.marketplace import CATALOG, clone, git_url

    clone(git_url(source), into, ref=str(source.get("ref", "")))
    if not (into / CATALOG).is_file():
        raise PluginError(f"the repository holds no {CATALOG.as_posix()}.")
    return into


def remove_marketplace(workspace: Path, name: str) -> str:
    """Forget marketplace ``name`` (eddy's declarations and clone) and uninstall eddy's
    installations from it.

    Raises:
        PluginError: eddy does not know it, or only Claude Code's files declare it.
    """
    workspace = Path(workspace).resolve()
    data = read_json(eddy_plugins_home() / KNOWN)
    data = data if isinstance(data, dict) else {}
    declared = _forget_declarations(workspace, name)
    if name not in data and not declared:
        if name in known(_settings(workspace)):
            raise PluginError(f"{name} is declared in Claude Code's files; remove it there.")
        raise PluginError(f'no marketplace "{name}".')
    data.pop(name, None)
    _write_registry(KNOWN, data)
    clone_dir = eddy_plugins_home() / "marketplaces" / name
    if clone_dir.exists():
        shutil.rmtree(clone_dir, ignore_errors=True)
    removed = _uninstall_from(workspace, name)
    also = f"; uninstalled {', '.join(removed)}" if removed else ""
    return f"Removed marketplace {name}{also}. {NEXT_SESSION}"


def _forget_declarations(workspace: Path, name: str) -> bool:
    """Take marketplace ``name`` out of eddy's settings files' ``extraKnownMarketplaces``;
    whether any declared it."""
    declared = False

    def forget(settings: dict[str, Any]) -> None:
        nonlocal declared
        extra = settings.get("extraKnownMarketplaces")
        if isinstance(extra, dict) and name in extra:
            declared = True
            del extra[name]
            if not extra:
                del settings["extraKnownMarketplaces"]

    from agent.settings.edit import scope_path

    for scope in SCOPES:
        if scope_path(scope, workspace).exists():
            _edit(scope, workspace, forget)
    return declared


def _uninstall_from(workspace: Path, name: str) -> list[str]:
    """Uninstall eddy's installations of the plugins of marketplace ``name``; their ids."""
    removed = []
    for plugin_id, records in list(_eddy_installed()["plugins"].items()):
        if plugin_id.endswith(f"@{name}"):
            for record in list(records):
                uninstall(workspace, plugin_id, str(record.get("scope")))
            removed.append(plugin_id)
    return removed


def update_marketplaces(workspace: Path, name: str | None = None) -> list[str]:
    """Refresh the known marketplaces (or ``name``) from their sources; a line each."""
    markets = known(_settings(Path(workspace).resolve()))
    if name is not None and name not in markets:
        return [f'no marketplace "{name}".']
    out = []
    for market in markets.values():
        if name is not None and market.name != name:
            continue
        try:
            folder = fetch(market.name, market.source)
            _remember_marketplace(market, folder)
            count = len(entries(folder))
            out.append(f"{market.name}: up to date ({count} plugins).")
        except PluginError as exc:
            out.append(f"{market.name}: {exc}")
    return out or ["No marketplaces are known: /plugin marketplace add SOURCE adds one."]


def listing(workspace: Path, loaded: Sequence[Plugin] | None = None) -> list[str]:
    """The installed plugins (state, scope, version, where), this session's, and each known
    marketplace with what it offers (only those on this machine are read: nothing is
    fetched)."""
    workspace = Path(workspace).resolve()
    settings_raw = _settings(workspace)
    switched = switches(settings_raw, [])
    lines = ["Installed plugins:"]
    records = [r for r in all_installations() if r.applies_to(workspace)]
    if not records:
        lines.append("  none (/plugin install NAME@MARKETPLACE)")
    for record in records:
        switch = switched.get(record.plugin_id)
        on = switch.on if switch is not None else not _manifest_off(record.path)
        by = f", by {switch.label}" if switch is not None else ""
        who = "Claude Code" if record.home == claude_plugins_home() else "eddy"
        lines.append(
            f"  {record.plugin_id} {record.version or '?'}  {'on' if on else 'off'}{by}  "
            f"scope {record.scope}, installed by {who}"
        )
    if loaded is not None:
        names = [f"{p.plugin_id} ({p.enabled_by})" for p in loaded]
        lines.append(f"Loaded in this session: {', '.join(names) if names else 'none'}")
    markets = known(settings_raw)
    lines.append("Marketplaces:")
    if not markets:
        lines.append("  none (/plugin marketplace add DIRECTORY|GIT-URL|owner/repo)")
    installed_ids = {r.plugin_id for r in records}
    for market in markets.values():
        lines.append(f"  {market.name}  {market.describe()}  (from {market.declared_in})")
        folder = market.location
        if folder is None and market.source.get("source") == "directory":
            folder = Path(str(market.source.get("path", "")))
        try:
            offered = entries(folder) if folder is not None else None
        except PluginError as exc:
            lines.append(f"    {exc}")
            continue
        if offered is None:
            lines.append(f"    not fetched yet: /plugin marketplace update {market.name}")
            continue
        for plugin_name, entry in offered.items():
            mark = "  [installed]" if f"{plugin_name}@{market.name}" in installed_ids else ""
            about = entry.get("description")
            about = about if isinstance(about, str) else ""
            lines.append(f"    {plugin_name}@{market.name}  {about}{mark}")
    return lines
