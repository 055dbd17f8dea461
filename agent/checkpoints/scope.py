"""What is in scope for checkpoints: the workspace minus ``.git`` and what .gitignore ignores.

The rules are git's: ``.gitignore`` files in every directory (a pattern is relative to the
directory holding it), those of the workspace's ancestors up to the repository root, and the
repository's ``.git/info/exclude``. Within a file the last matching line decides; a deeper file
beats a shallower one; ``info/exclude`` comes last; nothing below an ignored directory can be
re-included (an ignored directory is never entered). ``.git`` itself is always skipped.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tools.ignore import PatternSet, compile_patterns  # one gitignore matcher for all

SKIPPED_DIR = ".git"
IGNORE_FILE = ".gitignore"


def stat_key(st: os.stat_result) -> tuple[int, int, int, int, int]:
    """What tells whether a file changed: size, mtime_ns, ctime_ns, inode and mode."""
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_mode)


@dataclass(frozen=True, slots=True)
class Frame:
    """Rules in force below ``base`` (workspace-relative, ``""`` or ending in ``/``)."""

    base: str
    prefix: str
    patterns: PatternSet


Frames = tuple[Frame, ...]
"""In the order they are asked: deepest ``.gitignore`` first, ``info/exclude`` last."""


def decide(frames: Frames, rel: str, is_dir: bool) -> bool:
    """Whether ``rel`` is ignored by ``frames`` (its parent directories are not checked)."""
    for f in frames:
        if f.base and not rel.startswith(f.base):
            continue
        verdict = f.patterns.decide(f.prefix + rel[len(f.base) :] + ("/" if is_dir else ""))
        if verdict is not None:
            return verdict
    return False


class Scope:
    """The .gitignore rules of a workspace, read from disk (cached by the files' stat)."""

    def __init__(self, root: Path) -> None:
        self.root = str(root)
        self._cache: dict[str, tuple[tuple[int, ...], PatternSet | None]] = {}

    def read(self, path: str) -> tuple[tuple[int, ...] | None, PatternSet | None]:
        """The stat key and patterns of the ignore file ``path`` (None, None if missing)."""
        try:
            st = os.stat(path)
        except OSError:
            self._cache.pop(path, None)
            return None, None
        key = stat_key(st)
        hit = self._cache.get(path)
        if hit is not None and hit[0] == key:
            return key, hit[1]
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                ps: PatternSet | None = compile_patterns(f.read().splitlines())
        except OSError:
            ps = None
        if ps is not None and not ps.rules:
            ps = None
        self._cache[path] = (key, ps)
        return key, ps

    def base_frames(self, keys: dict[str, Any] | None = None) -> Frames:
        """Frames from outside the workspace and ``.git/info/exclude`` (lowest precedence)."""
        root = Path(self.root)
        chain: list[Path] = []
        # A .git file (a worktree, a submodule) makes the workspace a repository of its own.
        repo: Path | None = root if (root / SKIPPED_DIR).exists() else None
        if repo is None:
            for parent in root.parents:
                chain.append(parent)
                if (parent / SKIPPED_DIR).exists():
                    repo = parent
                    break
            else:
                chain = []
        frames: list[Frame] = []
        for directory in chain:  # nearest (deepest) first
            prefix = root.relative_to(directory).as_posix() + "/"
            path = str(directory / IGNORE_FILE)
            key, ps = self.read(path)
            if keys is not None:
                keys[path] = key
            if ps is not None:
                frames.append(Frame("", prefix, ps))
        if repo is not None and (repo / SKIPPED_DIR).is_dir():
            path = str(repo / SKIPPED_DIR / "info" / "exclude")
            key, ps = self.read(path)
            if keys is not None:
                keys[path] = key
            if ps is not None:
                prefix = "" if repo == root else root.relative_to(repo).as_posix() + "/"
                frames.append(Frame("", prefix, ps))
        return tuple(frames)

    def live_rules(self, rel_dir: str) -> PatternSet | None:
        path = os.path.join(self.root, rel_dir, IGNORE_FILE) if rel_dir else self._root_file()
        return self.read(path)[1]

    def _root_file(self) -> str:
        return os.path.join(self.root, IGNORE_FILE)

    def out_of_scope(
        self,
        rel: str,
        is_dir: bool,
        rules_of: Callable[[str], PatternSet | None] | None = None,
        base: Frames | None = None,
    ) -> str | None:
        """Why workspace-relative ``rel`` is out of scope, or None when it is in scope.

        ``rules_of(dir)`` gives a directory's patterns (default: read from disk now).
        """
        parts = rel.split("/")
        if SKIPPED_DIR in parts:
            return "inside .git"
        rules_of = rules_of or self.live_rules
        frames = base if base is not None else self.base_frames()
        root_ps = rules_of("")
        if root_ps is not None:
            frames = (Frame("", "", root_ps), *frames)
        current = ""
        for i, part in enumerate(parts):
            current = f"{current}/{part}" if current else part
            last = i == len(parts) - 1
            if decide(frames, current, is_dir if last else True):
                return "ignored by .gitignore"
            if not last:
                ps = rules_of(current)
                if ps is not None:
                    frames = (Frame(current + "/", "", ps), *frames)
        return None
