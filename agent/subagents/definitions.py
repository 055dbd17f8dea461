"""Subagent definitions: Markdown files with YAML front matter, and the three built-ins.

Where they come from, lowest precedence first (a later definition of a name wins):

1. the built-ins ``general-purpose``, ``Explore`` and ``Plan``;
1b. the session's plugins' agents (agent/plugins), named ``plugin:agent`` (Claude Code's
   namespacing; ``${CLAUDE_PLUGIN_ROOT}`` in the prompt is the plugin's folder; a
   ``permissionMode`` there is not honoured, as in Claude Code: it is reported);
2. eddy's user config folder, ``<config_dir()>/agents/**/*.md``;
3. ``~/.claude/agents/**/*.md`` (Claude Code's user folder);
4. the project: ``.claude/agents/**/*.md`` then ``.eddy/agents/**/*.md`` in every folder from
   the farthest ancestor of the workspace down to the workspace itself (closest to cwd wins).

Front matter keys (Claude Code's): ``name``, ``description`` (both required), ``tools`` and
``disallowedTools`` (a comma-separated string or a list), ``model``
(``sonnet|opus|haiku|inherit|<model id>``), ``permissionMode``, ``maxTurns``. The body is the
system prompt. A file that cannot be used is reported (path and why), never silently skipped.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent.plugins.plugin import Plugin

MODEL_ALIASES = {
    "sonnet": "claude-sonnet-5-5",
    "opus": "claude-opus-5-5",
    "haiku": "claude-haiku-5-5",
}
"""What the front matter's (and the Agent tool's) model aliases stand for."""

PERMISSION_MODES = ("default", "acceptEdits", "plan", "bypassPermissions")
READ_ONLY_TOOLS = ("Read", "Glob", "Grep", "Bash")
"""Explore's and Plan's tools; they run in plan mode, so Bash runs read-only commands only."""

_KEYS = {"name", "description", "tools", "disallowedTools", "model", "permissionMode", "maxTurns"}
_KNOWN_EXTRA = {"color", "hooks", "skills", "mcpServers", "memory"}
"""Claude Code keys eddy accepts and does not use (not worth a problem report)."""


@dataclass(frozen=True)
class AgentDefinition:
    """One agent type the Agent tool can start.

    Attributes:
        name: what ``subagent_type`` names.
        description: when to use it (the Agent tool's description lists it).
        prompt: the child's system prompt.
        tools: the tools it may use (None: every tool of its parent).
        disallowed: tools taken away from ``tools``.
        model: a model id, or None to inherit the parent's.
        permission_mode: a mode to narrow the parent's to, or None (the parent's).
        max_turns: the child's turn limit T (None: unlimited).
        source: ``built-in``, ``user``, ``user (~/.claude)`` or ``project``.
        path: the file it was read from (None for a built-in).
    """

    name: str
    description: str
    prompt: str
    tools: tuple[str, ...] | None = None
    disallowed: tuple[str, ...] = ()
    model: str | None = None
    permission_mode: str | None = None
    max_turns: int | None = None
    source: str = "built-in"
    path: Path | None = None

    def allows(self, tool: str) -> bool:
        """Whether this definition lets its agent use ``tool``."""
        if tool in self.disallowed:
            return False
        return self.tools is None or tool in self.tools


_GENERAL = (
    "You are a subagent of eddy, a coding agent. Do the task you are given with the tools "
    "you have, then answer with a concise report of what you found or did: it is all the "
    "agent that started you will see. Include file paths and line numbers where they help."
)
_EXPLORE = (
    "You are a read-only exploration subagent of eddy. Search and read the codebase to answer "
    "the question you are given; never change files. Answer with what you found: paths, line "
    "numbers, short excerpts. Be thorough but brief."
)
_PLAN = (
    "You are a planning subagent of eddy. Research the codebase read-only (never change "
    "files), then answer with a step-by-step implementation plan: the files to change, what "
    "to change in each, the risks, and how to test it."
)

BUILT_INS: tuple[AgentDefinition, ...] = (
    AgentDefinition(
        "general-purpose",
        "General-purpose agent for researching complex questions, searching for code, and "
        "executing multi-step tasks.",
        _GENERAL,
    ),
    AgentDefinition(
        "Explore",
        "Fast read-only agent for exploring a codebase: finding files, searching code, "
        "answering questions about it.",
        _EXPLORE,
        tools=READ_ONLY_TOOLS,
        permission_mode="plan",
    ),
    AgentDefinition(
        "Plan",
        "Read-only research agent that returns an implementation plan.",
        _PLAN,
        tools=READ_ONLY_TOOLS,
        permission_mode="plan",
    ),
)


@dataclass
class AgentCatalog:
    """The agent types of a workspace, and what could not be loaded.

    Attributes:
        agents: by name, in the order they are listed (built-ins first, then by name).
        problems: one line per unusable file: ``path: why``.
    """

    agents: dict[str, AgentDefinition] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def get(self, name: str) -> AgentDefinition | None:
        """The definition called ``name`` (exact, else case-insensitive), or None."""
        found = self.agents.get(name)
        if found is not None:
            return found
        lowered = {k.lower(): v for k, v in self.agents.items()}
        return lowered.get(name.lower())


def split_front_matter(text: str) -> tuple[str, str] | None:
    """``(front matter, body)`` of a Markdown file, or None when it has no front matter."""
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        return None
    for i in range(1, len(lines)):
        if lines[i].strip() == "---":
            return "".join(lines[1:i]), "".join(lines[i + 1 :])
    return None


def _names(value: Any, key: str) -> tuple[str, ...]:
    """A tool list: ``Read, Grep`` or a YAML list; ``Bash(git *)`` counts as ``Bash``."""
    if isinstance(value, str):
        items = [v.strip() for v in value.split(",")]
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        items = [v.strip() for v in value]
    else:
        raise ValueError(f"{key} must be a comma-separated string or a list of tool names")
    return tuple(dict.fromkeys(i.split("(", 1)[0].strip() for i in items if i))


def parse_definition(path: Path, text: str, source: str) -> AgentDefinition:
    """One definition from a file's text.

    Raises:
        ValueError: why the file is not a usable definition.
    """
    meta, body = _front_matter(text)
    name, description = meta.get("name"), meta.get("description")
    if not isinstance(name, str) or not name.strip():
        raise ValueError("'name' is missing or not a string")
    if not isinstance(description, str) or not description.strip():
        raise ValueError("'description' is missing or not a string")
    tools = _names(meta["tools"], "tools") if meta.get("tools") is not None else None
    disallowed = _names(meta.get("disallowedTools") or [], "disallowedTools")
    model = _model(meta.get("model"))
    mode = meta.get("permissionMode")
    if mode is not None and mode not in PERMISSION_MODES:
        raise ValueError(f"'permissionMode' must be one of {', '.join(PERMISSION_MODES)}")
    turns = meta.get("maxTurns")
    if turns is not None and (isinstance(turns, bool) or not isinstance(turns, int) or turns < 1):
        raise ValueError("'maxTurns' must be a whole number of at least 1")
    if not body:
        raise ValueError("the body (the agent's system prompt) is empty")
    return AgentDefinition(
        name.strip(), description.strip(), body, tools, disallowed, model, mode, turns,
        source, path,
    )  # fmt: skip


def _front_matter(text: str) -> tuple[dict[str, Any], str]:
    """The front matter's keys (only known ones) and the body of ``text``.

    Raises:
        ValueError: no front matter, bad YAML or an unknown key.
    """
    import yaml

    parts = split_front_matter(text)
    if parts is None:
        raise ValueError("no YAML front matter (the file must start with a '---' line)")
    try:
        meta = yaml.safe_load(parts[0])
    except yaml.YAMLError as exc:
        raise ValueError(f"bad YAML front matter: {str(exc).splitlines()[0]}") from None
    if not isinstance(meta, dict):
        raise ValueError("the front matter is not a mapping of keys to values")
    unknown = sorted(str(k) for k in meta if k not in _KEYS | _KNOWN_EXTRA)
    if unknown:
        raise ValueError(f"unknown key(s) {', '.join(unknown)}")
    return meta, parts[1].strip()


def _model(model: Any) -> str | None:
    """The model id of a definition's ``model`` (None: inherit).

    Raises:
        ValueError: not a string.
    """
    if model is not None and (not isinstance(model, str) or not model.strip()):
        raise ValueError("'model' must be sonnet, opus, haiku, inherit or a model id")
    if isinstance(model, str):
        return None if model == "inherit" else MODEL_ALIASES.get(model, model)
    return None


def _files(folder: Path) -> list[Path]:
    """The ``*.md`` files below ``folder``, in a stable order."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.rglob("*.md") if p.is_file())


