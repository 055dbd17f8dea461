"""The files of a tree as Glob and the @ index see them: ripgrep's parallel walk, eddy's rules.

``rg --files`` lists a tree on every core; the pure-Python walk of :mod:`tools.ignore` lists the
same files on one, and runs when there is no rg (or rg fails). Both apply eddy's ignore rules
(see :mod:`tools.ignore`): ``.gitignore``, ``.ignore``, ``.rgignore`` and ``.git/info/exclude``
in the walked directories, hidden files included, ``.git`` skipped, symbolic links neither
followed nor listed, and no global excludes file (rg runs with ``--no-ignore-global``).

Ignore files *above* the starting directory are eddy's business, not rg's: rg would read them up
to ``/`` (``--no-require-git``), where eddy reads them up to the git repository's root, or up to
the workspace outside a repository (an ignore file in the home directory must not hide a
project). So rg runs with ``--no-ignore-parent`` and the ancestors' rules are applied to what it
lists: a path none of their patterns touches keeps rg's verdict; one they touch is judged again
by the full rules, directory by directory, as the Python walk would. An ancestor ``.ignore`` or
``.rgignore`` with a ``!`` line could re-include what a ``.gitignore`` inside the tree hides,
which rg never lists: then the Python walk runs instead.

Known difference: an ancestor ``.gitignore``'s ``!`` line does not re-include a file that the
``.git/info/exclude`` of a repository nested *inside* the tree excludes (the Python walk
would).
"""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from tools.childenv import child_env
from tools.grep_rg import find_rg
from tools.ignore import GITIGNORE_RANK, IgnoreRules, respect_gitignore, walk_files

NAME_TYPE = "eddyglob"
"""The rg file type that carries a pattern's file-name globs (``--type-add``)."""

_POLL_S = 0.05
"""How often a listing checks whether it was stopped."""


def printable(text: str) -> str:
    """``text`` with the undecodable bytes of file names (their surrogate escapes) as U+FFFD,
    as rg prints them: what goes to the model must be valid UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return text


def rg_files_command(
    rg: str, start: str, max_depth: int | None = None, names: tuple[str, ...] = ()
) -> list[str]:
    """The ``rg --files`` command line for eddy's rules below ``start``.

    Args:
        rg: the ripgrep executable.
        start: the directory to list (absolute).
        max_depth: the deepest level listed (1: the files of ``start``).
        names: file-name globs (rg's type globs); only files matching one are listed.
    """
    cmd = [rg, "--files", "--null", "--no-config", "--no-messages", "--hidden"]
    cmd += ["--no-require-git", "--no-ignore-parent", "--no-ignore-global", "--glob=!.git"]
    if not respect_gitignore():
        cmd.append("--no-ignore-vcs")
    if max_depth is not None:
        cmd.append(f"--max-depth={max_depth}")
    if names:
        cmd += [f"--type-add={NAME_TYPE}:{name}" for name in names]
        cmd.append(f"--type={NAME_TYPE}")
    return [*cmd, "--", start]


def list_files(
    start: Path,
    workspace: Path | None = None,
    *,
    max_depth: int | None = None,
    names: tuple[str, ...] = (),
    keep: Callable[[str], object] | None = None,
    stop: threading.Event | None = None,
    backend: str | None = None,
) -> list[str]:
    """Absolute paths of the files below ``start`` that eddy's ignore rules let through.

    The order is unspecified (rg's walk is parallel): callers sort.

    Args:
        start: the directory to list (absolute, real).
        workspace: the workspace root, above which no ignore file is read outside a repository.
        max_depth: the deepest level listed (1: the files of ``start``).
        names: file-name globs that every wanted file matches (a pre-filter run by rg; files
            outside it may be listed all the same without rg).
        keep: ``rel -> truthy``: whether to list a file, given its path relative to ``start``
            with ``/`` separators.
        stop: set it to end the listing early (it then returns what it has, or nothing).
        backend: ``"python"`` forces the Python walk (tests); otherwise rg runs when it is there
            and the rules allow (see the module's docstring).
    """
    root = str(start)
    ancestors = IgnoreRules.for_start(start, workspace)
    rg = find_rg() if backend != "python" else None
    if rg is not None and not ancestors.negates_above(GITIGNORE_RANK):
        listed = _rg_list(rg_files_command(rg, root, max_depth, names), stop)
        if listed is not None:
            prefix = root.rstrip("/") + "/"
            skip = len(prefix)
            rels = [p[skip:] for p in listed if p.startswith(prefix)]
            if keep is not None:
                rels = [r for r in rels if keep(r)]
            if ancestors:
                rels = _AncestorFilter(prefix, ancestors).kept(rels)
            return [prefix + r for r in rels]
    return _walk(root, ancestors, max_depth, keep, stop)


def _walk(
    root: str,
    rules: IgnoreRules,
    max_depth: int | None,
    keep: Callable[[str], object] | None,
    stop: threading.Event | None,
) -> list[str]:
    def keep_entry(path: str, rel: str, is_dir: bool, inner: IgnoreRules) -> bool:
        # the caller's test first: it is cheaper than the ignore rules, and rules out most files
        wanted = is_dir or keep is None or keep(rel)
        return bool(wanted) and not inner.ignored(path, is_dir)

    walk = walk_files(root, rules, max_depth=max_depth, stop=stop, keep=keep_entry)
    return [path for path, _rel in walk]


def _rg_list(cmd: list[str], stop: threading.Event | None) -> list[str] | None:
    """The paths rg prints; None when it could not run or failed with nothing listed (an old
    rg refusing an option, say): the Python walk then lists the tree."""
    try:
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=child_env(),
        )
    except OSError:
        return None
    try:
        while True:
            try:
                out, _ = proc.communicate(timeout=None if stop is None else _POLL_S)
                break
            except subprocess.TimeoutExpired:
                if stop is not None and stop.is_set():
                    return []
    finally:
        if proc.returncode is None:
            proc.kill()
            proc.communicate()
    if proc.returncode == 2 and not out:
        return None
    names = out.decode(sys.getfilesystemencoding(), sys.getfilesystemencodeerrors())
    return [p for p in names.split("\0") if p]


class _AncestorFilter:
    """Applies the rules of the ignore files above the listed directory to rg's list.

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

    def kept(self, rels: list[str]) -> list[str]:
        """The paths (relative, files) that the full rules keep, in their order."""
        out = []
        decide = self.ancestors.decide
        for rel in rels:
            parent = rel.rpartition("/")[0]
            # untouched by the ancestors' patterns, rg's verdict stands; else the full rules'
            touched = self._dir_touched(parent) or decide(self.prefix + rel, False) is not None
            if not touched or self._full_kept(rel, parent):
                out.append(rel)
        return out

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
