"""Settings files: permission rules, mode, model and the rest, merged from eddy's files and
Claude Code's.

Files (each a JSON object), from lowest to highest precedence:

=============  ==================================================  ==========================
user (Claude)  ``~/.claude/settings.json`` (``Path.home()``)       Claude Code's, every project
user           ``~/.config/eddy/settings.json`` (config_dir())     yours, every project
project (CC)   ``<project>/.claude/settings.json``                 Claude Code's, shared
project        ``<project>/.eddy/settings.json``                   shared: commit it
local (CC)     ``<project>/.claude/settings.local.json``           Claude Code's, yours
local          ``<project>/.eddy/settings.local.json``             yours: git-ignored
(command line) ``--permission-mode``, ``--model``, ``--allowed-tools`` ...
managed        ``/etc/claude-code/managed-settings.json``          the organisation's
=============  ==================================================  ==========================

So: managed > command line > local > project > user, and within one scope eddy's own file beats
Claude Code's. ``EDDY_MANAGED_SETTINGS`` names another managed file (tests, other systems).
eddy never writes into ``.claude/`` or ``~/.claude*``: Claude Code's files are read-only here.

"Yes, don't ask again" saves its rule in the project-local file (``agent/settings/edit.py`` writes
the files: that, and /permissions); when eddy creates that file it
git-ignores it with ``.eddy/.gitignore`` (if the project is a git repository or has a
``.gitignore``, and that does not ignore it already); the project's ``.gitignore`` is never edited.

Example::

    {
      "permissions": {
        "allow": ["Bash(npm run test:*)", "Bash(git commit:*)", "Edit(src/**)"],
        "ask": ["Bash(git push:*)"],
        "deny": ["Read(./.env)", "Read(./secrets/**)", "Bash(curl:*)"],
        "defaultMode": "acceptEdits",
        "additionalDirectories": ["../shared-lib", "~/notes"]
      },
      "model": "claude-sonnet-5-5",
      "autoCompact": true
    }

Keys:
    permissions.allow / ask / deny: lists of rules, ``Tool`` or ``Tool(specifier)`` (see
        ``agent/permissions/rule.py``:
        ``Bash(git status)`` exact, ``Bash(npm run test:*)`` prefix,
        gitignore-style path patterns ``Edit(src/**)``, ``Read(./.env)``, ``Write(~/notes/**)``,
        ``Read(//etc/hosts)``). deny beats ask beats allow; deny holds in every mode.
    permissions.defaultMode: default, acceptEdits, plan or dontAsk (refuse whatever would
        ask); bypassPermissions only in the user's or managed files, or on the command line
        (``--permission-mode``), so a cloned repository cannot switch off every prompt.
    permissions.additionalDirectories: directories treated like the workspace (as
        ``--add-dir``); relative paths are taken from the project root, ``~`` is expanded.
    model: a string. autoCompact: true or false. Other top-level keys are kept as they
        are for the features that read them (``Settings.get``).

Precedence: single values (mode, model, env variables, other keys) come from the highest file
that sets them; rule lists and directories are merged from all. The command line goes above
every file but the managed one: ``--permission-mode`` replaces the mode unless the managed file
sets it, ``--allowed-tools`` / ``--disallowed-tools`` add allow / deny rules.

Claude Code's keys honoured: ``permissions.{allow,ask,deny,additionalDirectories,defaultMode}``,
``env`` (``agent/settings/env.py``), ``model``, ``apiKeyHelper`` (``agent/model/providers.py``),
``respectGitignore``, ``cleanupPeriodDays``; ``hooks``, ``statusLine``, ``outputStyle`` are kept
in ``extra`` and ``raw`` for the features that read them. Other keys of a Claude Code file are
ignored silently (Claude Code has many eddy does not know). ``bypassPermissions`` as
``defaultMode`` is refused in a project's files (a cloned repository must not switch off every
prompt) and allowed in the user's and managed files, as in Claude Code.

A file that is not valid JSON, a value of the wrong type, a rule that does not parse or an
unknown mode produces a message naming the file and the key (and the line, for invalid JSON);
loading still returns the valid rest, so eddy starts. Each rule keeps the file and line it was
read from (``Rule.source``, ``Rule.line``: ``/permissions why`` names them).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, cast

from agent.permissions.policy import MODES, Mode, Policy, Rule
from agent.settings import located
from agent.settings.sources import (
    CLAUDE_LOCAL_SETTINGS,
    CLAUDE_PROJECT_SETTINGS,
    LOCAL_SETTINGS,
    MANAGED_ENV,
    MANAGED_SETTINGS,
    PROJECT_SETTINGS,
    SettingsSource,
    claude_user_settings_path,
    local_settings_path,
    managed_settings_path,
    project_settings_path,
    settings_sources,
    user_settings_path,
)

__all__ = [
    "CLAUDE_LOCAL_SETTINGS",
    "CLAUDE_PROJECT_SETTINGS",
    "LOCAL_SETTINGS",
    "MANAGED_ENV",
    "MANAGED_SETTINGS",
    "PROJECT_SETTINGS",
    "RULE_LISTS",
    "Settings",
    "SettingsError",
    "SettingsSource",
    "build_policy",
    "claude_user_settings_path",
    "load_settings",
    "local_settings_path",
    "managed_settings_path",
    "project_settings_path",
    "read_settings_file",
    "settings_sources",
    "user_settings_path",
]

RULE_LISTS = ("allow", "ask", "deny")
_PERMISSION_KEYS = (*RULE_LISTS, "defaultMode", "additionalDirectories")
_SETTING_MODES = tuple(m for m in MODES if m != "bypassPermissions")
_BYPASS_SCOPES = frozenset({"user", "managed", "flag"})
"""Where ``defaultMode: bypassPermissions`` is honoured: never in a project's own files (a
``--settings`` file is the caller's, as ``--permission-mode`` is)."""
FLAG_SETTINGS = "--settings"
"""The label of the settings given on the command line (a file or JSON text)."""


