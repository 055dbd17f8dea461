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


def plan(  # noqa: C901
    entries: list[Entry], capture: Callable[[str], State]
) -> tuple[RewindPlan, dict[str, Action]]:
    """What undoing ``entries`` (oldest first) would do; ``capture`` reads a path's state now."""
    targets: dict[str, State] = {}
    last: dict[str, State] = {}
    not_restorable: dict[str, str] = {}
    for entry in entries:
        for rel, change in entry.changes.items():
            targets.setdefault(rel, change.before)
            last[rel] = change.after if change.after is not None else change.before
        for rel, why in entry.blocked.items():
            not_restorable.setdefault(rel, why)
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
        if current.kind in (FILE, LINK) and target.kind in (ABSENT, DIR):
            result.delete.append(rel)
        if current.kind == DIR:
            result.remove_dirs.append(rel)
        if target.kind == DIR:
            result.make_dirs.append(rel)
        elif target.kind in (FILE, LINK):
            result.restore.append(rel)
    result.not_restorable = not_restorable
    return result, actions


def _conflict_reason(current: State, last: State) -> str:
    if current.kind == ABSENT:
        return "deleted since eddy last changed it"
    if last.kind == ABSENT:
        return "created since eddy deleted it"
    return "changed since eddy last changed it"


def apply(root: str, todo: dict[str, Action], blobs: BlobStore, result: RewindResult) -> set[str]:  # noqa: C901
    """Bring each path of ``todo`` to its target; record what was done in ``result``.

    Returns the paths that failed (their errors are in ``result.errors``).
    """
    failed: set[str] = set()

    def attempt(rel: str, fn: Callable[..., Any], *args: Any) -> bool:
        if rel in failed:
            return False
        try:
            fn(*args)
            return True
        except OSError as exc:
            failed.add(rel)
            if exc.errno in (errno.ENOTEMPTY, errno.EEXIST) and fn is os.rmdir:
                result.errors[rel] = "kept: it holds files the session did not create"
            else:
                result.errors[rel] = exc.strerror or str(exc)
            return False

    def path(rel: str) -> str:
        return os.path.join(root, rel)

    deepest_first = sorted(todo, key=lambda r: (-r.count("/"), r))
    for rel in deepest_first:
        current, target, _ = todo[rel]
        gone = current.kind in (FILE, LINK) and target.kind in (ABSENT, DIR)
        if gone and attempt(rel, os.unlink, path(rel)) and target.kind == ABSENT:
            result.deleted.append(rel)
    for rel in deepest_first:
        current, target, _ = todo[rel]
        if current.kind == DIR and target.kind != DIR and attempt(rel, os.rmdir, path(rel)):
            result.dirs_removed.append(rel)
    for rel in reversed(deepest_first):
        current, target, _ = todo[rel]
        if target.kind == DIR and current.kind != DIR and attempt(rel, _make_dir, path(rel)):
            result.dirs_made.append(rel)
    for rel in sorted(todo):
        target = todo[rel][1]
        if target.kind in (FILE, LINK) and attempt(rel, write_state, path(rel), target, blobs):
            result.restored.append(rel)
    for rel in deepest_first:
        target = todo[rel][1]
        if target.kind == DIR:
            attempt(rel, os.chmod, path(rel), target.mode)
    return failed


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
