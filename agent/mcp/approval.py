"""Project MCP servers (``.mcp.json``, a project's eddy settings) start only once approved.

A repository can name any program as an MCP server, so, as Claude Code does, eddy starts a
project's servers only after the user said yes to each, once per project; the answer is kept
in the user's data directory (``mcp-approvals.json``: ``{"<project>": {"approved": [...],
"denied": [...], "all": true}}``, ``all`` approving the project's future servers too). The
project's local settings files count as the project's (a repository can commit them). User,
``~/.claude.json``'s local and ``--mcp-config`` servers are the user's own and start without
asking; ``eddy -p``
starts project servers without asking (nobody could answer).

Claude Code's settings keys answer too (:class:`McpJsonChoices`): ``disabledMcpjsonServers``
(names) keeps those servers from starting, in every mode and from any settings file (saying
no is always safe); ``enableAllProjectMcpServers: true`` and ``enabledMcpjsonServers``
(names) approve them, read from the user's and the managed files only: a repository's own
files cannot approve the servers it names.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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


@dataclass(frozen=True)
class McpJsonChoices:
    """What the settings files say about the project's servers (see the module docstring).

    Attributes:
        enable_all: ``enableAllProjectMcpServers`` (user or managed files).
        enabled: ``enabledMcpjsonServers`` (user or managed files).
        disabled: ``disabledMcpjsonServers`` (any file).
    """

    enable_all: bool = False
    enabled: frozenset[str] = field(default_factory=frozenset)
    disabled: frozenset[str] = field(default_factory=frozenset)

    @classmethod
    def of(cls, settings_raw: Sequence[tuple[Any, dict[str, Any]]]) -> McpJsonChoices:
        """The choices of every settings file (``Settings.raw``, lowest precedence first)."""
        enable_all = False
        enabled: set[str] = set()
        disabled: set[str] = set()
        for source, data in settings_raw:
            users = getattr(source, "scope", "user") in ("user", "managed")
            if users and isinstance(data.get("enableAllProjectMcpServers"), bool):
                enable_all = data["enableAllProjectMcpServers"]
            if users:
                enabled |= set(_strings(data.get("enabledMcpjsonServers")))
            disabled |= set(_strings(data.get("disabledMcpjsonServers")))
        return cls(enable_all, frozenset(enabled), frozenset(disabled))


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def may_start(
    config: ServerConfig,
    workspace: Path,
    *,
    headless: bool,
    choices: McpJsonChoices | None = None,
) -> bool:
    """Whether ``config`` may start now without asking."""
    choices = choices or McpJsonChoices()
    if needs_approval(config) and config.name in choices.disabled:
        return False  # disabledMcpjsonServers: not even -p starts it
    if headless or not needs_approval(config):
        return True
    if choices.enable_all or config.name in choices.enabled:
        return True
    return answer_of(workspace, config.name) is True
