"""The ``sandbox-exec`` (Seatbelt) profile for one sandboxed shell command (macOS).

Same policy as :mod:`agent.sandbox.bwrap`: reads allowed except the secrets, writes only to the
workspace roots (``workspace`` profile), the temp dirs and the null device, network denied
unless allowed. Seatbelt has no PID namespace: the process group eddy kills is the tree.
Written from Apple's profile language; it is not exercised by the tests here (Linux only).
"""

from __future__ import annotations

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
) -> str:
    """The Seatbelt profile text."""
    lines = ["(version 1)", "(allow default)", "(deny file-write*)"]
    writable = [f"(literal {_quote(p)})" for p in writable_files]
    writable += ['(literal "/dev/null")', '(regex #"^/dev/tty")', '(subpath "/private/tmp")']
    writable += ['(subpath "/private/var/folders")']
    if profile == "workspace":
        writable += [f"(subpath {_quote(r)})" for r in roots]
    lines.append(f"(allow file-write* {' '.join(writable)})")
    for path in hidden:
        lines.append(f"(deny file-read* file-write* (subpath {_quote(path)}))")
    if not network:
        lines.append("(deny network*)")
        lines.append('(allow network* (remote unix-socket (path-literal "/var/run/syslog")))')
    return "\n".join(lines)


def seatbelt_argv(binary: str, argv: list[str], profile_text: str) -> list[str]:
    """The argv that runs ``argv`` under ``sandbox-exec`` with the profile."""
    return [binary, "-p", profile_text, *argv]
