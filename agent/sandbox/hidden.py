"""The user's secrets on disk: what a sandboxed command must not be able to read or reach.

A read-only filesystem does not stop ``connect()`` on a Unix socket, and an unshared network
does not cover sockets on disk: the Docker socket is root on the host, an SSH or GPG agent
signs with the user's keys, the session bus starts programs. So their usual places are
hidden too (``/tmp`` is a private tmpfs anyway, see :mod:`agent.sandbox.bwrap`).
"""

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

SYSTEM_SOCKETS = (
    "/run/user",
    "/run/docker.sock",
    "/var/run/docker.sock",
    "/run/containerd",
    "/run/podman",
    "/run/dbus",
    "/var/run/dbus",
    "/run/snapd.socket",
    "/run/systemd/private",
)
"""Sockets (and their directories) that hand out the user's or root's powers."""


def hidden_paths() -> list[Path]:
    """The existing secret paths: the lists above, the agent sockets the environment names,
    and eddy's own config and data dirs."""
    from agent.paths import config_dir, data_dir

    home = Path(os.path.expanduser("~"))
    candidates = [home / rel for rel in HOME_SECRETS] + [config_dir(), data_dir()]
    candidates += [Path(p) for p in SYSTEM_SOCKETS]
    for name in ("SSH_AUTH_SOCK", "GPG_AGENT_INFO", "DBUS_SESSION_BUS_ADDRESS"):
        value = os.environ.get(name, "")
        value = value.removeprefix("unix:path=").split(",")[0].split(":")[0]
        if value.startswith("/"):
            candidates.append(Path(value))
    out: list[Path] = []
    for path in candidates:
        real = Path(os.path.realpath(path))
        if os.path.lexists(real) and real not in out:
            out.append(real)
    return out
