"""The bubblewrap command line for one sandboxed shell command (Linux).

The whole filesystem is bound read-only; ``/tmp`` is a private tmpfs (writable, gone when the
command ends); the workspace roots are bound back writable (``workspace`` profile) or read-only
(``read_only`` profile); the secrets are covered (an empty tmpfs over a directory, ``/dev/null``
over a file). All namespaces are unshared (network too, unless allowed). ``--unshare-pid``
makes bubblewrap's init PID 1 of the command's tree, so when eddy kills bwrap's process group
on Esc or timeout the kernel kills every process inside, even ones that called ``setsid``.
In the ``workspace`` profile the protected paths that exist (``.git/config``, ``.git/hooks``,
``.gitmodules``, ``.eddy``, ``.claude``, ``.mcp.json``) are bound back read-only: a command
allowed by a rule cannot plant a hook or a setting. ``--new-session`` keeps the command off
any terminal (no TIOCSTI), ``--die-with-parent`` ends it if eddy dies, and ``--cap-drop ALL``
with bubblewrap's ``no_new_privs`` leave it no privileges.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

Profile = Literal["read_only", "workspace"]


def _contains(outer: Path, inner: Path) -> bool:
    return outer == inner or outer in inner.parents


def _protected_inside(roots: tuple[Path, ...]) -> list[Path]:
    """The existing protected paths of the roots (git config and hooks, settings files)."""
    from agent.permissions.paths import PROTECTED_IN_WORKSPACE

    out = []
    for root in roots:
        for rel in PROTECTED_IN_WORKSPACE:
            path = root / rel
            if os.path.lexists(path) and not os.path.islink(path):
                out.append(path)
    return out


def bwrap_argv(
    binary: str,
    argv: list[str],
    *,
    cwd: Path,
    profile: Profile,
    roots: tuple[Path, ...],
    writable_files: tuple[Path, ...],
    hidden: list[Path],
    network: bool,
) -> list[str]:
    """The argv that runs ``argv`` under bubblewrap with ``profile``.

    A hidden path that contains a root is left visible (hiding it would hide the workspace).
    """
    out = [binary, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    # -try: an added directory that has gone away must not stop every command
    bind = "--bind-try" if profile == "workspace" else "--ro-bind-try"
    for root in roots:
        out += [bind, str(root), str(root)]
    if profile == "workspace":
        for path in _protected_inside(roots):
            out += ["--ro-bind", str(path), str(path)]
    for path in writable_files:
        out += ["--bind", str(path), str(path)]
    for path in hidden:
        if any(_contains(path, root) for root in roots):
            continue
        if os.path.isdir(path) and not os.path.islink(path):
            out += ["--tmpfs", str(path)]
        else:
            out += ["--ro-bind", "/dev/null", str(path)]
    out += ["--unshare-all", *(["--share-net"] if network else [])]
    out += ["--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    out += ["--chdir", str(cwd), "--", *argv]
    return out
