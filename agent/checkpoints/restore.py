"""Planning and carrying out a rewind.

:func:`plan` undoes a run of entries, newest first: each path they changed goes back to its
state before the first of them changed it (its *target*). A path whose current state differs
from the one eddy last left it in (the last entry's *after*) is a conflict.

:func:`apply` puts paths into their target states, in an order that works: files and links
that must go are deleted first, then directories that must go (deepest first, and only when
empty: a directory holding anything else is kept and reported), then directories that must
come back (shallowest first), then files and links are written (through a temporary file and
``os.replace``, mode bits set before the rename), and last the directories' mode bits (one
might forbid writing inside it).
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
from collections.abc import Callable
from typing import Any

from agent.checkpoints.blobs import BlobStore
from agent.checkpoints.records import Conflict, Entry, RewindPlan, RewindResult
from agent.checkpoints.snapshot import ABSENT, DIR, FILE, LINK, State

Action = tuple[State, State, bool]
"""(current state, target state, whether it is a conflict)."""

_tmp_names = itertools.count(1)


def plan(
    entries: list[Entry], capture: Callable[[str], State]
) -> tuple[RewindPlan, dict[str, Action]]:
    """What undoing ``entries`` (oldest first) would do; ``capture`` reads a path's state now."""
    targets, last, not_restorable = _span(entries)
    result = RewindPlan(target=entries[0].id)
    actions: dict[str, Action] = {}
    for rel in sorted(targets):
        target, current = targets[rel], capture(rel)
        if target.kind == DIR and current.kind == DIR:
            if target.mode != current.mode:
                actions[rel] = (current, target, False)
                result.chmod_dirs.append(rel)
            continue
        if current.same(target):
            continue
        if not target.restorable:
            not_restorable[rel] = target.why or "its earlier content was not kept"
            continue
        conflict = not current.same(last[rel])
        if conflict:
            result.conflicts.append(Conflict(rel, _conflict_reason(current, last[rel])))
        actions[rel] = (current, target, conflict)
        _schedule(result, rel, current.kind, target.kind)
    result.not_restorable = not_restorable
    return result, actions


def _span(
    entries: list[Entry],
) -> tuple[dict[str, State], dict[str, State], dict[str, str]]:
    """Over a run of entries (oldest first): each changed path's target (its state before the
    first of them), its last state eddy left, and the paths they could not keep, with why."""
    targets: dict[str, State] = {}
    last: dict[str, State] = {}
    not_restorable: dict[str, str] = {}
    for entry in entries:
        for rel, change in entry.changes.items():
            targets.setdefault(rel, change.before)
            last[rel] = change.after if change.after is not None else change.before
        for rel, why in entry.blocked.items():
            not_restorable.setdefault(rel, why)
    return targets, last, not_restorable


def _schedule(result: RewindPlan, rel: str, current: str, target: str) -> None:
    """Put ``rel`` in the steps of ``result`` that take it from kind ``current`` to ``target``."""
    if current in (FILE, LINK) and target in (ABSENT, DIR):
        result.delete.append(rel)
    if current == DIR:
        result.remove_dirs.append(rel)
    if target == DIR:
        result.make_dirs.append(rel)
    elif target in (FILE, LINK):
        result.restore.append(rel)


def _conflict_reason(current: State, last: State) -> str:
    if current.kind == ABSENT:
        return "deleted since eddy last changed it"
    if last.kind == ABSENT:
        return "created since eddy deleted it"
    return "changed since eddy last changed it"


def apply(root: str, todo: dict[str, Action], blobs: BlobStore, result: RewindResult) -> set[str]:
    """Bring each path of ``todo`` to its target; record what was done in ``result``.

    Returns the paths that failed (their errors are in ``result.errors``).
    """
    steps = _Apply(root, todo, blobs, result)
    steps.delete_files()
    steps.remove_dirs()
    steps.make_dirs()
    steps.write_files()
    steps.set_dir_modes()
    return steps.failed


class _Apply:
    """The steps of :func:`apply`, in their order, and the paths that failed in one of them
    (a path that failed is left alone by the steps after)."""

    def __init__(
        self, root: str, todo: dict[str, Action], blobs: BlobStore, result: RewindResult
    ) -> None:
        self._root, self._todo, self._blobs, self._result = root, todo, blobs, result
        self._deepest_first = sorted(todo, key=lambda r: (-r.count("/"), r))
        self.failed: set[str] = set()

    def delete_files(self) -> None:
        """Files and links that must go (or make way for a directory)."""
        for rel in self._deepest_first:
            current, target, _ = self._todo[rel]
            gone = current.kind in (FILE, LINK) and target.kind in (ABSENT, DIR)
            if gone and self._attempt(rel, os.unlink, self._path(rel)) and target.kind == ABSENT:
                self._result.deleted.append(rel)

    def remove_dirs(self) -> None:
        """Directories that must go, deepest first, and only when empty."""
        for rel in self._deepest_first:
            current, target, _ = self._todo[rel]
            gone = current.kind == DIR and target.kind != DIR
            if gone and self._attempt(rel, os.rmdir, self._path(rel)):
                self._result.dirs_removed.append(rel)

    def make_dirs(self) -> None:
        """Directories that must come back, shallowest first."""
        for rel in reversed(self._deepest_first):
            current, target, _ = self._todo[rel]
            back = target.kind == DIR and current.kind != DIR
            if back and self._attempt(rel, _make_dir, self._path(rel)):
                self._result.dirs_made.append(rel)

    def write_files(self) -> None:
        """Files and links, each written whole (see :func:`write_state`)."""
        for rel in sorted(self._todo):
            target = self._todo[rel][1]
            written = target.kind in (FILE, LINK)
            if written and self._attempt(rel, write_state, self._path(rel), target, self._blobs):
                self._result.restored.append(rel)

    def set_dir_modes(self) -> None:
        """The directories' mode bits, last: one might forbid writing inside it."""
        for rel in self._deepest_first:
            target = self._todo[rel][1]
            if target.kind == DIR:
                self._attempt(rel, os.chmod, self._path(rel), target.mode)

    def _path(self, rel: str) -> str:
        return os.path.join(self._root, rel)

    def _attempt(self, rel: str, fn: Callable[..., Any], *args: Any) -> bool:
        """Run ``fn`` on ``rel`` unless it failed before; an OSError is recorded as its error."""
        if rel in self.failed:
            return False
        try:
            fn(*args)
            return True
        except OSError as exc:
            self.failed.add(rel)
            if exc.errno in (errno.ENOTEMPTY, errno.EEXIST) and fn is os.rmdir:
                self._result.errors[rel] = "kept: it holds files the session did not create"
            else:
                self._result.errors[rel] = exc.strerror or str(exc)
            return False


def _make_dir(path: str) -> None:
    os.makedirs(path, exist_ok=True)


def write_state(path: str, state: State, blobs: BlobStore) -> None:
    """Make ``path`` the file (content and mode bits) or link that ``state`` describes."""
    directory = os.path.dirname(path)
    if not os.path.isdir(directory):
        os.makedirs(directory, exist_ok=True)
    tmp = os.path.join(directory, f".eddy-rewind-{os.getpid()}-{next(_tmp_names)}.tmp")
    try:
        if state.kind == LINK:
            os.symlink(state.target or "", tmp)
        else:
            if state.sha is None:
                raise OSError(f"the content of {path} was not kept")
            try:
                data = blobs.read(state.sha)
            except FileNotFoundError as exc:
                raise OSError(f"content {state.sha[:12]} is missing from the store") from exc
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.chmod(tmp, state.mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