def _project_folders(workspace: Path, home: Path) -> list[Path]:
    """Agent folders of the project, farthest ancestor first (so the closest wins); the home
    folder itself is the user's, not a project's."""
    chain = [workspace, *workspace.parents]
    out: list[Path] = []
    for folder in reversed(chain):
        if folder == home:
            continue
        out += [folder / ".claude" / "agents", folder / ".eddy" / "agents"]
    return out


def load_agents(
    workspace: Path,
    *,
    home: Path | None = None,
    config: Path | None = None,
    plugins: Iterable[Plugin] = (),
) -> AgentCatalog:
    """The agent types of ``workspace`` (see the module docstring for where and in what order).

    Args:
        workspace: the project directory.
        home: the user's home (default ``~``).
        config: eddy's user config folder (default ``agent.paths.config_dir()``).
        plugins: the session's plugins (their agents come right after the built-ins).
    """
    from agent.paths import config_dir

    home = Path(home if home is not None else os.path.expanduser("~"))
    config = config if config is not None else config_dir()
    catalog = AgentCatalog({d.name: d for d in BUILT_INS})
    for plugin in plugins:
        _add_plugin_agents(catalog, plugin)
    folders: Iterable[tuple[Path, str]] = [
        (config / "agents", "user"),
        (home / ".claude" / "agents", "user (~/.claude)"),
        *((f, "project") for f in _project_folders(Path(os.path.realpath(workspace)), home)),
    ]
    for folder, source in folders:
        for path in _files(folder):
            try:
                text = path.read_text(encoding="utf-8")
                definition = parse_definition(path, text, source)
            except (OSError, UnicodeDecodeError, ValueError) as exc:
                catalog.problems.append(f"{path}: {exc}")
                continue
            catalog.agents.pop(definition.name, None)  # the winner takes its place in order
            catalog.agents[definition.name] = definition
    return catalog


