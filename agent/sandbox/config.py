"""The ``sandbox`` settings, named as Claude Code names them where the meaning is the same.

```json
{"sandbox": {"enabled": true, "allowUnsandboxedCommands": true,
             "excludedCommands": ["docker:*"], "network": {"allowAll": false}}}
```

enabled: run the commands eddy runs without asking inside the OS sandbox (default true).
    ``false`` turns the sandbox off, and with it the read-only auto-allow (those commands ask).
allowUnsandboxedCommands: a command the user approved explicitly ("yes" in the prompt, ``!``,
    bypassPermissions) runs outside the sandbox (default true); ``false`` runs every command
    sandboxed, approved or not.
excludedCommands: Bash rule specifiers (``docker:*``, ``git push``) of commands that never run
    sandboxed; a read-only command among them asks, as it would with no sandbox.
network.allowAll: sandboxed commands may use the network (default false: they get no network
    at all; bubblewrap cannot filter by domain without a proxy, which eddy does not run).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class SandboxSettings:
    """The merged ``sandbox`` settings (see the module docstring)."""

    enabled: bool = True
    """Sandbox the commands eddy runs without asking."""
    allow_unsandboxed_commands: bool = True
    """Commands the user approved explicitly run outside the sandbox."""
    excluded_commands: tuple[str, ...] = ()
    """Bash specifiers of commands that always run outside (so never without asking)."""
    network: bool = False
    """Sandboxed commands share the network (``network.allowAll``)."""


def _bool(data: dict[str, Any], key: str, default: bool, problems: list[str], label: str) -> bool:
    value = data.get(key, default)
    if isinstance(value, bool):
        return value
    problems.append(f"{label}.{key}: expected true or false; the default ({default}) is used.")
    return default


def parse_sandbox_settings(value: Any, problems: list[str]) -> SandboxSettings:
    """Read the ``sandbox`` settings object; each problem is appended to ``problems``."""
    if value is None:
        return SandboxSettings()
    if not isinstance(value, dict):
        problems.append("sandbox: expected an object; the defaults are used.")
        return SandboxSettings()
    excluded: list[str] = []
    raw = value.get("excludedCommands", [])
    if isinstance(raw, list) and all(isinstance(x, str) and x.strip() for x in raw):
        excluded = [x.strip() for x in raw]
    else:
        problems.append("sandbox.excludedCommands: expected a list of commands; ignored.")
    network = value.get("network", {})
    if not isinstance(network, dict):
        problems.append("sandbox.network: expected an object; the network stays off.")
        network = {}
    return SandboxSettings(
        enabled=_bool(value, "enabled", True, problems, "sandbox"),
        allow_unsandboxed_commands=_bool(
            value, "allowUnsandboxedCommands", True, problems, "sandbox"
        ),
        excluded_commands=tuple(excluded),
        network=_bool(network, "allowAll", False, problems, "sandbox.network"),
    )
