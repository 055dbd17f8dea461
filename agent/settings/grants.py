"""What a project's own files grant: collected, listed, and digested per kind.

A cloned repository can carry files that make eddy run programs or skip questions: permission
rules and modes in its settings files (eddy's and Claude Code's, shared and local), hooks,
``env`` variables, sandbox settings that weaken it, a status line and an API key helper
command, MCP servers, skills and commands with ``allowed-tools``, agents with a permission
mode, memory imports that reach outside the project, and the plugins it switches on (their
hooks, MCP servers, skills and commands: agent/plugins/grants.py). :func:`collect_grants` finds them
all, each with the file it comes from and what it would do; the trust question lists them
(:mod:`agent.settings.trust`), and the user's yes is kept as one digest per kind, so that a
change of a kind (a new hook, a widened rule) asks again while the others stand.

Only the places that configure eddy are read (:mod:`agent.permissions.places`); nothing runs.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

KINDS: dict[str, str] = {
    "rules": "permission rules, modes and added directories",
    "hooks": "hooks (commands run on events)",
    "env": "environment variables",
    "sandbox": "sandbox settings that weaken it",
    "statusLine": "the status line's command",
    "apiKeyHelper": "the API key helper command",
    "mcp": "MCP servers (each asked about again when it starts)",
    "skills": "skills and commands with allowed-tools",
    "agents": "agents with a permission mode",
    "imports": "memory imports from outside the project",
}
"""Every kind of grant, in the order the question lists them, with its heading."""

_WIDENING_MODES = frozenset({"acceptEdits", "bypassPermissions"})


@dataclass(frozen=True)
class Grant:
    """One thing a project file grants.

    Attributes:
        kind: one of :data:`KINDS`.
        source: the file, as the user knows it (``.claude/settings.json``).
        text: what it does (``allows Bash(npm test)``, ``runs `make lint` on PreToolUse``).
        path: the file it reaches, for a memory import (what an approval lets it read).
    """

    kind: str
    source: str
    text: str
    path: Path | None = None


@dataclass(frozen=True)
class ProjectGrants:
    """Everything a project's files grant (:func:`collect_grants`)."""

    items: tuple[Grant, ...] = ()

    def of(self, kind: str) -> list[Grant]:
        """The grants of one kind."""
        return [g for g in self.items if g.kind == kind]

    def kinds(self) -> list[str]:
        """The kinds that have grants, in :data:`KINDS` order."""
        return [k for k in KINDS if self.of(k)]

    def digest(self, kind: str) -> str:
        """A digest of one kind's grants (what a yes approves; a change asks again)."""
        lines = sorted(f"{g.source}\0{g.text}" for g in self.of(kind))
        return hashlib.sha256("\n".join(lines).encode()).hexdigest()

    def lines(self, kinds: Iterable[str] | None = None, *, marked: Iterable[str] = ()) -> list[str]:
        """The grants as the question and the notices show them: a heading per kind, one
        bullet per grant (``marked`` kinds say they changed since the user's yes)."""
        chosen = list(kinds) if kinds is not None else self.kinds()
        changed = set(marked)
        out: list[str] = []
        for kind in chosen:
            grants = self.of(kind)
            if not grants:
                continue
            note = " (changed since you approved them)" if kind in changed else ""
            out.append(f"{KINDS[kind][:1].upper()}{KINDS[kind][1:]}{note}:")
            out.extend(f"  • {g.source}: {g.text}" for g in grants)
        return out

    def summary(self, kinds: Iterable[str] | None = None) -> str:
        """One line: each kind with its grants (for ``eddy -p``'s stderr)."""
        parts = []
        for kind in kinds if kinds is not None else self.kinds():
            grants = self.of(kind)
            if grants:
                parts.append(f"{kind}: " + "; ".join(f"{g.source}: {g.text}" for g in grants))
        return " | ".join(parts)