def _add_plugin_agents(catalog: AgentCatalog, plugin: Plugin) -> None:
    """A plugin's agents, named ``plugin:agent``."""
    import dataclasses

    files: list[Path] = []
    for place in plugin.agents:
        files += [place] if place.is_file() else _files(place)
    for path in files:
        try:
            text = plugin.substitute(path.read_text(encoding="utf-8"))
            definition = parse_definition(path, text, f"plugin {plugin.plugin_id}")
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            catalog.problems.append(f"{path}: {exc}")
            continue
        if definition.permission_mode is not None:
            catalog.problems.append(
                f"{path}: a plugin's agent cannot set permissionMode (as in Claude Code); "
                "it runs in the session's mode."
            )
        definition = dataclasses.replace(
            definition, name=f"{plugin.name}:{definition.name}", permission_mode=None
        )
        catalog.agents[definition.name] = definition


def agents_listing(catalog: AgentCatalog, width: int | None = None) -> str:
    """What ``/agents`` shows: each agent with its source and tools, then the problems; a
    description longer than ``width`` wraps under itself, not to column 1."""
    import textwrap

    hang = " " * 21
    lines = ["Agents (the Agent tool's subagent_type):"]
    for d in catalog.agents.values():
        where = d.source if d.path is None else f"{d.source}: {d.path}"
        tools = "all tools" if d.tools is None else ", ".join(d.tools)
        if d.disallowed:
            tools += f" except {', '.join(d.disallowed)}"
        extra = [f"model {d.model}"] if d.model else []
        extra += [f"mode {d.permission_mode}"] if d.permission_mode else []
        extra += [f"max {d.max_turns} turns"] if d.max_turns else []
        suffix = f"; {'; '.join(extra)}" if extra else ""
        for text, first in (
            (d.description, f"  {d.name:<18} "),
            (f"({where}; {tools}{suffix})", hang),
        ):
            if width is None or width <= len(hang) + 20:
                lines.append(first + text)
                continue
            lines += textwrap.wrap(
                text, width, initial_indent=first, subsequent_indent=hang, break_on_hyphens=False
            ) or [first.rstrip()]
    if catalog.problems:
        lines.append("Not loaded:")
        lines += [f"  {p}" for p in catalog.problems]
    return "\n".join(lines)