class SettingsError(ValueError):
    """A settings file cannot be changed without losing what is in it."""


@dataclass
class Settings:
    """The merged settings.

    Attributes:
        allow, ask, deny: permission rules from every file, in order user, project, local.
        default_mode: the mode to start in, or None (then "default").
        additional_directories: extra directories treated as inside the workspace.
        model, auto_compact: None when no file sets them.
        env: the ``env`` variables, merged (the highest file wins per name).
        managed: the single-valued keys the managed file sets (``defaultMode``, ``model``):
            the command line cannot change them.
        respect_gitignore: ``respectGitignore`` (None: not set, i.e. true).
        cleanup_period_days: ``cleanupPeriodDays`` (None: not set).
        api_key_helper: ``apiKeyHelper``, a command printing the API key (user or managed
            files only), and the label of the file that set it.
        extra: other top-level keys (highest-precedence value of each).
        files: the files that were read.
    """

    allow: list[Rule] = field(default_factory=list)
    ask: list[Rule] = field(default_factory=list)
    deny: list[Rule] = field(default_factory=list)
    default_mode: Mode | None = None
    additional_directories: list[Path] = field(default_factory=list)
    model: str | None = None
    auto_compact: bool | None = None
    env: dict[str, str] = field(default_factory=dict)
    managed: set[str] = field(default_factory=set)
    respect_gitignore: bool | None = None
    cleanup_period_days: int | None = None
    api_key_helper: tuple[str, str] | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    files: list[Path] = field(default_factory=list)
    raw: list[tuple[SettingsSource, dict[str, Any]]] = field(default_factory=list)
    """Each file that was read, lowest precedence first, with its whole JSON object: for the
    features that merge a key across files themselves and name the file (hooks, MCP servers)."""

    def get(self, key: str, default: Any = None) -> Any:
        """A top-level key that has no attribute of its own."""
        return self.extra.get(key, default)


def load_settings(
    workspace: Path,
    approved: frozenset[str] | None = None,
    *,
    scopes: Collection[str] | None = None,
    flag_settings: str | None = None,
) -> tuple[Settings, list[str]]:
    """Read and merge the user, project and project-local settings of ``workspace``.

    Args:
        workspace: the project.
        approved: the kinds of the project's own grants that take effect
            (:func:`agent.settings.trust.approved_kinds`); the others are left out of the
            project's files (:mod:`agent.settings.withhold`). None: all of them (reading
            the settings for ``/permissions``, or a caller who vouches for the folder).
        scopes: read only the files of these scopes (``user``, ``project``, ``local``:
            Claude Code's ``--setting-sources``); the managed file is always read. None: all.
        flag_settings: ``--settings``: a settings file or JSON text, above the local files
            and below the managed one.

    Returns:
        The settings made of every valid part, and one message per problem, each naming the
        file and the key (``.eddy/settings.json: permissions.allow[1]: ...``).
    """
    from agent.settings.withhold import withhold

    workspace = Path(workspace)
    settings = Settings()
    problems: list[str] = []
    sources = [
        s
        for s in settings_sources(workspace)
        if scopes is None or s.scope in scopes or s.scope == "managed"
    ]
    if flag_settings is not None:
        sources.insert(-1, _flag_source(flag_settings, workspace))
    for source in sources:
        if source.label == FLAG_SETTINGS and not source.path.name:
            data = _settings_text(flag_settings or "", problems)
        else:
            data = read_settings_file(source.path, source.label, problems)
            if data is None and source.scope == "flag" and not source.path.exists():
                problems.append(f"{FLAG_SETTINGS} {source.path}: no such file; ignored.")
        if data is not None:
            data = withhold(data, source, approved, problems)
            if source.path.name:
                settings.files.append(source.path)
            settings.raw.append((source, data))
            _merge(settings, data, source, workspace, problems)
    for name in RULE_LISTS:
        rules: list[Rule] = getattr(settings, name)
        setattr(settings, name, list(dict.fromkeys(rules)))
    settings.additional_directories = list(dict.fromkeys(settings.additional_directories))
    return settings, problems


