"""Where eddy keeps its files (platformdirs), overridable for tests and scripts.

``EDDY_DATA_DIR`` and ``EDDY_CONFIG_DIR`` override the platform defaults; every test sets them
to a temporary directory so nothing touches the real home.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path


def data_dir() -> Path:
    """Transcripts, checkpoints, prompt history: ``~/.local/share/eddy`` on Linux."""
    env = os.environ.get("EDDY_DATA_DIR")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_data_dir("eddy", appauthor=False))


def config_dir() -> Path:
    """User settings, memory and commands: ``~/.config/eddy`` on Linux."""
    env = os.environ.get("EDDY_CONFIG_DIR")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_config_dir("eddy", appauthor=False))


def claude_json_path() -> Path:
    """Claude Code's user file: ``$CLAUDE_CONFIG_DIR/.claude.json`` or ``~/.claude.json``."""
    base = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(base) / ".claude.json" if base else Path.home() / ".claude.json"


def project_key(cwd: Path) -> str:
    """A readable, unique directory name for a project: ``name-<hash of its real path>``."""
    real = os.path.realpath(cwd)
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", Path(real).name or "root")[:40]
    digest = hashlib.sha256(real.encode()).hexdigest()[:10]
    return f"{name}-{digest}"


def project_data_dir(cwd: Path) -> Path:
    """The data directory of one project (sessions, prompt history)."""
    return data_dir() / "projects" / project_key(cwd)
