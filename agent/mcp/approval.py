"""Project MCP servers (``.mcp.json``, a project's eddy settings) start only once approved.

A repository can name any program as an MCP server, so, as Claude Code does, eddy starts a
project's servers only after the user said yes to each, once per project; the answer is kept
in the user's data directory (``mcp-approvals.json``: ``{"<project>": {"approved": [...],
"denied": [...], "all": true}}``, ``all`` approving the project's future servers too). The
project's local settings files count as the project's (a repository can commit them). User,
``~/.claude.json``'s local and ``--mcp-config`` servers are the user's own and start without
asking; ``eddy -p``
starts project servers without asking (nobody could answer).
"""

from __future__ import annotations

import json
from pathlib import Path

from agent.mcp.config import ServerConfig
from agent.paths import data_dir

APPROVALS_FILE = "mcp-approvals.json"


def approvals_path() -> Path:
    return data_dir() / APPROVALS_FILE


def _load() -> dict[str, dict[str, object]]:
    try:
        data = json.loads(approvals_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _key(workspace: Path) -> str:
    return str(Path(workspace).resolve())


def answer_of(workspace: Path, name: str) -> bool | None:
    """True (approved), False (denied) or None (not asked yet) for server ``name``."""
    entry = _load().get(_key(workspace), {})
    if not isinstance(entry, dict):
        return None
    if name in _names(entry, "approved"):
        return True
    if name in _names(entry, "denied"):
        return False
    if entry.get("all") is True:  # "use this and all future servers of this project"
        return True
    return None


def remember(workspace: Path, name: str, approved: bool) -> None:
    """Keep the user's answer about project server ``name`` of ``workspace``.

    Raises:
        OSError: the file cannot be written.
    """
    from agent.settings.edit import write_json_file

    data = _load()
    entry = data.setdefault(_key(workspace), {"approved": [], "denied": []})
    for kind in ("approved", "denied"):
        entry[kind] = [n for n in _names(entry, kind) if n != name]
    _names(entry, "approved" if approved else "denied").append(name)
    write_json_file(approvals_path(), data)


def remember_all(workspace: Path) -> None:
    """Approve every server ``workspace``'s project names, now and in future (those denied
    by name stay denied).

    Raises:
        OSError: the file cannot be written.
    """
    from agent.settings.edit import write_json_file

    data = _load()
    data.setdefault(_key(workspace), {"approved": [], "denied": []})["all"] = True
    write_json_file(approvals_path(), data)


def _names(entry: dict[str, object], kind: str) -> list[str]:
    names = entry.get(kind)
    if not isinstance(names, list):
        names = entry[kind] = []
    return names


def needs_approval(config: ServerConfig) -> bool:
    """Whether a server comes from the project's own files: ``.mcp.json``, its settings, and
    its local settings files too (a repository can commit ``.eddy/settings.local.json``)."""
    from agent.settings.sources import CLAUDE_LOCAL_SETTINGS, LOCAL_SETTINGS

    local_file = config.source in (LOCAL_SETTINGS, CLAUDE_LOCAL_SETTINGS)
    return config.scope == "project" or (config.scope == "local" and local_file)


def may_start(config: ServerConfig, workspace: Path, *, headless: bool) -> bool:
    """Whether ``config`` may start now without asking."""
    if headless or not needs_approval(config):
        return True
    return answer_of(workspace, config.name) is True
