"""Settings files: permission rules, mode, model and the rest, merged from three places.

Files (each a JSON object), from lowest to highest precedence:

====================  ===============================================  ============================
user                  ``~/.config/eddy/settings.json`` (config_dir())  yours, every project
project               ``<project>/.eddy/settings.json``                shared: commit it
project-local         ``<project>/.eddy/settings.local.json``          yours: git-ignored
====================  ===============================================  ============================

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
        ``agent/permissions/policy.py``:
        ``Bash(git status)`` exact, ``Bash(npm run test:*)`` prefix,
        gitignore-style path patterns ``Edit(src/**)``, ``Read(./.env)``, ``Write(~/notes/**)``,
        ``Read(//etc/hosts)``). deny beats ask beats allow; deny holds in every mode.
    permissions.defaultMode: default, acceptEdits or plan. bypassPermissions is refused
        here: it can only be chosen on the command line (``--permission-mode``), so a cloned
        repository cannot switch off every prompt.
    permissions.additionalDirectories: directories treated like the workspace (as
        ``--add-dir``); relative paths are taken from the project root, ``~`` is expanded.
    model: a string. autoCompact: true or false. Other top-level keys are kept as they
        are for the features that read them (``Settings.get``).

Precedence: local > project > user for single values; rule lists and directories are merged
from all three. The command line goes on top: ``--permission-mode`` replaces the mode,
``--allowed-tools`` / ``--disallowed-tools`` add allow / deny rules.

A file that is not valid JSON, a value of the wrong type, a rule that does not parse or an
unknown mode produces a message naming the file and the key; loading still returns the valid
rest, so eddy starts.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from agent.paths import config_dir
from agent.permissions.policy import MODES, Mode, Policy, Rule

LOCAL_SETTINGS = ".eddy/settings.local.json"
PROJECT_SETTINGS = ".eddy/settings.json"
RULE_LISTS = ("allow", "ask", "deny")
_PERMISSION_KEYS = (*RULE_LISTS, "defaultMode", "additionalDirectories")
_SETTING_MODES = tuple(m for m in MODES if m != "bypassPermissions")


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
    extra: dict[str, Any] = field(default_factory=dict)
    files: list[Path] = field(default_factory=list)
    raw: list[tuple[SettingsSource, dict[str, Any]]] = field(default_factory=list)
    """Each file that was read, lowest precedence first, with its whole JSON object: for the
    features that merge a key across files themselves and name the file (hooks, MCP servers)."""

    def get(self, key: str, default: Any = None) -> Any:
        """A top-level key that has no attribute of its own."""
        return self.extra.get(key, default)


@dataclass(frozen=True)
class SettingsSource:
    """One settings file eddy reads: its scope (user, project, local), path and display label."""

    scope: str
    path: Path
    label: str


def settings_sources(workspace: Path) -> list[SettingsSource]:
    """The settings files of ``workspace``, lowest precedence first (whether they exist or not)."""
    workspace = Path(workspace)
    return [
        SettingsSource(scope, path, _label(path, workspace))
        for scope, path in (
            ("user", user_settings_path()),
            ("project", project_settings_path(workspace)),
            ("local", local_settings_path(workspace)),
        )
    ]


def user_settings_path() -> Path:
    return config_dir() / "settings.json"


def project_settings_path(workspace: Path) -> Path:
    return Path(workspace) / PROJECT_SETTINGS


def local_settings_path(workspace: Path) -> Path:
    return Path(workspace) / LOCAL_SETTINGS


def _label(path: Path, workspace: Path) -> str:
    try:
        return path.relative_to(workspace).as_posix()
    except ValueError:
        return str(path)


def load_settings(workspace: Path) -> tuple[Settings, list[str]]:
    """Read and merge the user, project and project-local settings of ``workspace``.

    Returns:
        The settings made of every valid part, and one message per problem, each naming the
        file and the key (``.eddy/settings.json: permissions.allow[1]: ...``).
    """
    workspace = Path(workspace)
    settings = Settings()
    problems: list[str] = []
    for source in settings_sources(workspace):
        data = read_settings_file(source.path, source.label, problems)
        if data is not None:
            settings.files.append(source.path)
            settings.raw.append((source, data))
            _merge(settings, data, source.label, workspace, problems)
    for name in RULE_LISTS:
        rules: list[Rule] = getattr(settings, name)
        setattr(settings, name, list(dict.fromkeys(rules)))
    settings.additional_directories = list(dict.fromkeys(settings.additional_directories))
    return settings, problems


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
        data = json.loads(text)
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
    settings: Settings, data: dict[str, Any], label: str, workspace: Path, problems: list[str]
) -> None:
    def bad(key: str, message: str) -> None:
        problems.append(f"{label}: {key}: {message}")

    for key, value in data.items():
        if key == "permissions":
            if isinstance(value, dict):
                _merge_permissions(settings, value, bad, workspace)
            else:
                bad(key, f"expected an object, got {_kind(value)}; ignored.")
        elif key == "model":
            if isinstance(value, str) and value.strip():
                settings.model = value.strip()
            else:
                bad(key, f"expected a non-empty string, got {_kind(value)}; ignored.")
        elif key == "autoCompact":
            if isinstance(value, bool):
                settings.auto_compact = value
            else:
                bad(key, f"expected true or false, got {_kind(value)}; ignored.")
        else:
            settings.extra[key] = value


def _merge_permissions(
    settings: Settings, perms: dict[str, Any], bad: Callable[[str, str], None], workspace: Path
) -> None:
    for key, value in perms.items():
        full = f"permissions.{key}"
        if key in RULE_LISTS:
            if not isinstance(value, list):
                bad(full, f"expected a list of rule strings, got {_kind(value)}; ignored.")
                continue
            rules: list[Rule] = getattr(settings, key)
            for i, item in enumerate(value):
                if not isinstance(item, str):
                    bad(f"{full}[{i}]", f"expected a rule string, got {_kind(item)}; skipped.")
                    continue
                try:
                    rules.append(Rule.parse(item))
                except ValueError as exc:
                    bad(f"{full}[{i}]", f"{exc}; skipped.")
        elif key == "defaultMode":
            if value == "bypassPermissions":
                bad(
                    full,
                    "bypassPermissions can only be chosen on the command line "
                    "(--permission-mode bypassPermissions); ignored.",
                )
            elif value in _SETTING_MODES:
                settings.default_mode = cast(Mode, value)
            else:
                bad(
                    full,
                    f"unknown mode {value!r} (expected one of "
                    f"{', '.join(_SETTING_MODES)}); ignored.",
                )
        elif key == "additionalDirectories":
            if not isinstance(value, list):
                bad(full, f"expected a list of directories, got {_kind(value)}; ignored.")
                continue
            for i, item in enumerate(value):
                if not isinstance(item, str) or not item.strip():
                    bad(f"{full}[{i}]", f"expected a directory path, got {_kind(item)}; skipped.")
                    continue
                path = Path(os.path.expanduser(item))
                path = Path(os.path.realpath(path if path.is_absolute() else workspace / path))
                if path.is_dir():
                    settings.additional_directories.append(path)
                else:
                    bad(f"{full}[{i}]", f"{item} is not a directory; skipped.")
        else:
            bad(full, f"unknown key (expected one of {', '.join(_PERMISSION_KEYS)}); ignored.")


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    names = {str: "a string", int: "a number", float: "a number", list: "a list", dict: "an object"}
    text = repr(value) if isinstance(value, (str, int, float)) else ""
    return f"{names.get(type(value), type(value).__name__)}{' ' + text if text else ''}"


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
    if mode is not None:
        if mode in MODES:
            chosen = cast(Mode, mode)
        else:
            problems.append(f"--permission-mode: unknown mode {mode!r}; using {chosen}.")
    policy = Policy(
        chosen,
        [*settings.allow, *parse(allowed_tools, "--allowed-tools")],
        [*settings.deny, *parse(disallowed_tools, "--disallowed-tools")],
        list(settings.ask),
    )
    return policy, problems