@dataclass
class _Collector:
    workspace: Path
    items: list[Grant] = field(default_factory=list)

    def add(self, kind: str, source: str, text: str, path: Path | None = None) -> None:
        self.items.append(Grant(kind, source, text, path))

    def settings_file(self, label: str, data: dict[str, Any]) -> None:
        self.permissions(label, data.get("permissions"))
        self.hooks(label, data.get("hooks"))
        self.env(label, data.get("env"))
        self.sandbox(label, data.get("sandbox"))
        status = data.get("statusLine")
        if isinstance(status, dict) and isinstance(status.get("command"), str):
            self.add("statusLine", label, f"runs `{status['command']}` for the status line")
        helper = data.get("apiKeyHelper")
        if isinstance(helper, str) and helper.strip():
            self.add("apiKeyHelper", label, f"runs `{helper.strip()}` to get the API key")
        self.servers(label, data.get("mcpServers"))

    def permissions(self, label: str, value: Any) -> None:
        if not isinstance(value, dict):
            return
        for rule in _strings(value.get("allow")):
            self.add("rules", label, f"allows {rule}")
        mode = value.get("defaultMode")
        if isinstance(mode, str) and mode in _WIDENING_MODES:
            self.add("rules", label, f"starts in {mode} mode")
        for folder in _strings(value.get("additionalDirectories")):
            self.add("rules", label, f"adds the directory {folder} to the workspace")

    def hooks(self, label: str, value: Any) -> None:
        if not isinstance(value, dict):
            return
        for event, groups in value.items():
            for group in groups if isinstance(groups, list) else []:
                if isinstance(group, dict):
                    self.hook_group(label, event, group)

    def hook_group(self, label: str, event: str, group: dict[str, Any]) -> None:
        matcher = group.get("matcher")
        where = f"{event}[{matcher}]" if isinstance(matcher, str) and matcher else event
        for handler in group.get("hooks") or []:
            if isinstance(handler, dict) and isinstance(handler.get("command"), str):
                self.add("hooks", label, f"runs `{handler['command']}` on {where}")

    def env(self, label: str, value: Any) -> None:
        if not isinstance(value, dict):
            return
        from agent.settings.withhold import project_env_allowed

        for name in value:  # the others never apply from a project's file
            if project_env_allowed(str(name)):
                self.add("env", label, f"sets {name}")

    def sandbox(self, label: str, value: Any) -> None:
        if not isinstance(value, dict):
            return
        if value.get("enabled") is False:
            self.add("sandbox", label, "turns the sandbox off")
        network = value.get("network")
        if isinstance(network, dict) and network.get("allowAll") is True:
            self.add("sandbox", label, "lets sandboxed commands use the network")
        for command in _strings(value.get("excludedCommands")):
            self.add("sandbox", label, f"runs {command} outside the sandbox")
        if value.get("allowUnsandboxedCommands") is True:
            self.add("sandbox", label, "runs the commands you approve outside the sandbox")

    def servers(self, label: str, value: Any) -> None:
        if not isinstance(value, dict):
            return
        for name, entry in value.items():
            if not isinstance(entry, dict):
                continue
            if isinstance(entry.get("url"), str):
                what = entry["url"]
            else:
                what = " ".join([str(entry.get("command", "")), *map(str, entry.get("args") or [])])
            self.add("mcp", label, f"starts the MCP server {name} ({what.strip()})")


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _label(path: Path, workspace: Path) -> str:
    try:
        return path.relative_to(workspace).as_posix()
    except ValueError:
        return str(path)


def collect_grants(workspace: Path, extra_dirs: tuple[Path, ...] = ()) -> ProjectGrants:
    """Everything the project's own files in ``workspace`` grant (see the module docstring).

    Args:
        workspace: the project folder.
        extra_dirs: the added directories (memory imports inside them are the project's).
    """
    from agent.settings.files import read_settings_file
    from agent.settings.sources import settings_sources

    workspace = Path(workspace)
    found = _Collector(workspace)
    for source in settings_sources(workspace):
        if source.scope not in ("project", "local"):
            continue
        data = read_settings_file(source.path, source.label, [])
        if data:
            found.settings_file(source.label, data)
    mcp = workspace / ".mcp.json"
    data = read_settings_file(mcp, ".mcp.json", [])
    if data:
        found.servers(".mcp.json", data.get("mcpServers"))
    _skills_and_commands(found, workspace)
    _agents(found, workspace)
    _plugins(found, workspace)
    from agent.memory import external_imports

    for importer, target in external_imports(workspace, (workspace, *extra_dirs)):
        found.add("imports", _label(importer, workspace), f"imports {target}", target)
    return ProjectGrants(tuple(found.items))


def _skills_and_commands(found: _Collector, workspace: Path) -> None:
    from agent.memory.frontmatter import read_front_matter

    for base in (".claude", ".eddy"):
        folder = workspace / base / "skills"
        for path in sorted(folder.glob("*/SKILL.md")) if folder.is_dir() else []:
            fm = read_front_matter(path, [], "")
            tools = list(fm.items("allowed-tools")) if fm is not None else []
            if tools:
                name = path.parent.name
                text = f"skill {name} may use {', '.join(tools)} without asking"
                found.add("skills", _label(path, workspace), text)
        folder = workspace / base / "commands"
        for path in sorted(folder.rglob("*.md")) if folder.is_dir() else []:
            fm = read_front_matter(path, [], "")
            tools = list(fm.items("allowed-tools")) if fm is not None else []
            if tools:
                name = ":".join(path.relative_to(folder).with_suffix("").parts)
                text = f"command /{name} may use {', '.join(tools)} without asking"
                found.add("skills", _label(path, workspace), text)


def _plugins(found: _Collector, workspace: Path) -> None:
    """What the plugins the project switches on grant (agent/plugins/grants.py)."""
    from agent.plugins.grants import plugin_grants
    from agent.settings.files import read_settings_file
    from agent.settings.sources import settings_sources

    raw = [(s, read_settings_file(s.path, s.label, [])) for s in settings_sources(workspace)]
    for grant in plugin_grants(workspace, [(s, d) for s, d in raw if d]):
        found.add(grant.kind, grant.source, grant.text)


def _agents(found: _Collector, workspace: Path) -> None:
    from agent.memory.frontmatter import read_front_matter

    for base in (".claude", ".eddy"):
        folder = workspace / base / "agents"
        for path in sorted(folder.rglob("*.md")) if folder.is_dir() else []:
            fm = read_front_matter(path, [], "")
            mode = fm.text("permissionMode") if fm is not None else None
            if mode:
                text = f"agent {path.stem} asks for the {mode} mode (it can only narrow yours)"
                found.add("agents", _label(path, workspace), text)
