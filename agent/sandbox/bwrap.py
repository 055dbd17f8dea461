"""The bubblewrap command line for one sandboxed shell command (Linux).

The whole filesystem is bound read-only; ``/tmp`` is a private tmpfs (writable, gone when the
command ends); the workspace roots are bound back writable (``workspace`` profile) or read-only
(``read_only`` profile); the secrets are covered (an empty tmpfs over a directory, ``/dev/null``
over a file). All namespaces are unshared (network too, unless allowed). ``--unshare-pid``
makes bubblewrap's init PID 1 of the command's tree: when it dies the kernel kills every
process inside, even ones that called ``setsid``. eddy starts bwrap as the leader of a new
session and process group and kills that group on Esc or timeout, so that init must stay in
the group (``own_session``: no ``--new-session``, which would move it out): bwrap's
``--die-with-parent`` ties init to the outer bwrap only once init has set itself up, and an
outer bwrap killed before that leaves the sandbox running with no one to stop it.
In the ``workspace`` profile the places that configure eddy and exist
(:data:`agent.permissions.places.SANDBOX_PLACES`: ``.eddy``, ``.claude``, ``.mcp.json``, memory
files, ``.git/config``, ``.git/hooks``, submodules' and worktrees' configuration and hooks) are
bound back read-only: a command allowed by a rule cannot plant a hook or a setting; the ones
that do not exist yet are watched instead (:mod:`agent.sandbox.watch`: a bind would leave an
empty mount point behind in the user's tree). With ``git_config`` (a command whose only change
is git's own harmless write of its configuration, ``git remote add``) ``.git/config`` stays
writable. Paths a Read deny rule covers are masked (``masked``). No terminal reaches the
command (no TIOCSTI): in its own session (``own_session``) it has no controlling terminal
and ``--dev`` shows it no terminal of the host; otherwise ``--new-session`` gives it one of its
own. ``--die-with-parent`` ends it if eddy dies, and ``--cap-drop ALL`` with bubblewrap's
``no_new_privs`` leave it no privileges.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

Profile = Literal["read_only", "workspace"]


def _contains(outer: Path, inner: Path) -> bool:
    return outer == inner or outer in inner.parents


def protected_inside(roots: tuple[Path, ...], *, git_config: bool = False) -> list[Path]:
    """The existing protected places of the roots (settings, memory, git config and hooks).

    Args:
        roots: the workspace roots.
        git_config: leave the repositories' own ``.git/config`` out (git may write it).
    """
    from agent.permissions.places import SANDBOX_GIT_GLOBS, SANDBOX_PLACES

    out = []
    for root in roots:
        candidates = [root / rel for rel in SANDBOX_PLACES]
        for pattern in SANDBOX_GIT_GLOBS:
            candidates += sorted(root.glob(pattern))
        for path in candidates:
            if git_config and path == root / ".git" / "config":
                continue
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
    masked: tuple[Path, ...] = (),
    git_config: bool = False,
    own_session: bool = False,
) -> list[str]:
    """The argv that runs ``argv`` under bubblewrap with ``profile``.

    A hidden path that contains a root is left visible (hiding it would hide the workspace).
    ``masked`` (existing paths a Read deny rule covers) are covered like hidden ones, inside
    the workspace too; ``git_config`` leaves ``.git/config`` writable. ``own_session``: the
    caller starts the argv as the leader of a new session with no terminal and stops it by
    killing its process group; the whole sandbox then stays in that group.
    """
    out = [binary, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    # -try: an added directory that has gone away must not stop every command
    bind = "--bind-try" if profile == "workspace" else "--ro-bind-try"
    for root in roots:
        out += [bind, str(root), str(root)]
    if profile == "workspace":
        for path in protected_inside(roots, git_config=git_config):
            out += ["--ro-bind", str(path), str(path)]
    for path in writable_files:
        out += ["--bind", str(path), str(path)]
    covered = [p for p in hidden if not any(_contains(p, root) for root in roots)]
    for path in [*covered, *masked]:
        if os.path.isdir(path) and not os.path.islink(path):
            out += ["--tmpfs", str(path)]
        elif os.path.lexists(path):
            out += ["--ro-bind", "/dev/null", str(path)]
    out += ["--unshare-all", *(["--share-net"] if network else [])]
    out += ["--die-with-parent", *([] if own_session else ["--new-session"])]
    out += ["--cap-drop", "ALL"]
    out += ["--chdir", str(cwd), "--", *argv]
    return out
