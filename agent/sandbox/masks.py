"""What Read deny rules cover, found on disk, for the sandbox to mask.

A deny rule ``Read(./secrets/**)`` keeps the Read, Glob and Grep tools away from the files it
names, and the gate refuses shell commands that name them; a command can still reach them
without naming them (``grep -r TOKEN .``, a script). So the sandbox covers what the rules name
and exists when the command starts: a directory with an empty tmpfs, a file with ``/dev/null``
(:mod:`agent.sandbox.bwrap`). What does not exist yet is not covered (a file the command
itself creates is its own).

A rule whose pattern starts with literal directories (``./secrets/**``, ``//etc/hosts``) is
looked up directly; a pattern matching at any depth (``.env``, ``**/*.pem``) walks the tree
below its literal part, at most :data:`MAX_ENTRIES` entries, and skips what it cannot read.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

from agent.permissions.rule import Rule

MAX_ENTRIES = 50_000
"""Entries one rule's walk visits at most (a huge tree: the rest is not masked)."""


def denied_paths(rules: Iterable[Rule], workspace: Path) -> tuple[Path, ...]:
    """The existing real paths the Read deny ``rules`` name (directories not descended).

    Args:
        rules: the policy's read deny rules (``Policy.read_rules``).
        workspace: the workspace (relative patterns are taken from it).
    """
    from agent.permissions.paths import compile_spec

    found: dict[Path, None] = {}
    for rule in rules:
        spec = rule.specifier
        if not spec:
            continue
        specs = [spec, "/" + spec] if spec.startswith("/") and not spec.startswith("//") else [spec]
        for one in specs:
            base, pat, matcher = compile_spec(one, workspace)
            if not os.path.lexists(base):
                continue
            if matcher is None or pat.rstrip("/") in ("/**", "**"):
                found.setdefault(Path(os.path.realpath(base)))
                continue
            if os.path.isdir(base):
                for path in _walk(base, matcher.match_file):
                    found.setdefault(path)
    return tuple(found)


def _walk(base: Path, matches: Callable[[str], object]) -> list[Path]:
    """The paths below ``base`` whose relative path ``matches`` (a directory that matches is
    not descended into)."""
    out: list[Path] = []
    stack = [base]
    seen = 0
    while stack and seen < MAX_ENTRIES:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            seen += 1
            rel = Path(entry.path).relative_to(base).as_posix()
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if matches(rel + "/" if is_dir else rel) or (is_dir and matches(rel)):
                out.append(Path(os.path.realpath(entry.path)))
            elif is_dir:
                stack.append(Path(entry.path))
    return out
