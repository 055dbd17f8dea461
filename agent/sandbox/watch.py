"""The places that configure eddy and do not exist yet, kept while a sandboxed command runs.

bubblewrap can bind read-only only what exists (:mod:`agent.sandbox.bwrap` does, for the
places of :data:`agent.permissions.places.SANDBOX_PLACES`). Binding a missing name would make
it create an empty mount point in the user's tree (an empty ``.mcp.json``, ``CLAUDE.md``, ...
left behind), an overlay would put the command's writes somewhere else, and Landlock grants
creation per directory, not per name. So the missing ones are watched instead: before a
command runs with a writable workspace, :meth:`PlacesWatch.start` records which of them are
missing under each root; when it ends, :meth:`PlacesWatch.finish` moves whatever of them now
exists out of the tree, into eddy's data directory (``quarantine/``), and says so in the
command's result, which is an error. A command cannot keep one, whatever it spells (a name
built at run time, ``sh -c``, a Python program), and nothing is left in the tree.

A new ``.git`` (``git init``), ``.git/hooks`` or ``.git/config`` is kept when its
configuration makes git run no program and its hooks are only git's ``*.sample`` files.
What eddy's own tools wrote there with the user's yes meanwhile (a background command still
running) is left alone (``approved``). The window: while the command runs, another program
(not eddy: eddy reads these places only when a session opens) could read what it made.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from agent.permissions.places import SANDBOX_PLACES, protected_reason


def _quarantine_dir() -> Path:
    from agent.paths import data_dir

    stamp = time.strftime("%Y%m%d-%H%M%S")
    return data_dir() / "quarantine" / f"{stamp}-{os.getpid()}-{time.monotonic_ns() % 10**6}"


def _git_runs_code(config: Path) -> str | None:
    """Why a new git configuration file makes git run a program (a key of
    :func:`agent.shell.gitconfig.runs_code`), or None. Unreadable counts as dangerous."""
    from agent.shell.gitconfig import runs_code
    from tools.childenv import child_env

    if not config.exists():
        return None
    try:
        done = subprocess.run(
            ["git", "config", "--file", str(config), "--no-includes", "--list"],
            capture_output=True,
            text=True,
            timeout=10,
            env=child_env({"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null"}),
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"eddy could not read it ({exc})"
    if done.returncode != 0:
        return "git cannot read it"
    for line in done.stdout.splitlines():
        key, _, value = line.partition("=")
        why = runs_code(key, value)
        if why is not None:
            return why
    return None


def _active_hooks(hooks: Path) -> list[str]:
    """The hook files git would run (not git's ``*.sample`` templates)."""
    if not hooks.is_dir() or hooks.is_symlink():
        return [hooks.name] if os.path.lexists(hooks) else []
    return sorted(p.name for p in hooks.iterdir() if not p.name.endswith(".sample"))


def _git_problem(path: Path) -> str | None:
    """Why a new ``.git``, ``.git/hooks`` or ``.git/config`` may not stay, or None."""
    if path.name == ".git":
        if path.is_symlink() or not path.is_dir():
            return "a .git that is not a repository directory"
        return _git_problem(path / "config") or _git_problem(path / "hooks")
    if path.name == "hooks":
        active = _active_hooks(path)
        return f"it holds hooks git would run ({', '.join(active)})" if active else None
    if path.is_symlink():
        return "it is a symlink"
    return _git_runs_code(path)


@dataclass
class PlacesWatch:
    """One command's watch over the places missing when it started.

    Attributes:
        missing: the places (absolute paths) that did not exist.
        approved: paths eddy's tools wrote with the user's yes (shared with the sandbox).
    """

    missing: list[Path]
    approved: set[Path] = field(default_factory=set)

    @classmethod
    def start(cls, roots: Iterable[Path], approved: set[Path]) -> PlacesWatch:
        """Record which places are missing under ``roots`` now."""
        missing: list[Path] = []
        for root in roots:
            if not os.path.isdir(root):
                continue
            git = root / ".git"
            for rel in SANDBOX_PLACES:
                path = root / rel
                if rel.startswith(".git/") and not os.path.isdir(git):
                    continue  # watched as a whole: a new .git
                if not os.path.lexists(path):
                    missing.append(path)
            if not os.path.lexists(git):
                missing.append(git)
        return cls(missing, approved)

    def finish(self) -> str | None:
        """Move out what the command created among the missing places; what to tell the
        model (and the user), or None when it created none."""
        moved: list[str] = []
        for path in self.missing:
            if not os.path.lexists(path) or self._approved(path):
                continue
            if path.name == ".git" or path.parent.name == ".git":
                why = _git_problem(path)
                if why is None:
                    continue  # git init, a hooks folder of samples: nothing runs
            else:
                why = protected_reason(path) or "it configures eddy"
            moved.append(self._move(path, why))
        if not moved:
            return None
        return (
            "The command created places that configure eddy or git; a command eddy runs "
            "without the user's yes may not create them, so eddy moved them out of the "
            "project: " + "; ".join(moved) + ". Ask the user to create them, or to run the "
            "command themselves."
        )

    def _approved(self, path: Path) -> bool:
        return any(a == path or path in a.parents for a in self.approved)

    @staticmethod
    def _move(path: Path, why: str) -> str:
        target = _quarantine_dir() / path.relative_to(path.anchor)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(path), str(target))
        except OSError as exc:
            try:
                if path.is_dir() and not path.is_symlink():
                    shutil.rmtree(path)
                else:
                    path.unlink()
            except OSError:
                return f"{path} ({why}) could NOT be removed: {exc}; remove it yourself"
            return f"{path} ({why}) was removed"
        return f"{path} ({why}) is now in {target}"
