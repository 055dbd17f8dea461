"""Where the settings files are: eddy's and Claude Code's per scope (user, project, local)
and the managed file, as ``SettingsSource`` entries lowest precedence first, with the label
each is named by in messages. What the files hold and how they merge is
:mod:`agent.settings.files`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from agent.paths import config_dir

LOCAL_SETTINGS = ".eddy/settings.local.json"
PROJECT_SETTINGS = ".eddy/settings.json"
CLAUDE_PROJECT_SETTINGS = ".claude/settings.json"
CLAUDE_LOCAL_SETTINGS = ".claude/settings.local.json"
MANAGED_SETTINGS = Path("/etc/claude-code/managed-settings.json")
MANAGED_ENV = "EDDY_MANAGED_SETTINGS"
"""The variable that names another managed settings file (tests, systems other than Linux)."""


@dataclass(frozen=True)
class SettingsSource:
    """One settings file eddy reads: its scope (user, project, local, managed), path, display
    label, and whether it is Claude Code's (read-only to eddy; unknown keys ignored silently)."""

    scope: str
    path: Path
    label: str
    claude: bool = False


def settings_sources(workspace: Path) -> list[SettingsSource]:
    """The settings files of ``workspace``, lowest precedence first (whether they exist or not):
    per scope Claude Code's file, then eddy's; the managed file last."""
    workspace = Path(workspace)
    home = claude_user_settings_path()
    return [
        SettingsSource("user", home, _home_label(home), claude=True),
        SettingsSource("user", user_settings_path(), _label(user_settings_path(), workspace)),
        SettingsSource(
            "project", workspace / CLAUDE_PROJECT_SETTINGS, CLAUDE_PROJECT_SETTINGS, True
        ),
        SettingsSource("project", project_settings_path(workspace), PROJECT_SETTINGS),
        SettingsSource("local", workspace / CLAUDE_LOCAL_SETTINGS, CLAUDE_LOCAL_SETTINGS, True),
        SettingsSource("local", local_settings_path(workspace), LOCAL_SETTINGS),
        SettingsSource("managed", managed_settings_path(), str(managed_settings_path()), True),
    ]


def claude_user_settings_path() -> Path:
    """Claude Code's user settings: ``~/.claude/settings.json`` (``Path.home()``; tests set
    HOME)."""
    return Path.home() / ".claude" / "settings.json"


def managed_settings_path() -> Path:
    """The managed (organisation) settings file: ``$EDDY_MANAGED_SETTINGS`` or Claude Code's
    Linux path."""
    given = os.environ.get(MANAGED_ENV)
    return Path(given) if given else MANAGED_SETTINGS


def _home_label(path: Path) -> str:
    try:
        return "~/" + path.relative_to(Path.home()).as_posix()
    except ValueError:
        return str(path)


def user_settings_path() -> Path:
    """eddy's user settings: ``settings.json`` in the config directory (``config_dir()``)."""
    return config_dir() / "settings.json"


def project_settings_path(workspace: Path) -> Path:
    """The project's shared eddy settings: ``.eddy/settings.json``."""
    return Path(workspace) / PROJECT_SETTINGS


def local_settings_path(workspace: Path) -> Path:
    """The project's local eddy settings (git-ignored): ``.eddy/settings.local.json``."""
    return Path(workspace) / LOCAL_SETTINGS


def _label(path: Path, workspace: Path) -> str:
    try:
        return path.relative_to(workspace).as_posix()
    except ValueError:
        return str(path)
