"""Ignore rules (.gitignore and friends) and a pruning directory walk, shared by Glob and Grep.

The rules follow ripgrep's (which Grep runs when it can), so that the pure-Python search sees
the same files:

- ``.gitignore``, ``.ignore`` and ``.rgignore`` files are read in every directory walked and in
  the ancestors of the starting directory (up to the git repository root; outside a repository
  up to the workspace root); ``.git/info/exclude`` at the repository root too.
- A pattern is matched relative to the directory of the file that holds it; the last matching
  pattern of a file decides; a deeper file beats a shallower one; and between kinds,
  ``.rgignore`` beats ``.ignore`` beats ``.gitignore`` beats ``.git/info/exclude``.
- An ignored directory is pruned: nothing below it is read, so an ignored ``node_modules`` costs
  one directory entry. ``.git`` is always skipped. Hidden files are included. Symbolic links
  are not followed nor listed (rg's default; neither are special files).
- The starting path itself is never checked (like an explicit path given to ``rg``).

Unlike rg: git's global excludes file (``core.excludesFile``) is not read, and outside a git
repository no ignore file above the workspace is (rg, run with ``--no-require-git``, reads the
ancestors' up to ``/``).
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported when first needed: it costs ~10 ms at start-up
    from pathspec import GitIgnoreSpec

GITIGNORE_RANK = 2
IGNORE_FILES: tuple[tuple[str, int], ...] = (
    (".gitignore", GITIGNORE_RANK),
    (".ignore", 1),
    (".rgignore", 0),
)
"""Ignore file names read in each directory, with their rank (lower is checked first)."""

_EXCLUDE_RANK = 3
ALWAYS_SKIPPED = ".git"
_VCS_FILES = frozenset({".gitignore"})
_respect_vcs = True


def respect_gitignore(flag: bool | None = None) -> bool:
    """Whether ``.gitignore`` and ``.git/info/exclude`` hide files (the ``respectGitignore``
    setting, as Claude Code's; ``.ignore`` and ``.rgignore`` always count, like rg's
    ``--no-ignore-vcs``). With ``flag``, set it for the process first; returns the value."""
    global _respect_vcs
    if flag is not None:
        _respect_vcs = flag
    return _respect_vcs


@dataclass(frozen=True)
class _Frame:
    base: str
    """The directory holding the rules, ending with a separator."""
    rank: int
    depth: int
    patterns: PatternSet


class PatternSet:
    """The patterns of one ignore file, matched the way git and ripgrep match them.

    pathspec compiles each gitignore line to a regex that also matches the paths *below* a
    matching directory; during a pruning walk those never come up, except below an explicitly
    given starting directory, which git and ripgrep search all the same. So a match that only
    covers a parent directory (the ``ps_d`` group ends before the path does) is not counted.
    """

    __slots__ = ("any", "negates", "rules")

    def __init__(self, spec: GitIgnoreSpec) -> None:
        self.rules: list[tuple[re.Pattern[str], bool, bool]] = []
        plain = []
        for pattern in spec.patterns:
            regex, include = getattr(pattern, "regex", None), pattern.include
            if regex is None or include is None:
                continue
            self.rules.append((regex, include, "ps_d" in regex.groupindex))
            plain.append(regex.pattern.replace("(?P<ps_d>/)", "/"))
        self.rules.reverse()  # the last matching line decides
        self.negates = any(not include for _regex, include, _d in self.rules)  # a "!" line
        self.any = re.compile("|".join(f"(?:{p})" for p in plain)) if plain else None

    def decide(self, text: str) -> bool | None:
        """True / False for the last line matching ``text`` (positive / ``!``), else None.

        ``text`` is relative to the rules' directory, ``/``-separated, with a trailing ``/``
        for a directory.
        """
        if self.any is None or self.any.match(text) is None:
            return None
        for regex, include, has_dir_group in self.rules:
            m = regex.match(text)
            if m is None:
                continue
            if has_dir_group and m.start("ps_d") >= 0 and m.end("ps_d") != len(text):
                continue  # matched a parent directory of the path, not the path
            return include
        return None


def compile_patterns(lines: list[str]) -> PatternSet | None:
    """The gitignore-style ``lines`` as a PatternSet; None when no line is a pattern."""
    from pathspec import GitIgnoreSpec

    try:
        spec = GitIgnoreSpec.from_lines(lines)
    except Exception:  # a malformed line must not break the search (git skips it too)
        spec = GitIgnoreSpec.from_lines([ln for ln in lines if _valid_line(ln)])
    patterns = PatternSet(spec)
    return patterns if patterns.rules else None


def _read_patterns(path: str) -> PatternSet | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return compile_patterns(f.read().splitlines())
    except OSError:
        return None


def _valid_line(line: str) -> bool:
    from pathspec import GitIgnoreSpec

    try:
        GitIgnoreSpec.from_lines([line])
    except Exception:
        return False
    return True


class IgnoreRules:
    """An immutable stack of ignore files: those of a directory and of its ancestors."""

    __slots__ = ("_frames", "_order")

    def __init__(self, frames: tuple[_Frame, ...] = ()) -> None:
        self._frames = frames
        # The order in which frames are asked: by kind, then deepest first.
        self._order = sorted(frames, key=lambda f: (f.rank, -f.depth))

    def __bool__(self) -> bool:
        return bool(self._frames)

    def enter(self, directory: str, names: Iterable[str] | None = None) -> IgnoreRules:
        """The rules in force inside ``directory`` (given the names it contains, if known)."""
        present = set(names) if names is not None else None
        base = directory.rstrip(os.sep) + os.sep
        depth = base.count(os.sep)
        added = []
        for name, rank in IGNORE_FILES:
            if (present is not None and name not in present) or (
                name in _VCS_FILES and not _respect_vcs
            ):
                continue
            spec = _read_patterns(base + name)
            if spec is not None:
                added.append(_Frame(base, rank, depth, spec))
        vcs = _respect_vcs and (present is None or ALWAYS_SKIPPED in present)
        if vcs and os.path.isdir(base + ".git"):
            spec = _read_patterns(os.path.join(base, ".git", "info", "exclude"))
            if spec is not None:
                added.append(_Frame(base, _EXCLUDE_RANK, depth, spec))
        return IgnoreRules(self._frames + tuple(added)) if added else self

    def negates_above(self, rank: int) -> bool:
        """Whether a file of a kind checked before ``rank`` (lower rank: ``.rgignore`` 0,
        ``.ignore`` 1, ``.gitignore`` 2, ``.git/info/exclude`` 3) has a ``!`` line."""
        return any(f.rank < rank and f.patterns.negates for f in self._frames)

    def decide(self, path: str, is_dir: bool) -> bool | None:
        """True if ignored, False if re-included by a ``!`` pattern, None if no rule matches."""
        for frame in self._order:
            if not path.startswith(frame.base):
                continue
            rel = path[len(frame.base) :]
            if os.sep != "/":
                rel = rel.replace(os.sep, "/")
            result = frame.patterns.decide(rel + "/" if is_dir else rel)
            if result is not None:
                return result
        return None

    def ignored(self, path: str, is_dir: bool) -> bool:
        """Whether ``path`` (absolute) is ignored by these rules."""
        return self.decide(path, is_dir) is True

    @classmethod
    def for_start(cls, start: Path, workspace: Path | None = None) -> IgnoreRules:
        """The rules of the ancestors of ``start`` (not of ``start`` itself; ``enter`` does that).

        Inside a git repository the ancestors are read up to its root (the nearest directory
        holding ``.git``), as git and rg do, even above the workspace (a workspace may be a part
        of a larger repository). Outside one they are read up to the workspace root when
        ``start`` lies in the workspace, and not at all otherwise: an ignore file in, say, the
        home directory must not hide a whole project that is not under git.
        """
        rules = cls()
        for directory in ancestors_read(start, workspace):
            rules = rules.enter(str(directory))
        return rules


def ancestors_read(start: Path, workspace: Path | None = None) -> list[Path]:
    """The ancestors of ``start`` whose ignore files apply below it, the topmost first (see
    ``IgnoreRules.for_start``)."""
    if (start / ".git").exists():
        return []
    chain: list[Path] = []
    for parent in start.parents:
        chain.append(parent)
        if (parent / ".git").exists():
            break
    else:
        if workspace is not None and workspace in chain:
            chain = chain[: chain.index(workspace) + 1]
        else:
            chain = []
    return chain[::-1]


Keep = Callable[[str, str, bool, IgnoreRules], bool]
"""``(path, rel, is_dir, rules) -> bool``: whether to yield a file / descend into a directory."""


def keep_unignored(path: str, _rel: str, is_dir: bool, rules: IgnoreRules) -> bool:
    """The default walk filter: everything the ignore rules do not ignore."""
    return not rules.ignored(path, is_dir)


_OpenDir = tuple[Iterator[os.DirEntry[str]], str, IgnoreRules, int]
"""A directory being walked: its entries left, its relative path (with a trailing ``/``, or
"" for the root), the rules in force in it, its depth (1: the root)."""


def _open_dir(
    directory: str, rel: str, parent_rules: IgnoreRules, depth: int, sort: bool
) -> _OpenDir | None:
    """``directory`` (``rel`` below the root) opened one level below ``depth``: its entries
    (sorted by name if ``sort``) and its own ignore files read; None when it cannot be
    listed."""
    try:
        with os.scandir(directory) as it:
            entries = list(it)
    except OSError:
        return None
    inner = parent_rules.enter(directory, [e.name for e in entries])
    if sort:
        entries.sort(key=lambda e: e.name)
    return iter(entries), rel, inner, depth + 1


def _descend(
    entry: os.DirEntry[str],
    rel: str,
    rules: IgnoreRules,
    depth: int,
    max_depth: int | None,
    keep: Keep,
    sort: bool,
) -> _OpenDir | None:
    """The subdirectory ``entry`` of a directory at ``depth`` opened, or None when the walk
    does not go into it (too deep, not kept, unreadable)."""
    if max_depth is not None and depth >= max_depth:
        return None
    if not keep(entry.path, rel, True, rules):
        return None
    return _open_dir(entry.path, rel + "/", rules, depth, sort)


def walk_files(
    root: str,
    rules: IgnoreRules,
    *,
    sort: bool = False,
    max_depth: int | None = None,
    stop: threading.Event | None = None,
    keep: Keep = keep_unignored,
) -> Iterator[tuple[str, str]]:
    """Yield ``(path, rel)`` for each file below ``root`` that ``keep`` accepts.

    Args:
        root: an absolute directory path (its own ignore files are read).
        rules: the rules of ``root``'s ancestors (see ``IgnoreRules.for_start``).
        sort: walk depth first with each directory's entries sorted by name (ripgrep's
            ``--sort path`` order); otherwise the order is the file system's.
        max_depth: the deepest level to yield files from (1: the files of ``root``).
        stop: when set, the walk ends early (the caller was cancelled).
        keep: decides for each file and directory (by default: the ignore rules); it gets the
            rules in force in the entry's directory.

    ``rel`` is the path relative to ``root`` with ``/`` separators.
    """
    root = root.rstrip(os.sep) or os.sep
    top = _open_dir(root, "", rules, 0, sort)
    stack: list[_OpenDir] = [top] if top is not None else []
    while stack:
        if stop is not None and stop.is_set():
            return
        entries, rel_dir, inner, depth = stack[-1]
        entry = next(entries, None)
        if entry is None:
            stack.pop()
            continue
        if entry.name == ALWAYS_SKIPPED:
            continue
        rel = rel_dir + entry.name
        try:
            if entry.is_dir(follow_symlinks=False):
                below = _descend(entry, rel, inner, depth, max_depth, keep, sort)
                if below is not None:
                    stack.append(below)
            elif entry.is_file(follow_symlinks=False) and keep(entry.path, rel, False, inner):
                yield entry.path, rel
        except OSError:
            continue
