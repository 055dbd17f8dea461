"""The files of a tree as Glob and the @ index see them: ripgrep's walk, eddy's ignore rules.

rg lists a tree in native code (``rg --files``); the pure-Python walk of :mod:`tools.ignore`
lists the same files, and runs when there is no rg (or rg fails). Both apply eddy's ignore rules
(see :mod:`tools.ignore`): ``.gitignore``, ``.ignore``, ``.rgignore`` and ``.git/info/exclude``
in the walked directories, hidden files included, ``.git`` skipped, symbolic links neither
followed nor listed, and no global excludes file (rg runs with ``--no-ignore-global``).

Ignore files *above* the starting directory: eddy reads them up to the git repository's root,
or up to the workspace outside a repository (an ignore file in the home directory must not hide
a project); rg (``--no-require-git``) reads them up to ``/``. Where no directory above eddy's
last one holds an ignore file or a ``.git``, both read the same files, and rg reads them itself
(the common case). Elsewhere rg runs with ``--no-ignore-parent`` and the ancestors' rules are
applied to what it lists: a path none of their patterns touches keeps rg's verdict; one they
touch is judged again by the full rules, directory by directory, as the Python walk would. An
ancestor ``.ignore`` or ``.rgignore`` with a ``!`` line could re-include what a ``.gitignore``
inside the tree hides, which rg never lists: then the Python walk runs instead. (Known
difference, in that mode only: an ancestor ``.gitignore``'s ``!`` line does not re-include a
file that the ``.git/info/exclude`` of a repository nested inside the tree excludes.)

``newest_files`` serves Glob's newest-first cut: rg sorts by modification time itself
(``--sortr=modified``: it stats the files on one thread, cheaper than a parallel walk whose
every file is then stat'ed in Python: 153-168 against 218 ms of CPU for ``**/*.py`` on a
50,000-file tree), in one process per CPU, each walking the whole tree but for the top-level
directories given to the others (``--glob=!/name/``, which excludes without re-including
anything), and only the head of each list is read.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import select
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from tools.childenv import child_env
from tools.ignore import (
    ALWAYS_SKIPPED,
    GITIGNORE_RANK,
    IGNORE_FILES,
    IgnoreRules,
    ancestors_read,
    respect_gitignore,
    walk_files,
)

NAME_TYPE = "eddyglob"
"""The rg file type that carries a pattern's file-name globs (``--type-add``)."""

_POLL_S = 0.05
"""How often a listing checks whether it was stopped."""
_CHUNK = 1 << 16
_PIPE_BYTES = 1 << 20
_GLOB_SPECIAL = str.maketrans({c: "\\" + c for c in "*?[]{}\\!"})


def find_rg() -> str | None:
    """The ripgrep executable: the one the ``ripgrep`` package installed beside
    ``sys.executable`` (the version eddy is tested with), else the first on PATH; None
    without one."""
    candidate = Path(sys.executable).parent / "rg"
    if os.access(candidate, os.X_OK):
        return str(candidate)
    return shutil.which("rg")