def _flag_source(given: str, workspace: Path) -> SettingsSource:
    """The source of ``--settings``: JSON text (no path) or a file, relative to the project."""
    if given.lstrip().startswith("{"):
        return SettingsSource("flag", Path(""), FLAG_SETTINGS, claude=True)
    path = Path(given).expanduser()
    where = path if path.is_absolute() else workspace / path
    return SettingsSource("flag", where, FLAG_SETTINGS, claude=True)


def _settings_text(text: str, problems: list[str]) -> dict[str, Any] | None:
    """``--settings`` given as JSON text."""
    try:
        data = located.loads(text)
    except json.JSONDecodeError as exc:
        problems.append(f"{FLAG_SETTINGS}: invalid JSON ({exc.msg}); ignored.")
        return None
    if not isinstance(data, dict):
        problems.append(f"{FLAG_SETTINGS}: expected a JSON object; ignored.")
        return None
    return data


def read_settings_file(path: Path, label: str, problems: list[str]) -> dict[str, Any] | None:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(f"{label}: cannot be read ({exc}); the file is ignored.")
        return None
    if not text.strip():
        return {}
    try:
        data = located.loads(text)
    except json.JSONDecodeError as exc:
        problems.append(
            f"{label}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}; "
            "the file is ignored."
        )
        return None
    if not isinstance(data, dict):
        problems.append(f"{label}: expected a JSON object at the top level; the file is ignored.")
        return None
    return data


def _merge(
    settings: Settings,
    data: dict[str, Any],
    source: SettingsSource,
    workspace: Path,
    problems: list[str],
) -> None:
    label = source.label

    def bad(key: str, message: str) -> None:
        line = located.line_of(_first_string(data, key))
        problems.append(f"{label}: {f'line {line}: ' if line else ''}{key}: {message}")

    from agent.settings import extra_keys

    for key, value in data.items():
        if key == "permissions":
            if isinstance(value, dict):
                _merge_permissions(settings, value, bad, workspace, source)
            else:
                bad(key, f"expected an object, got {_kind(value)}; ignored.")
        elif key == "model":
            _merge_model(settings, value, source, bad)
        elif key == "autoCompact":
            if isinstance(value, bool):
                settings.auto_compact = value
            else:
                bad(key, f"expected true or false, got {_kind(value)}; ignored.")
        elif extra_keys.merge_key(settings, key, value, source, bad):
            settings.extra[key] = value


def _merge_model(
    settings: Settings, value: Any, source: SettingsSource, bad: Callable[[str, str], None]
) -> None:
    if isinstance(value, str) and value.strip():
        settings.model = value.strip()
        if source.scope == "managed":
            settings.managed.add("model")
    else:
        bad("model", f"expected a non-empty string, got {_kind(value)}; ignored.")


def _first_string(data: Any, key: str) -> Any:
    """The first string inside ``data[key]`` (``a.b[1]`` paths): for the line of a message."""
    value: Any = data
    for part in key.replace("]", "").replace("[", ".").split("."):
        if isinstance(value, dict):
            value = value.get(part)
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return None
    while isinstance(value, (dict, list)) and value:
        value = next(iter(value.values())) if isinstance(value, dict) else value[0]
    return value


def _merge_permissions(
    settings: Settings,
    perms: dict[str, Any],
    bad: Callable[[str, str], None],
    workspace: Path,
    source: SettingsSource,
) -> None:
    for key, value in perms.items():
        full = f"permissions.{key}"
        if key in RULE_LISTS:
            _merge_rules(getattr(settings, key), value, full, bad, source)
        elif key == "defaultMode":
            _merge_mode(settings, value, full, bad, source)
        elif key == "additionalDirectories":
            _merge_dirs(settings, value, full, bad, workspace)
        elif not source.claude:  # Claude Code has more keys (disableBypassPermissionsMode ...)
            bad(full, f"unknown key (expected one of {', '.join(_PERMISSION_KEYS)}); ignored.")


