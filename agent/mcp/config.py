"""Which MCP servers a session connects to, read as Claude Code users configure them.

Sources, lowest precedence first (a later entry of the same name replaces an earlier one):

* user:    ``~/.claude.json`` ``mcpServers``, then eddy's user settings ``mcpServers``;
* project: ``.mcp.json`` at the workspace root, then eddy's ``.eddy/settings.json``;
* local:   ``~/.claude.json`` ``projects[<abs path>].mcpServers``, then eddy's
  ``.eddy/settings.local.json``;
* ``--mcp-config FILE`` (each file, or JSON text, an object with ``mcpServers``): above all of
  them, or alone with ``--strict-mcp-config``.

Plugins' servers (agent/plugins/parts.py) come first, below every other source; their names
(``plugin_<plugin>_<server>``) are their own. A project's plugin's servers have the scope
``project`` (they wait for the user's approval, as ``.mcp.json``'s do); a stdio one gets its
plugin's ``CLAUDE_PLUGIN_ROOT`` and ``CLAUDE_PLUGIN_DATA`` in its environment.

``~/.claude.json`` (Claude Code's) is only read here; the one key eddy writes there is the
project's ``disabledMcpServers``, when the user switches a server off or on with ``/mcp``
(agent/mcp/disabled.py). ``$CLAUDE_CONFIG_DIR`` moves it as it does for Claude Code.

Entry forms: stdio ``{"command", "args", "env"}`` (``type`` absent or ``"stdio"``),
``{"type": "http", "url", "headers"}`` and ``{"type": "sse", "url", "headers"}``; and
``{"type": "sdk", "name"}``, an Agent SDK's in-process server, which only a program driving
eddy through the SDK's control channel reaches (``eddy --input-format stream-json``:
headless/sdk_mcp.py gives it its transport). ``${VAR}``
and ``${VAR:-default}`` are expanded in command, args, env, url and headers; a variable that
is unset and has no default expands to "" with a warning naming the entry. An entry with a url
and no type is an error naming the entry (Claude Code would not guess either).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from agent.plugins.parts import PluginServers

from agent.paths import claude_json_path

Scope = Literal["user", "project", "local", "flag"]
Kind = Literal["stdio", "http", "sse", "sdk"]
SCOPES: tuple[Scope, ...] = ("user", "project", "local", "flag")
"""Lowest precedence first."""

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_NAME = re.compile(r"^[A-Za-z0-9_-]+$")
MAX_SERVER_NAME = 48
"""Room in a 64-character tool name for ``mcp__``, the server, ``__`` and some of the tool."""


@dataclass(frozen=True)
class ServerConfig:
    """One configured MCP server, with its variables expanded.

    Attributes:
        name: the key in ``mcpServers`` (tools are ``mcp__<name>__<tool>``).
        scope: where it was configured (``project`` servers need the user's approval).
        source: the file it came from, for messages.
        kind: stdio, http, sse, or sdk (an Agent SDK's in-process server).
        command, args, env: the stdio process.
        url, headers: the HTTP endpoint.
    """

    name: str
    scope: Scope
    source: str
    kind: Kind
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    url: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)

    @property
    def reconnects(self) -> bool:
        """Whether a dropped connection is retried with backoff (HTTP and SSE servers; a
        stdio process or an SDK server that ended stays down until reconnected)."""
        return self.kind in ("http", "sse")


@dataclass
class McpConfig:
    """The servers to connect to, by name (in configuration order), and what was wrong."""

    servers: dict[str, ServerConfig] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def expand(text: str, env: Mapping[str, str], missing: list[str]) -> str:
    """Expand ``${VAR}`` and ``${VAR:-default}`` in ``text``; names of unset variables without
    a default are appended to ``missing`` (they expand to "")."""

    def sub(m: re.Match[str]) -> str:
        name, default = m.group(1), m.group(2)
        value = env.get(name)
        if value is not None and (value or default is None):
            return value
        if default is not None:
            return default
        missing.append(name)
        return ""

    return _VAR.sub(sub, text)


def _strings(value: Any, what: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise ValueError(f"{what} must be an object of strings")
    return {str(k): v for k, v in value.items()}


def _name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a server (None if it can)."""
    if not _NAME.match(name):
        return "a server name may hold only letters, digits, _ and -."
    # The permission rules read a tool's server from its name, mcp__<server>__<tool>: a
    # server named "github__x" would have its tools match the rules of a server "github", and
    # one too long would leave no "__" in its (64-character) tool names for a deny rule to see.
    if "__" in name or len(name) > MAX_SERVER_NAME:
        return (
            f"a server name may not hold '__' nor be longer than {MAX_SERVER_NAME} "
            "characters (its tools' names would read as another server's); ignored."
        )
    return None


def _stdio_entry(
    name: str, entry: dict[str, Any], scope: Scope, source: str, x: Callable[[str], str]
) -> ServerConfig:
    command, args = entry.get("command"), entry.get("args", [])
    if not isinstance(command, str) or not command.strip():
        raise ValueError('needs a "command" (or a "type" and a "url")')
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise ValueError('"args" must be a list of strings')
    server_env = {k: x(v) for k, v in _strings(entry.get("env"), '"env"').items()}
    return ServerConfig(
        name, scope, source, "stdio", x(command), tuple(x(a) for a in args), server_env
    )


def _http_entry(
    name: str, entry: dict[str, Any], scope: Scope, source: str, x: Callable[[str], str]
) -> ServerConfig:
    kind = entry["type"]
    url = entry.get("url")
    if not isinstance(url, str) or not url.strip():
        raise ValueError(f'type "{kind}" needs a "url"')
    headers = {k: x(v) for k, v in _strings(entry.get("headers"), '"headers"').items()}
    return ServerConfig(name, scope, source, kind, url=x(url), headers=headers)


def _entry_config(
    name: str, entry: dict[str, Any], scope: Scope, source: str, x: Callable[[str], str]
) -> ServerConfig:
    """The entry's server by its ``type``; a ValueError says what is wrong with it."""
    kind = entry.get("type")
    if kind is None and "url" in entry:
        raise ValueError(
            'has a "url" but no "type": write "type": "http" (streamable HTTP) or "type": "sse"'
        )
    if kind in (None, "stdio"):
        return _stdio_entry(name, entry, scope, source, x)
    if kind in ("http", "sse"):
        return _http_entry(name, entry, scope, source, x)
    if kind == "sdk":
        return ServerConfig(name, scope, source, "sdk")
    raise ValueError(f'unknown "type" {kind!r} (expected stdio, http, sse or sdk)')


def parse_entry(
    name: str, entry: Any, scope: Scope, source: str, env: Mapping[str, str], problems: list[str]
) -> ServerConfig | None:
    """One ``mcpServers`` entry as a ServerConfig, or None (the reason is in ``problems``)."""
    where = f"{source}: mcpServers.{name}"
    wrong = _name_problem(name)
    if wrong is not None:
        problems.append(f"{where}: {wrong}")
        return None
    if not isinstance(entry, dict):
        problems.append(f"{where}: expected an object; ignored.")
        return None
    missing: list[str] = []
    try:
        config = _entry_config(name, entry, scope, source, lambda s: expand(s, env, missing))
    except ValueError as exc:
        problems.append(f"{where}: {exc}; ignored.")
        return None
    for var in dict.fromkeys(missing):
        problems.append(f"{where}: ${{{var}}} is not set (and has no default); it expands to ''.")
    return config


def _read_json(path: Path, problems: list[str]) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        problems.append(f"{path}: cannot be read: {exc.strerror or exc}")
        return None
    try:
        return json.loads(text)
    except ValueError as exc:
        problems.append(f"{path}: not valid JSON ({exc}); its MCP servers are ignored.")
        return None


def _servers_of(data: Any, source: str, problems: list[str]) -> dict[str, Any]:
    if not isinstance(data, dict):
        return {}
    servers = data.get("mcpServers")
    if servers is None:
        return {}
    if not isinstance(servers, dict):
        problems.append(f"{source}: mcpServers must be an object; ignored.")
        return {}
    return servers


def load_mcp_config(
    workspace: Path,
    settings_raw: Sequence[tuple[Any, dict[str, Any]]] = (),
    *,
    mcp_config_files: Sequence[Path | str] = (),
    strict: bool = False,
    env: Mapping[str, str] | None = None,
    claude_json: Path | None = None,
    plugin_servers: Sequence[PluginServers] = (),
) -> McpConfig:
    """Every configured server of ``workspace``, merged by precedence (see the module note).

    Args:
        workspace: the project root (``.mcp.json``, the key of ``projects`` in .claude.json).
        settings_raw: ``Settings.raw`` (each eddy settings file's source and object).
        mcp_config_files: ``--mcp-config`` files.
        strict: ``--strict-mcp-config``: only ``mcp_config_files``.
        env: the variables to expand (default: the process environment).
        claude_json: Claude Code's user file (default: :func:`claude_json_path`).
        plugin_servers: the servers of the session's plugins (not with ``strict``).
    """
    env = os.environ if env is None else env
    out = McpConfig()
    if not strict:
        _add_plugin_servers(out, plugin_servers, env)
    layers: dict[Scope, list[tuple[str, dict[str, Any]]]] = {s: [] for s in SCOPES}
    if not strict:
        _settings_layers(layers, workspace, settings_raw, claude_json, out.problems)
    layers["flag"] = [_flag_layer(path, out.problems) for path in mcp_config_files]
    for scope in SCOPES:
        for source, servers in layers[scope]:
            for name, entry in servers.items():
                config = parse_entry(str(name), entry, scope, source, env, out.problems)
                if config is not None:
                    out.servers.pop(config.name, None)  # the winner takes the later place
                    out.servers[config.name] = config
    return out


def _add_plugin_servers(
    out: McpConfig, plugin_servers: Sequence[PluginServers], env: Mapping[str, str]
) -> None:
    """The plugins' servers, below every other source (their names are their own)."""
    for group in plugin_servers:
        plugin_env = {**env, **group.env}
        scope: Scope = "project" if group.scope == "project" else "user"
        for name, entry in group.servers.items():
            config = parse_entry(name, entry, scope, group.label, plugin_env, out.problems)
            if config is not None and config.kind == "stdio":
                config = dataclasses.replace(config, env={**group.env, **config.env})
            if config is not None:
                out.servers[config.name] = config


def project_entry(claude_json: Any, workspace: Path) -> Any:
    """The workspace's entry in Claude Code's user file (``projects[<abs path>]``), or None."""
    projects = claude_json.get("projects") if isinstance(claude_json, dict) else None
    return projects.get(str(Path(workspace).resolve())) if isinstance(projects, dict) else None


def _settings_layers(
    layers: dict[Scope, list[tuple[str, dict[str, Any]]]],
    workspace: Path,
    settings_raw: Sequence[tuple[Any, dict[str, Any]]],
    claude_json: Path | None,
    problems: list[str],
) -> None:
    """Add the servers of ``~/.claude.json``, ``.mcp.json`` and eddy's settings files to
    ``layers`` (each source in its scope, lowest precedence first)."""
    cj_path = claude_json or claude_json_path()
    cj = _read_json(cj_path, problems)
    layers["user"].append((str(cj_path), _servers_of(cj, str(cj_path), problems)))
    mcp_json = Path(workspace) / ".mcp.json"
    data = _read_json(mcp_json, problems)
    layers["project"].append((".mcp.json", _servers_of(data, ".mcp.json", problems)))
    mine = project_entry(cj, workspace)
    where = f"{cj_path} (projects[{workspace}])"
    layers["local"].append((where, _servers_of(mine, where, problems)))
    for source, raw in settings_raw:
        scope = getattr(source, "scope", "user")
        label = str(getattr(source, "label", source))
        if scope in layers:
            layers[scope].append((label, _servers_of(raw, label, problems)))


def _flag_layer(path: Path | str, problems: list[str]) -> tuple[str, dict[str, Any]]:
    """One ``--mcp-config`` argument: a file, or JSON text (as Claude Code takes it)."""
    given = str(path)
    if given.lstrip().startswith("{"):
        try:
            data = json.loads(given)
        except ValueError as exc:
            problems.append(f"--mcp-config: not valid JSON ({exc}); ignored.")
            data = None
        given = "--mcp-config"
    else:
        data = _read_json(Path(path), problems)
        if data is None and not Path(path).exists():
            problems.append(f"--mcp-config {path}: no such file.")
    return given, _servers_of(data, given, problems)
