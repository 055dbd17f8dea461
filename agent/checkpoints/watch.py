"""Which directories of the workspace something happened in, told by the kernel (inotify).

The checkpoint engine watches every in-scope directory it has listed (never ``.git``, never an
ignored directory), so that after a command it looks only where something happened instead
of stat-ing the whole tree. A watcher says *where* to look, never what was there before: the
engine keeps the earlier state itself (its snapshot, git's object store).

:meth:`TreeWatcher.dirty` drains the events up to a barrier: it creates a file in a private
directory watched by the same inotify instance and reads until that file's event arrives. One
instance has one queue in the kernel, in the order events happened, so everything the command
did before the barrier has been read by then. When the watcher may have missed something (the
kernel's queue overflowed, a directory could not be watched: the limit of watches, the
barrier did not come back in time) ``dirty`` returns None once and the engine scans the whole
tree instead; it keeps working after that. Where inotify does not exist (macOS) or cannot be
had, :func:`open_watcher` returns None and the engine always scans.

Not seen by inotify, so not by this watcher either: writes through a shared memory mapping that
is never closed, and writes through a hard link from outside the workspace.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import threading
import time
from typing import Any

try:  # Linux only: elsewhere the engine scans
    import inotify_simple
except (ImportError, AttributeError, OSError):  # pragma: no cover - not Linux
    inotify_simple = None

BARRIER_TIMEOUT_S = 5.0

if inotify_simple is not None:
    _F = inotify_simple.flags
    MASK = (
        _F.MODIFY
        | _F.ATTRIB
        | _F.CLOSE_WRITE
        | _F.MOVED_FROM
        | _F.MOVED_TO
        | _F.CREATE
        | _F.DELETE
        | _F.DELETE_SELF
        | _F.MOVE_SELF
        | _F.DONT_FOLLOW
        | _F.ONLYDIR
        | _F.EXCL_UNLINK
    )
    OVERFLOW, IGNORED, UNMOUNT = _F.Q_OVERFLOW, _F.IGNORED, _F.UNMOUNT
    SELF_EVENTS = _F.DELETE_SELF | _F.MOVE_SELF | _F.ATTRIB


class TreeWatcher:
    """Watches the directories it is given; tells which had events since the last call.

    Args:
        root: the workspace root (directories are given relative to it).
        inotify: the inotify instance (owned: closed by :meth:`close`).
        beacon_dir: a private directory for the barrier's file (removed by :meth:`close`).
    """

    def __init__(self, root: str, inotify: Any, beacon_dir: str) -> None:
        self.root = root
        self._inotify = inotify
        self._beacon_dir = beacon_dir
        self._beacon_wd = inotify.add_watch(beacon_dir, _F.CREATE | _F.ONLYDIR)
        self._seq = 0
        self._by_wd: dict[int, str] = {}
        self._by_rel: dict[str, int] = {}
        self._pending: set[str] = set()
        self._lost = False
        self._lock = threading.Lock()
        self.barriers = 0
        """How many barriers were drained (for tests)."""

    @property
    def watched(self) -> int:
        """How many directories are watched."""
        return len(self._by_rel)

    def watch(self, rel: str) -> None:
        """Watch the directory ``rel`` (call before listing it, so no change falls between)."""
        with self._lock:
            try:
                path = os.path.join(self.root, rel) if rel else self.root
                wd = self._inotify.add_watch(path, MASK)
            except OSError:
                # gone already (its parent's listing will say so), not a directory any more,
                # or the limit of watches: in each case only a full scan is sure to see it
                self._lost = True
                return
            old = self._by_wd.get(wd)
            if old is not None and old != rel:
                self._by_rel.pop(old, None)  # the same directory under a new name (moved)
            self._by_wd[wd] = rel
            self._by_rel[rel] = wd

    def forget(self, rel: str) -> None:
        """Stop watching ``rel`` and every directory below it (they left the snapshot)."""
        with self._lock:
            below = rel + "/"
            gone = [r for r in self._by_rel if r == rel or r.startswith(below)] if rel else []
            for r in gone:
                wd = self._by_rel.pop(r)
                if self._by_wd.get(wd) == r:
                    del self._by_wd[wd]
                    with contextlib.suppress(OSError):
                        self._inotify.rm_watch(wd)

    def dirty(self) -> set[str] | None:
        """The directories (relative) with events since the last call, up to now; None when
        something may have been missed (then scan everything)."""
        with self._lock:
            self._seq += 1
            name = f"b{self._seq}"
            path = os.path.join(self._beacon_dir, name)
            try:
                with open(path, "wb"):
                    pass
            except OSError:
                self._lost = True
                name = ""
            deadline = time.monotonic() + BARRIER_TIMEOUT_S
            found = not name
            while not found:
                left = deadline - time.monotonic()
                if left <= 0:
                    self._lost = True
                    break
                for event in self._inotify.read(timeout=max(1, int(left * 1000))):
                    if event.wd == self._beacon_wd:
                        found = found or event.name == name
                    else:
                        self._take(event)
            if name:
                with contextlib.suppress(OSError):
                    os.unlink(path)
            self.barriers += 1
            dirty, self._pending = self._pending, set()
            if self._lost:
                self._lost = False
                return None
            return dirty

    def _take(self, event: Any) -> None:
        mask = event.mask
        if mask & (OVERFLOW | UNMOUNT):
            self._lost = True
            return
        rel = self._by_wd.get(event.wd)
        if rel is None:
            return
        if mask & IGNORED:  # the directory is gone: its parent's events say so
            del self._by_wd[event.wd]
            if self._by_rel.get(rel) == event.wd:
                del self._by_rel[rel]
            return
        self._pending.add(rel)
        if not event.name and mask & SELF_EVENTS and rel:
            self._pending.add(rel.rpartition("/")[0])

    def close(self) -> None:
        """Release the inotify instance and the barrier's directory."""
        with self._lock:
            with contextlib.suppress(OSError):
                self._inotify.close()
            shutil.rmtree(self._beacon_dir, ignore_errors=True)


def open_watcher(root: str, state_dir: str) -> TreeWatcher | None:
    """A watcher of ``root`` with its barrier directory under ``state_dir``; None where inotify
    cannot be had (not Linux, no instances left)."""
    if inotify_simple is None:
        return None
    try:
        os.makedirs(state_dir, exist_ok=True)
        beacon = tempfile.mkdtemp(prefix=".watch-", dir=state_dir)
    except OSError:
        return None
    try:
        instance = inotify_simple.INotify()
    except OSError:
        shutil.rmtree(beacon, ignore_errors=True)
        return None
    try:
        return TreeWatcher(root, instance, beacon)
    except OSError:
        instance.close()
        shutil.rmtree(beacon, ignore_errors=True)
        return None
