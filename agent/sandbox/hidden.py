"""The user's secrets on disk: what a sandboxed command must not be able to read."""

from __future__ import annotations

import os
from pathlib import Path

HOME_SECRETS = (
    ".ssh",
    ".aws",
    ".config/gcloud",
    ".azure",
    ".netrc",
    ".git-credentials",
    ".docker/config.json",
    ".kube/config",
    ".gnupg",
    ".npmrc",
    ".pypirc",
    ".config/gh",
    ".claude",
    ".claude.json",
    ".config/claude",
)
"""Paths under the home directory hidden from sandboxed commands."""


def hidden_paths() -> list[Path]:
    """The existing secret paths: the list above, and eddy's own config and data dirs."""
    from agent.paths import config_dir, data_dir

    home = Path(os.path.expanduser("~"))
    candidates = [home / rel for rel in HOME_SECRETS] + [config_dir(), data_dir()]
    out: list[Path] = []
    for path in candidates:
        real = Path(os.path.realpath(path))
        if os.path.lexists(real) and real not in out:
            out.append(real)
    return out
