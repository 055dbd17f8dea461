"""The ``sandbox-exec`` (Seatbelt) profile for one sandboxed shell command (macOS).

Same policy as :mod:`agent.sandbox.bwrap`: reads allowed except the secrets, writes only to the
workspace roots (``workspace`` profile), the temp dirs and the null device, network denied
unless allowed. Seatbelt has no PID namespace: the process group eddy kills is the tree.
Seatbelt names paths whether they exist or not, so the places that configure eddy are denied
for writing under each root, existing or not (bubblewrap needs :mod:`agent.sandbox.watch`).
Written from Apple's profile language; it is not exercised by the tests here (Linux only).
"""

from __future__ import annotations

import re
from pathlib import Path

from agent.sandbox.bwrap import Profile


def _quote(path: Path | str) -> str:
    text = str(path).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'


def seatbelt_profile(
    *,
    profile: Profile,
    roots: tuple[Path, ...],
    writable_files: tuple[Path, ...],
    hidden: list[Path],
    network: bool,
    git_config: bool = False,
) -> str:
    """The Seatbelt profile text (``git_config``: ``.git/config`` stays writable)."""
    from agent.permissions.places import SANDBOX_PLACES

    lines = ["(version 1)", "(allow default)", "(deny file-write*)"]
    writable = [f"(literal {_quote(p)})" for p in writable_files]
    writable += ['(literal "/dev/null")', '(regex #"^/dev/tty")', '(subpath "/private/tmp")']
    writable += ['(subpath "/private/var/folders")']
    if profile == "workspace":
        writable += [f"(subpath {_quote(r)})" for r in roots]
    lines.append(f"(allow file-write* {' '.join(writable)})")
    if profile == "workspace":
        kept = [
            f"(subpath {_quote(r / rel)})"
            for r in roots
            for rel in SANDBOX_PLACES
            if not (git_config and rel == ".git/config")
        ]
        kept += [
            f'(regex #"^{re.escape(str(r))}/\\.git/(modules|worktrees)/[^/]+/(config|hooks)")'
            for r in roots
        ]
        lines.append(f"(deny file-write* {' '.join(kept)})")
    for path in hidden:
        lines.append(f"(deny file-read* file-write* (subpath {_quote(path)}))")
    if not network:
        lines.append("(deny network*)")
        lines.append('(allow network* (remote unix-socket (path-literal "/var/run/syslog")))')
    return "\n".join(lines)


def seatbelt_argv(binary: str, argv: list[str], profile_text: str) -> list[str]:
    """The argv that runs ``argv`` under ``sandbox-exec`` with the profile."""
    return [binary, "-p", profile_text, *argv]
