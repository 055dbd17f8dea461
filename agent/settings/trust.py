"""Trusted folders: a project's own files may steer eddy only once the user trusts the folder.

A repository can carry ``.eddy/settings.json`` (and a committed ``settings.local.json``) with
rules that let commands run without asking, and an ``AGENTS.md`` / ``CLAUDE.md`` the model
reads as instructions. So the first interactive start in a folder asks whether its files are
trusted, as Claude Code does; the answer is kept per folder in the user's config directory
(``trusted-folders.json``) and covers the folders below it. "No" ends eddy before anything
of the project is read.

``EDDY_TRUSTED_FOLDERS`` (folders separated by ``os.pathsep``) trusts more folders without
writing anything: for scripts that drive an interactive eddy, and the tests.

Not asked: headless runs (``eddy -p``) and line mode fed from a pipe (no one to answer, as
``claude -p``), ``--permission-mode bypassPermissions`` (the user already chose to allow
everything) and the demo (eddy made its folder).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from agent.paths import config_dir
from agent.settings.files import local_settings_path, project_settings_path, read_settings_file

TRUST_FILE = "trusted-folders.json"


def trust_path() -> Path:
    return config_dir() / TRUST_FILE


def _folders() -> list[str]:
    """The folders the user trusted (the file), without those of ``EDDY_TRUSTED_FOLDERS``."""
    try:
        data = json.loads(trust_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []  # missing or unreadable: nothing is trusted (the question comes again)
    folders = data.get("folders") if isinstance(data, dict) else None
    return [f for f in folders if isinstance(f, str)] if isinstance(folders, list) else []


def is_trusted(folder: Path) -> bool:
    """Whether ``folder`` or a folder above it was trusted."""
    folder = Path(folder).resolve()
    given = [f for f in os.environ.get("EDDY_TRUSTED_FOLDERS", "").split(os.pathsep) if f]
    trusted = [*_folders(), *(str(Path(f).resolve()) for f in given)]
    return any(folder.is_relative_to(Path(f)) for f in trusted)


def trust(folder: Path) -> None:
    """Remember that the user trusts ``folder`` (and what is below it)."""
    from agent.settings.edit import write_json_file

    folders = _folders()
    resolved = str(Path(folder).resolve())
    if resolved not in folders:
        folders.append(resolved)
    write_json_file(trust_path(), {"folders": folders})


def needs_asking(folder: Path, *, mode: str, demo: bool = False) -> bool:
    """Whether an interactive start in ``folder`` must ask first (see the module's note)."""
    return not demo and mode != "bypassPermissions" and not is_trusted(folder)


def project_grants(folder: Path) -> list[str]:
    """What the folder's own settings would allow without asking, one line per file, for
    the question (``.eddy/settings.json: allows Bash(npm test), Edit``)."""
    lines = []
    for path in (project_settings_path(folder), local_settings_path(folder)):
        data = read_settings_file(path, path.name, [])
        permissions = data.get("permissions") if data else None
        if not isinstance(permissions, dict):
            continue
        label = path.relative_to(folder).as_posix()
        allow = permissions.get("allow")
        if isinstance(allow, list) and allow:
            lines.append(f"{label}: allows {', '.join(map(str, allow))}")
        mode = permissions.get("defaultMode")
        if isinstance(mode, str) and mode not in ("default", "plan"):
            lines.append(f"{label}: starts in {mode} mode")
    return lines


def question(folder: Path) -> list[str]:
    """The question's lines: the folder, the risk, and what its settings would allow."""
    lines = [
        "Do you trust the files in this folder?",
        str(Path(folder).resolve()),
        "eddy may read, write or run the files here, and this folder's settings and "
        "AGENTS.md / CLAUDE.md steer it. Only trust files from sources you trust.",
    ]
    grants = project_grants(folder)
    if grants:
        lines.append("Settings here let actions run without asking:")
        lines.extend(f"  • {grant}" for grant in grants)
    return lines