def printable(text: str) -> str:
    """``text`` with the undecodable bytes of file names (their surrogate escapes) as U+FFFD,
    as rg prints them: what goes to the model must be valid UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return text


def rg_files_command(
    rg: str,
    start: str,
    max_depth: int | None = None,
    names: tuple[str, ...] = (),
    *,
    parents: bool = True,
    newest_first: bool = False,
    skipped: tuple[str, ...] = (),
) -> list[str]:
    """The ``rg --files`` command line for eddy's rules below ``start``.

    Args:
        rg: the ripgrep executable.
        start: the directory to list (absolute).
        max_depth: the deepest level listed (1: the files of ``start``).
        names: file-name globs (rg's type globs); only files matching one are listed.
        parents: let rg read the ignore files above ``start`` (see the module's docstring).
        newest_first: sorted by modification time, newest first (rg then walks on one thread).
        skipped: names of ``start``'s subdirectories to leave out (rg must run in ``start``).
    """
    cmd = [rg, "--files", "--null", "--no-config", "--no-messages", "--hidden"]
    cmd += ["--no-require-git", "--no-ignore-global", "--glob=!.git"]
    if not parents:
        cmd.append("--no-ignore-parent")
    if not respect_gitignore():
        cmd.append("--no-ignore-vcs")
    if max_depth is not None:
        cmd.append(f"--max-depth={max_depth}")
    if names:
        cmd += [f"--type-add={NAME_TYPE}:{name}" for name in names]
        cmd.append(f"--type={NAME_TYPE}")
    cmd += [f"--glob=!/{name.translate(_GLOB_SPECIAL)}/" for name in skipped]
    if newest_first:
        cmd.append("--sortr=modified")
    return [*cmd, "--", start]


def rg_reads_eddys_parents(start: Path, workspace: Path | None) -> bool:
    """Whether rg, reading every ignore file above ``start``, reads exactly those eddy reads:
    no directory above the topmost one eddy reads (or above ``start``) holds one, nor a
    ``.git`` (whose ``info/exclude`` rg would read)."""
    chain = ancestors_read(start, workspace)
    top = chain[0] if chain else start
    names = [name for name, _rank in IGNORE_FILES] + [ALWAYS_SKIPPED]
    return not any(os.path.lexists(d / n) for d in top.parents for n in names)


class _Listing:
    """How rg lists ``start``: reading the ignore files above it itself, or not (then
    ``judge`` applies them, or only the Python walk is exact: ``exact`` is False)."""

    def __init__(self, start: Path, workspace: Path | None) -> None:
        self.prefix = str(start).rstrip("/") + "/"
        self.parents = rg_reads_eddys_parents(start, workspace)
        self.judge: _AncestorFilter | None = None
        self.exact = True
        if not self.parents:
            ancestors = IgnoreRules.for_start(start, workspace)
            self.exact = not ancestors.negates_above(GITIGNORE_RANK)
            if ancestors:
                self.judge = _AncestorFilter(self.prefix, ancestors)

    def keeps(self, rel: str) -> bool:
        """Whether eddy's rules keep a file rg listed."""
        return self.judge is None or self.judge.keeps(rel)


def iter_files(
    start: Path,
    workspace: Path | None = None,
    *,
    max_depth: int | None = None,
    names: tuple[str, ...] = (),
    keep: Callable[[str], object] | None = None,
    stop: threading.Event | None = None,
    backend: str | None = None,
) -> Iterator[str]:
    """Absolute paths of the files below ``start`` that eddy's ignore rules let through, as
    they are found (rg's parallel walk is streamed: a caller's work on each overlaps it).

    The order is unspecified: callers sort.

    Args:
        start: the directory to list (absolute, real).
        workspace: the workspace root, above which no ignore file is read outside a repository.
        max_depth: the deepest level listed (1: the files of ``start``).
        names: file-name globs that every wanted file matches (a pre-filter run by rg; files
            outside it may be listed all the same without rg).
        keep: ``rel -> truthy``: whether to list a file, given its path relative to ``start``
            with ``/`` separators.
        stop: set it to end the listing early (it then ends, having listed part of the tree).
        backend: ``"python"`` forces the Python walk (tests); otherwise rg runs when it is there
            and its listing is exact (see the module's docstring).
    """
    rg = find_rg() if backend != "python" else None
    how = _Listing(start, workspace) if rg is not None else None
    if rg is not None and how is not None and how.exact:
        skip = len(how.prefix)
        cmd = rg_files_command(rg, str(start), max_depth, names, parents=how.parents)
        try:
            for path in _read_paths(_start_rg(cmd, start), stop):
                rel = path[skip:]
                if (keep is None or keep(rel)) and how.keeps(rel):
                    yield path
            return
        except _RgUnusable:
            pass
    yield from _walk(str(start), IgnoreRules.for_start(start, workspace), max_depth, keep, stop)


def list_files(start: Path, workspace: Path | None = None, **kw: Any) -> list[str]:
    """``iter_files``'s paths as a list (same arguments)."""
    return list(iter_files(start, workspace, **kw))


def newest_files(
    start: Path,
    workspace: Path | None,
    limit: int,
    *,
    max_depth: int | None = None,
    names: tuple[str, ...] = (),
    keep: Callable[[str], object] | None = None,
    wanted: Callable[[str], bool] | None = None,
    stop: threading.Event | None = None,
    processes: int | None = None,
) -> tuple[list[str], bool] | None:
    """The ``limit`` newest files below ``start`` (newest first, then by path), and whether
    more matched; None when rg cannot do it (then list with ``iter_files`` and sort).

    Of each rg process's list (see the module's docstring) only the head is read: its first
    ``limit + 1`` files that the filters keep, and any as new as the last of them (a tie is
    broken by path).

    Args:
        start: the directory to list (absolute, real).
        workspace: the workspace root, above which no ignore file is read outside a repository.
        limit: how many files are wanted.
        max_depth: the deepest level listed (1: the files of ``start``).
        names: file-name globs that every wanted file matches (rg's type filter).
        keep: ``rel -> truthy``: whether a file's path relative to ``start`` is wanted.
        wanted: ``path -> bool``: a last filter (read deny rules), asked only of the heads.
        stop: set it to end the listing early.
        processes: how many rg processes at most (default: one per CPU, up to 4).
    """
    rg = find_rg()
    if rg is None:
        return None
    how = _Listing(start, workspace)
    if not how.exact:
        return None
    count = processes or min(os.cpu_count() or 1, 4)
    shares = _shares(start, count) if max_depth != 1 else [()]
    heads: dict[str, int] = {}
    procs: list[subprocess.Popen[bytes]] = []
    try:
        # all processes start at once: each works while the lists before its own are read
        for skipped in shares:
            cmd = rg_files_command(
                rg,
                str(start),
                max_depth,
                names,
                parents=how.parents,
                newest_first=True,
                skipped=skipped,
            )
            procs.append(_start_rg(cmd, start))
        for proc in procs:
            listing = _read_paths(proc, stop)
            for key, path in _head(listing, how, limit, keep, wanted):
                heads[path] = key  # start's own files are in every list
    except _RgUnusable:
        return None
    finally:
        for proc in procs:
            _end(proc)
    ordered = sorted((key, path) for path, key in heads.items())
    return [path for _key, path in ordered[:limit]], len(ordered) > limit


def _shares(start: Path, count: int) -> list[tuple[str, ...]]:
    """For each rg process, the names of ``start``'s subdirectories it leaves to the others
    (round robin by name); one process when there are fewer than two subdirectories, or a
    name that is not text (rg's globs are)."""
    try:
        with os.scandir(start) as it:
            dirs = sorted(
                e.name for e in it if e.name != ALWAYS_SKIPPED and e.is_dir(follow_symlinks=False)
            )
    except OSError:
        return [()]
    count = min(count, len(dirs))
    if count < 2 or any(printable(name) != name for name in dirs):
        return [()]
    groups = [dirs[i::count] for i in range(count)]
    return [
        tuple(d for j, group in enumerate(groups) if j != i for d in group) for i in range(count)
    ]


def _head(
    listing: Iterator[str],
    how: _Listing,
    limit: int,
    keep: Callable[[str], object] | None,
    wanted: Callable[[str], bool] | None,
) -> list[tuple[int, str]]:
    """The first ``limit + 1`` kept files of a list sorted newest first, and those as new as
    the last of them, as ``(-mtime_ns, path)``."""
    head: list[tuple[int, str]] = []
    skip = len(how.prefix)
    for path in listing:
        rel = path[skip:]
        if (keep is not None and not keep(rel)) or not how.keeps(rel):
            continue
        if wanted is not None and not wanted(path):
            continue
        try:
            key = -os.stat(path).st_mtime_ns
        except OSError:  # gone since it was listed
            continue
        if len(head) > limit and key > head[limit][0]:
            break  # older than the last one wanted: so is the rest
        head.append((key, path))
    return head


def _walk(
    root: str,
    rules: IgnoreRules,
    max_depth: int | None,
    keep: Callable[[str], object] | None,
    stop: threading.Event | None,
) -> Iterator[str]:
    def keep_entry(path: str, rel: str, is_dir: bool, inner: IgnoreRules) -> bool:
        # the caller's test first: it is cheaper than the ignore rules, and rules out most files
        wanted = is_dir or keep is None or keep(rel)
        return bool(wanted) and not inner.ignored(path, is_dir)

    for path, _rel in walk_files(root, rules, max_depth=max_depth, stop=stop, keep=keep_entry):
        yield path


class _RgUnusable(Exception):
    """rg could not start, or failed before listing anything (an old rg refusing an option,
    say): the Python walk lists the tree instead."""


def _start_rg(cmd: list[str], cwd: Path) -> subprocess.Popen[bytes]:
    """Start rg in ``cwd``, its output on a pipe (a large one where Linux allows: rg waits
    less).

    Raises:
        _RgUnusable: when it cannot start.
    """
    try:
        proc = subprocess.Popen(
            cmd,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=child_env(),
        )
    except OSError:
        raise _RgUnusable from None
    assert proc.stdout is not None
    with contextlib.suppress(OSError, AttributeError):
        fcntl.fcntl(proc.stdout.fileno(), fcntl.F_SETPIPE_SZ, _PIPE_BYTES)
    return proc


def _end(proc: subprocess.Popen[bytes]) -> None:
    """Kill rg if it still runs, and reap it."""
    if proc.poll() is None:
        proc.kill()
    if proc.stdout is not None:
        proc.stdout.close()
    proc.wait()


def _read_paths(proc: subprocess.Popen[bytes], stop: threading.Event | None) -> Iterator[str]:
    """The paths a started rg prints, as they come; rg is killed when the caller stops early
    (or ``stop`` is set).

    Raises:
        _RgUnusable: before yielding anything, when rg failed without printing anything (an
            old rg refusing an option, say).
    """
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    encoding, errors = sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()
    pending = b""
    listed = False
    try:
        while True:
            if stop is not None:
                while not select.select([fd], [], [], _POLL_S)[0]:
                    if stop.is_set():
                        return
                if stop.is_set():
                    return
            chunk = os.read(fd, _CHUNK)
            if not chunk:
                break
            *names, pending = (pending + chunk).split(b"\0")
            for name in names:
                listed = True
                yield name.decode(encoding, errors)
    finally:
        _end(proc)
    if proc.returncode == 2 and not listed:
        raise _RgUnusable


class _AncestorFilter:
    """Applies the rules of the ignore files above the listed directory to what rg listed
    (run with ``--no-ignore-parent``).

    Args:
        prefix: the listed directory, ending with ``/``.
        ancestors: the rules of its ancestors (``IgnoreRules.for_start``).
    """

    def __init__(self, prefix: str, ancestors: IgnoreRules) -> None:
        self.prefix = prefix
        self.ancestors = ancestors
        self._touched: dict[str, bool] = {"": False}
        self._dir_kept: dict[str, bool] = {"": True}
        self._rules: dict[str, IgnoreRules] = {}

    def keeps(self, rel: str) -> bool:
        """Whether the full rules keep the file ``rel`` (relative to the listed directory)
        that rg listed."""
        parent = rel.rpartition("/")[0]
        # untouched by the ancestors' patterns, rg's verdict stands; else the full rules'
        touched = self._dir_touched(parent) or (
            self.ancestors.decide(self.prefix + rel, False) is not None
        )
        return not touched or self._full_kept(rel, parent)

    def _dir_touched(self, rel_dir: str) -> bool:
        """Whether an ancestor pattern matches ``rel_dir`` or a directory above it."""
        found = self._touched.get(rel_dir)
        if found is None:
            above = self._dir_touched(rel_dir.rpartition("/")[0])
            found = above or self.ancestors.decide(self.prefix + rel_dir, True) is not None
            self._touched[rel_dir] = found
        return found

    def _rules_in(self, rel_dir: str) -> IgnoreRules:
        """The full rules in force inside ``rel_dir`` (ancestors' and the tree's own)."""
        rules = self._rules.get(rel_dir)
        if rules is None:
            if rel_dir:
                rules = self._rules_in(rel_dir.rpartition("/")[0]).enter(self.prefix + rel_dir)
            else:
                rules = self.ancestors.enter(self.prefix)
            self._rules[rel_dir] = rules
        return rules

    def _kept_dir(self, rel_dir: str) -> bool:
        """Whether the walk enters ``rel_dir`` (no directory on the way is ignored)."""
        kept = self._dir_kept.get(rel_dir)
        if kept is None:
            parent = rel_dir.rpartition("/")[0]
            kept = self._kept_dir(parent) and not self._rules_in(parent).ignored(
                self.prefix + rel_dir, True
            )
            self._dir_kept[rel_dir] = kept
        return kept

    def _full_kept(self, rel: str, parent: str) -> bool:
        return self._kept_dir(parent) and not self._rules_in(parent).ignored(
            self.prefix + rel, False
        )
