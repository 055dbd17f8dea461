"""Plugin marketplaces, as Claude Code has them: a catalog
(``.claude-plugin/marketplace.json``: ``name``, ``owner``, ``plugins``) in a local directory
or a git repository, and where each listed plugin comes from.

Marketplace sources (``extraKnownMarketplaces`` entries, ``/plugin marketplace add``):
``{"source": "directory", "path"}``, ``{"source": "git", "url"}`` (any git URL,
``file://`` included), ``{"source": "github", "repo": "owner/name"}`` (cloned from GitHub
over https), ``{"source": "file", "path"}`` (a ``marketplace.json`` itself). A git
marketplace is cloned into eddy's ``plugins/marketplaces/<name>`` and pulled on update.
``url`` (a hosted ``marketplace.json``) and ``settings`` (an inline catalog) are named as not
supported.

Plugin sources (an entry's ``source``): a relative path (``./plugins/x``, or a bare name under
``metadata.pluginRoot``), ``github``, ``url`` (git) and ``git-subdir`` (each with an optional
``ref``; ``sha`` is checked out). ``npm``, ``archive`` and ``command`` sources are named as
not supported.

Known marketplaces: Claude Code's ``known_marketplaces.json`` (read only), eddy's, and the
``extraKnownMarketplaces`` of every settings file (the highest file deciding a name).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.plugins.registry import KNOWN, claude_plugins_home, eddy_plugins_home, read_json

CATALOG = Path(".claude-plugin") / "marketplace.json"
GIT_TIMEOUT = 300.0
"""Seconds a clone or pull may take before it is stopped (and said)."""


class PluginError(Exception):
    """A plugin, a marketplace or a plugin source cannot be used; the message says why."""


@dataclass(frozen=True)
class Marketplace:
    """One known marketplace.

    Attributes:
        name: its name (``plugin@<name>``).
        source: its source object (``{"source": "git", "url": ...}``).
        declared_in: where it is known from (a settings file's label, or a registry).
        location: where its catalog's directory is on this machine (None: not fetched yet).
    """

    name: str
    source: dict[str, Any]
    declared_in: str
    location: Path | None = None

    def describe(self) -> str:
        """The source in a few words (``git file:///...``, ``directory /path``)."""
        kind = self.source.get("source")
        where = self.source.get("url") or self.source.get("path") or self.source.get("repo")
        return f"{kind} {where}"


def parse_source(text: str, base: Path) -> dict[str, Any]:
    """A marketplace source from what a user types (``/plugin marketplace add ...``): a local
    path (relative to ``base``), a git URL (``https://...``, ``file://...``, ``git@...``,
    ``#ref`` for a branch or tag) or GitHub's ``owner/repo`` (``@ref``).

    Raises:
        PluginError: it is none of these.
    """
    text = text.strip()
    if not text:
        raise PluginError("name a marketplace: a directory, a git URL or owner/repo.")
    if text.startswith(("http://", "https://", "file://", "git@", "ssh://")):
        url, _, ref = text.partition("#")
        if url.endswith(".json") and url.startswith("http"):
            raise PluginError(
                "a hosted marketplace.json (a url source) is not supported by eddy; "
                "add the git repository that holds it."
            )
        return {"source": "git", "url": url, **({"ref": ref} if ref else {})}
    path = Path(text).expanduser()
    if text.startswith((".", "/", "~")) or (base / path).exists():
        path = (base / path).resolve()
        if path.is_file() and path.name.endswith(".json"):
            return {"source": "file", "path": str(path)}
        return {"source": "directory", "path": str(path)}
    repo, _, ref = text.partition("@")
    if repo.count("/") == 1 and all(repo.split("/")):
        return {"source": "github", "repo": repo, **({"ref": ref} if ref else {})}
    raise PluginError(
        f"{text!r} is not a directory, a git URL or owner/repo (write ./{text} for a folder)."
    )


def _git(args: Sequence[str], cwd: Path | None = None) -> str:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0"}
    try:
        done = subprocess.run(
            ["git", *args],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
    except FileNotFoundError as exc:
        raise PluginError("git is not installed; it is needed for git sources.") from exc
    except subprocess.TimeoutExpired as exc:
        raise PluginError(f"git {args[0]} took over {GIT_TIMEOUT:g} s; stopped.") from exc
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["failed"])[-1]
        raise PluginError(f"git {args[0]} failed: {last}")
    return done.stdout


def clone(url: str, into: Path, *, ref: str = "", sha: str = "") -> str:
    """Clone ``url`` into ``into`` (replaced if there); the commit checked out.

    Raises:
        PluginError: git failed (the message has git's last line).
    """
    if into.exists():
        shutil.rmtree(into)
    into.parent.mkdir(parents=True, exist_ok=True)
    _git(["clone", "--quiet", *(["--branch", ref] if ref else []), url, str(into)])
    if sha:
        _git(["checkout", "--quiet", sha], cwd=into)
    return _git(["rev-parse", "HEAD"], cwd=into).strip()


def git_url(source: dict[str, Any]) -> str:
    """The clone URL of a git-based source (``git``/``url``/``git-subdir``/``github``)."""
    if source.get("source") == "github" or (
        source.get("source") == "git-subdir" and str(source.get("url", "")).count("/") == 1
        and "://" not in str(source.get("url", ""))
    ):  # fmt: skip
        repo = source.get("repo") or source.get("url")
        return f"https://github.com/{repo}.git"
    url = source.get("url")
    if not isinstance(url, str) or not url:
        raise PluginError(f"the {source.get('source')} source has no url.")
    return url


def fetch(name: str, source: dict[str, Any]) -> Path:
    """The directory holding marketplace ``name``'s catalog, fetching a git one into eddy's
    ``plugins/marketplaces/<name>`` (cloned the first time, pulled after).

    Raises:
        PluginError: it cannot be had (the message says why).
    """
    kind = source.get("source")
    if kind in ("directory", "file"):
        path = Path(str(source.get("path", ""))).expanduser()
        folder = path.parent.parent if kind == "file" else path
        if not (folder / CATALOG).is_file():
            raise PluginError(f"{path} holds no {CATALOG.as_posix()}.")
        return folder
    if kind in ("git", "github", "url"):
        if kind == "url":
            raise PluginError("url marketplaces (a hosted marketplace.json) are not supported.")
        into = eddy_plugins_home() / "marketplaces" / name
        if (into / ".git").is_dir():
            _git(["pull", "--quiet", "--ff-only"], cwd=into)
        else:
            clone(git_url(source), into, ref=str(source.get("ref", "")))
        if not (into / CATALOG).is_file():
            raise PluginError(f"the repository holds no {CATALOG.as_posix()}.")
        return into
    raise PluginError(f"marketplace source {kind!r} is not supported by eddy.")


def read_catalog(folder: Path) -> dict[str, Any]:
    """The catalog in ``folder`` (``.claude-plugin/marketplace.json``).

    Raises:
        PluginError: it is missing, not JSON, or has no name or plugins list.
    """
    data = read_json(folder / CATALOG)
    if not isinstance(data, dict):
        raise PluginError(f"{folder / CATALOG} is missing or not a JSON object.")
    if not isinstance(data.get("name"), str) or not isinstance(data.get("plugins"), list):
        raise PluginError(f"{folder / CATALOG} needs a name and a plugins list.")
    return data


def entries(folder: Path) -> dict[str, dict[str, Any]]:
    """The catalog's plugin entries by name (entries without a name are skipped)."""
    out = {}
    for entry in read_catalog(folder)["plugins"]:
        if isinstance(entry, dict) and isinstance(entry.get("name"), str):
            out[entry["name"]] = entry
    return out


def plugin_dir(folder: Path, entry: dict[str, Any], work: Path) -> tuple[Path, str]:
    """The directory of ``entry``'s plugin and the git commit it came from ("" if none),
    fetching a remote source under ``work``.

    Raises:
        PluginError: the source cannot be used (not supported, missing, git failed).
    """
    source = entry.get("source")
    name = entry.get("name")
    if isinstance(source, str):
        root = read_catalog(folder).get("metadata") or {}
        plugin_root = root.get("pluginRoot") if isinstance(root, dict) else None
        if not source.startswith("./") and "/" not in source and isinstance(plugin_root, str):
            source = f"{plugin_root.rstrip('/')}/{source}"
        path = (folder / source).resolve()
        if folder.resolve() not in (path, *path.parents):
            raise PluginError(f"{name}: its source {source!r} leaves the marketplace.")
        if not path.is_dir():
            raise PluginError(f"Plugin directory not found at path: {source}.")
        return path, _head(folder)
    if not isinstance(source, dict):
        raise PluginError(f"{name}: its source must be a path or an object.")
    kind = source.get("source")
    if kind in ("github", "url", "git-subdir"):
        into = work / "src"
        sha = clone(
            git_url(source), into, ref=str(source.get("ref", "")), sha=str(source.get("sha", ""))
        )
        if kind == "git-subdir":
            sub = (into / str(source.get("path", ""))).resolve()
            if into.resolve() not in sub.parents or not sub.is_dir():
                raise PluginError(f"{name}: {source.get('path')!r} is not in the repository.")
            return sub, sha
        return into, sha
    raise PluginError(f"{name}: plugin source {kind!r} is not supported by eddy.")


def _head(folder: Path) -> str:
    try:
        return _git(["rev-parse", "HEAD"], cwd=folder).strip()
    except PluginError:
        return ""  # not a git checkout: no commit to tell


def known(settings_raw: Sequence[tuple[Any, dict[str, Any]]]) -> dict[str, Marketplace]:
    """Every known marketplace by name: Claude Code's registry, eddy's, then the settings'
    ``extraKnownMarketplaces`` (``additionalMarketplaces``), later ones winning a name."""
    out: dict[str, Marketplace] = {}
    for home, label in ((claude_plugins_home(), "Claude Code"), (eddy_plugins_home(), "eddy")):
        data = read_json(home / KNOWN)
        for name, entry in (data if isinstance(data, dict) else {}).items():
            if isinstance(entry, dict) and isinstance(entry.get("source"), dict):
                place = entry.get("installLocation")
                location = Path(place) if isinstance(place, str) else None
                out[str(name)] = Marketplace(str(name), entry["source"], label, location)
    for source, data in settings_raw:
        value = data.get("extraKnownMarketplaces", data.get("additionalMarketplaces"))
        if not isinstance(value, dict):
            continue
        label = str(getattr(source, "label", source))
        for name, entry in value.items():
            if isinstance(entry, dict) and isinstance(entry.get("source"), dict):
                before = out.get(str(name))
                same = before is not None and before.source == entry["source"]
                location = before.location if same and before is not None else None
                out[str(name)] = Marketplace(str(name), entry["source"], label, location)
    return out


def scratch() -> tempfile.TemporaryDirectory[str]:
    """A temporary folder for fetching a plugin (in eddy's plugins folder: same disk)."""
    home = eddy_plugins_home()
    home.mkdir(parents=True, exist_ok=True)
    return tempfile.TemporaryDirectory(dir=home, prefix=".fetch-")