def _merge_rules(
    rules: list[Rule],
    value: Any,
    full: str,
    bad: Callable[[str, str], None],
    source: SettingsSource,
) -> None:
    """Add the rule strings of ``value`` (the list at ``full``) to ``rules``."""
    for at, item in _strings(value, full, bad, "rule strings", "a rule string"):
        try:
            rule = Rule.parse(item)
        except ValueError as exc:
            bad(at, f"{exc}; skipped.")
        else:
            rules.append(replace(rule, source=source.label, line=located.line_of(item)))


def _merge_mode(
    settings: Settings,
    value: Any,
    full: str,
    bad: Callable[[str, str], None],
    source: SettingsSource,
) -> None:
    """``permissions.defaultMode``: bypassPermissions only from the user's or managed files."""
    if value == "bypassPermissions" and source.scope not in _BYPASS_SCOPES:
        bad(
            full,
            "bypassPermissions is refused in a project's settings (a cloned repository "
            "must not switch off every prompt); choose it on the command line "
            "(--permission-mode bypassPermissions) or in your user settings; ignored.",
        )
    elif value in MODES:
        settings.default_mode = cast(Mode, value)
        if source.scope == "managed":
            settings.managed.add("defaultMode")
    else:
        bad(
            full,
            f"unknown mode {value!r} (expected one of {', '.join(_SETTING_MODES)}); ignored.",
        )


def _merge_dirs(
    settings: Settings,
    value: Any,
    full: str,
    bad: Callable[[str, str], None],
    workspace: Path,
) -> None:
    """``permissions.additionalDirectories``: the existing directories (real paths)."""
    for at, item in _strings(value, full, bad, "directories", "a directory path", blank=False):
        path = Path(os.path.expanduser(item))
        path = Path(os.path.realpath(path if path.is_absolute() else workspace / path))
        if path.is_dir():
            settings.additional_directories.append(path)
        else:
            bad(at, f"{item} is not a directory; skipped.")


def _strings(
    value: Any,
    full: str,
    bad: Callable[[str, str], None],
    listed: str,
    each: str,
    *,
    blank: bool = True,
) -> Iterator[tuple[str, str]]:
    """The strings of the list ``value`` (at ``full``), each with where it is (``full[i]``);
    what is not a list, or an item that is not a string (or is blank, unless ``blank``), is
    said through ``bad`` as ``listed`` / ``each`` expected."""
    if not isinstance(value, list):
        bad(full, f"expected a list of {listed}, got {_kind(value)}; ignored.")
        return
    for i, item in enumerate(value):
        if not isinstance(item, str) or not (blank or item.strip()):
            bad(f"{full}[{i}]", f"expected {each}, got {_kind(item)}; skipped.")
            continue
        yield f"{full}[{i}]", item


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    names = {str: "a string", int: "a number", float: "a number", list: "a list", dict: "an object"}
    kind = next((n for t, n in names.items() if isinstance(value, t)), type(value).__name__)
    text = repr(str(value) if isinstance(value, str) else value)
    return f"{kind}{' ' + text if isinstance(value, (str, int, float)) else ''}"


def build_policy(
    settings: Settings,
    mode: str | None = None,
    allowed_tools: Iterable[str] = (),
    disallowed_tools: Iterable[str] = (),
) -> tuple[Policy, list[str]]:
    """The policy: the settings' rules with the command line on top.

    Args:
        settings: from ``load_settings``.
        mode: ``--permission-mode`` if given (it beats ``defaultMode``), else None.
        allowed_tools, disallowed_tools: ``--allowed-tools`` / ``--disallowed-tools`` rules.

    Returns:
        The policy and a message per flag rule that does not parse (it is skipped).
    """
    problems: list[str] = []

    def parse(values: Iterable[str], flag: str) -> list[Rule]:
        out = []
        for value in values:
            try:
                out.append(Rule.parse(value))
            except ValueError as exc:
                problems.append(f"{flag}: {exc}; skipped.")
        return out

    chosen: Mode = settings.default_mode or "default"
    if mode is not None and "defaultMode" in settings.managed and mode != chosen:
        problems.append(
            f"--permission-mode {mode}: the managed settings fix the mode to {chosen}; ignored."
        )
    elif mode is not None:
        if mode in MODES:
            chosen = mode
        else:
            problems.append(f"--permission-mode: unknown mode {mode!r}; using {chosen}.")
    policy = Policy(
        chosen,
        [*settings.allow, *parse(allowed_tools, "--allowed-tools")],
        [*settings.deny, *parse(disallowed_tools, "--disallowed-tools")],
        list(settings.ask),
    )
    return policy, problems
