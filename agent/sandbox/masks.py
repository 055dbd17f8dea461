"""What Read deny rules cover, found on disk, for the sandbox to mask.

A deny rule ``Read(./secrets/**)`` keeps the Read, Glob and Grep tools away from the files it
names, and the gate refuses shell commands that name them; a command can still reach them
without naming them (``grep -r TOKEN .``, a script). So the sandbox covers what the rules name
and exists when the command starts: a directory with an empty tmpfs, a file with ``/dev/null``
(:mod:`agent.sandbox.bwrap`). What does not exist yet is not covered (a file the command
itself creates is its own).

A rule whose pattern starts with literal directories (``./secrets/**``, ``//etc/hosts``) is
looked up directly; an anchored pattern (``./.env.*``) lists only as deep as it has parts; a
pattern matching at any depth (``.env``, ``**/*.pem``) walks the tree below its literal part
(git's ``.git`` aside), at most :data:`MAX_ENTRIES` entries, and skips what it cannot read.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

from agent.permissions.rule import Rule

MAX_ENTRIES = 50_000
"""Entries one rule's walk visits at most (a huge tree: the rest is not masked)."""


class DeniedPaths:
    """:func:`denied_paths` for one session, remembered between commands: a walk is done again
    only when a directory it listed has changed since (its mtime), so that a rule matching at
    any depth costs one ``stat`` per directory, not a walk, per command."""

    def __init__(self) -> None:
        self._key: tuple[tuple[str, ...], Path] | None = None
        self._dirs: dict[str, int] = {}
        self._found: tuple[Path, ...] = ()

    def find(self, rules: Iterable[Rule], workspace: Path) -> tuple[Path, ...]:
        """The existing real paths ``rules`` name now (see :func:`denied_paths`)."""
        rules = list(rules)
        key = (tuple(sorted(str(r) for r in rules)), Path(workspace))
        if key == self._key and self._unchanged():
            return self._found
        dirs: dict[str, int] = {}
        self._found = denied_paths(rules, workspace, dirs)
        self._key, self._dirs = key, dirs
        return self._found

    def _unchanged(self) -> bool:
        for folder, mtime in self._dirs.items():
            try:
                if os.stat(folder).st_mtime_ns != mtime:
                    return False
            except OSError:
                return False
        return True


def denied_paths(
    rules: Iterable[Rule], workspace: Path, listed: dict[str, int] | None = None
) -> tuple[Path, ...]:
    """The existing real paths the Read deny ``rules`` name (directories not descended).

    Args:
        rules: the policy's read deny rules (``Policy.read_rules``).
        workspace: the workspace (relative patterns are taken from it).
        listed: filled with every directory listed and its mtime (for :class:`DeniedPaths`),
            and the literal paths looked up (mtime -1 when missing).
    """
    from agent.permissions.paths import compile_spec

    listed = {} if listed is None else listed
    found: dict[Path, None] = {}
    for rule in rules:
        spec = rule.specifier
        if not spec:
            continue
        specs = [spec, "/" + spec] if spec.startswith("/") and not spec.startswith("//") else [spec]
        for one in specs:
            base, pat, matcher = compile_spec(one, workspace)
            parent = os.path.dirname(base)
            listed.setdefault(parent, _mtime(parent))  # the base appearing changes its parent
            if not os.path.lexists(base):
                continue
            if matcher is None or pat.rstrip("/") in ("/**", "**"):
                found.setdefault(Path(os.path.realpath(base)))
                continue
            if os.path.isdir(base):
                for path in _walk(base, matcher.match_file, _depth(pat), listed):
                    found.setdefault(path)
    return tuple(found)


def _mtime(path: str) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return -1


def _depth(pattern: str) -> int | None:
    """How deep a pattern can match below its base: the number of its parts when it is
    anchored (``/.env.*``: 1) and has no ``**``; None (any depth) otherwise."""
    if not pattern.startswith("/") or "**" in pattern:
        return None
    return len([p for p in pattern.strip("/").split("/") if p])


def _walk(
    base: Path, matches: Callable[[str], object], depth: int | None, listed: dict[str, int]
) -> list[Path]:
    """The paths below ``base`` (at most ``depth`` levels) whose relative path ``matches``
    (a directory that matches is not descended into; git's own ``.git`` is not walked).
    Each directory listed goes into ``listed`` with its mtime."""
    out: list[Path] = []
    stack: list[tuple[str, str, int]] = [(str(base), "", 1)]
    seen = 0
    while stack and seen < MAX_ENTRIES:
        folder, prefix, level = stack.pop()
        try:
            listed[folder] = os.stat(folder).st_mtime_ns
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            seen += 1
            rel = prefix + entry.name
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if matches(rel + "/" if is_dir else rel) or (is_dir and matches(rel)):
                out.append(Path(os.path.realpath(entry.path)))
            elif is_dir and entry.name != ".git" and (depth is None or level < depth):
                stack.append((entry.path, rel + "/", level + 1))
    return out
