"""The TUI's own settings file (``tui.json`` in eddy's config folder): the theme choice.

Not the agent's settings (agent/settings/): this file only remembers how the app looks. A
file that cannot be read or written is ignored; the app never fails over it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent.paths import config_dir


def settings_path() -> Path:
    """The TUI's settings file (the theme choice)."""
    return config_dir() / "tui.json"


def load_settings() -> dict[str, Any]:
    """The saved settings; empty when the file is missing, unreadable or not an object."""
    try:
        data = json.loads(settings_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def save_settings(settings: dict[str, Any]) -> None:
    """Write ``settings``; a failure is ignored (the choice is simply not remembered)."""
    path = settings_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
    except OSError:
        pass
