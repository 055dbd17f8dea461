"""The live view of the workspace: a snapshot kept up to date, and what changed in it.

:class:`TreeTracker` owns the snapshot of the in-scope tree (:mod:`agent.checkpoints.scan`), the
watcher that says where to look (:mod:`agent.checkpoints.watch`) and the repository whose
object store keeps what the snapshot did not copy (:mod:`agent.checkpoints.gitbase`). The
recorder asks it for what changed around each command; it never touches the checkpoints.

The first snapshot is the expensive one: :meth:`TreeTracker.prepare_in_background` takes it as
soon as the session opens, in a thread. A command that comes while it is still being taken
waits for it up to ``SNAPSHOT_WAIT_S`` (:meth:`~TreeTracker.wait_ready`); then the snapshot
stops where it is and the command runs. What it had not read or listed is looked at after the
command, in the background (:meth:`~TreeTracker.list_the_rest`): what a command may have changed
there (their ctime says) is not restorable (:meth:`~TreeTracker.take_late`), and the recorder
says so once (:meth:`~TreeTracker.command_started`).

Locks: the snapshot changes only under ``scan_lock`` (a background thread holds it while it
scans); the readers that must not wait for a scan (the stat cache, the blob gc) try it and
come back later.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from agent.checkpoints.blobs import BlobStore
from agent.checkpoints.gitbase import GitIndex, GitRepo
from agent.checkpoints.scan import Scanner, Snapshot
from agent.checkpoints.scope import Scope
from agent.checkpoints.snapshot import FILE, Change, Entry, State, diff
from agent.checkpoints.watch import TreeWatcher, open_watcher

SNAPSHOT_WAIT_S = 1.0
"""How long a command waits for the first snapshot before it runs anyway."""
NOT_IN_TIME = (
    "The workspace was too large to snapshot in time: {what} when a command ran, and what "
    "commands changed there cannot be rewound."
)

Region = tuple[Snapshot, Snapshot]
"""What a refresh looked at, before and after (whole snapshots, or the part an update saw)."""


class TreeTracker:
    """The snapshot of one workspace, kept current by a watcher (or by scanning).

    Args:
        root: the workspace's real path.
        scope: its ignore rules.
        scanner: walks it (content into ``blobs``).
        blobs: the store's blobs.
        state_dir: a directory of the store's own (the watcher's barrier goes there).
        watch: use a watcher where there is one (False: always scan the tree).
        use_git: let git's object store hold what it has (False: read every file).
    """

    def __init__(
        self,
        root: str,
        scope: Scope,
        scanner: Scanner,
        blobs: BlobStore,
        *,
        state_dir: str,
        watch: bool,
        use_git: bool,
    ) -> None:
        self.root = root
        self.scope = scope
        self.scanner = scanner
        self.blobs = blobs
        self.snapshot: Snapshot | None = None
        """The tree as last seen (changed only under ``scan_lock``)."""
        self.live = False
        """Whether ``snapshot`` was taken by this process (not only loaded from the cache)."""
        self.saved = True
        """Whether the stat cache on disk is the snapshot's (see :meth:`cache_json`)."""
        self.garbage = True
        """Whether blobs may have lost their last reference since the last :meth:`collect`."""
        self.scan_lock = threading.Lock()
        self._state_dir = state_dir
        self._want_watch = watch
        self._want_git = use_git
        self._watcher: TreeWatcher | None = None
        self._repo: GitRepo | None = None
        self._index: GitIndex | None = None
        """The index, kept while the first snapshot is not complete (see :meth:`_resume`)."""
        self._background: threading.Thread | None = None
        self._completing = False
        """Whether the background work is completing a hurried snapshot (not taking one)."""
        self._late: dict[str, str] = {}
        self._late_lock = threading.Lock()
        self._said_not_in_time = False

    @property
    def watching(self) -> bool:
        """Whether a watcher says what changed (without one, every refresh scans the tree)."""
        return self._watcher is not None

    # -- the first snapshot ---------------------------------------------------------------------

    def prepare_in_background(self) -> None:
        """Start taking the first snapshot now, in a thread (calling again is harmless)."""
        if not self.live:
            self._in_background(self._prepare)

    def prepare(self) -> None:
        """Take the first snapshot now; or wait until the background one is done."""
        with self._waiting():  # the caller waits: no letting go of the GIL
            self._join_background()
            self._prepare()

    def wait_ready(self) -> None:
        """Wait for the background snapshot; past ``SNAPSHOT_WAIT_S``, make it stop where it is
        (the rest is looked at after the command)."""
        thread = self._background
        if thread is None or not thread.is_alive():
            return
        if not self._completing:  # the first snapshot: worth a wait
            with self._waiting():
                thread.join(SNAPSHOT_WAIT_S)
        if thread.is_alive():  # completing one stops at once: commands need not wait for it
            self._hurry(thread)

    @contextlib.contextmanager
    def _waiting(self) -> Iterator[None]:
        """While a command waits for the background scan, it no longer lets go of the GIL
        (``Scanner.wanted``): nothing else runs that it would let through."""
        self.scanner.wanted.set()
        try:
            yield
        finally:
            self.scanner.wanted.clear()

    def _prepare(self) -> None:
        with self.scan_lock:
            if not self.live:
                self._first_scan()

    def _first_scan(self) -> None:
        """The first snapshot: git's index spares reading what it holds; the watcher starts."""
        repo = GitRepo.find(self.root) if self._want_git else None
        index = repo.read_index() if repo is not None else None
        if self._watcher is None and self._want_watch:
            self._watcher = open_watcher(self.root, self._state_dir)
        watcher = self._watcher
        if watcher is not None:
            watcher.dirty()  # what happened before this scan: the scan sees it
        snap = self.scanner.scan(
            self.snapshot, git=index, watch=watcher.watch if watcher is not None else None
        )
        self._repo = repo if index is not None else None
        self._index = index if snap.unlisted else None
        self.snapshot, self.live = snap, True
        self.saved = False
        self.garbage = True

    def _in_background(self, work: Callable[[], None], *, completing: bool = False) -> None:
        thread = self._background
        if thread is not None and thread.is_alive():
            return
        thread = threading.Thread(
            target=_quietly, args=(work,), name="eddy-checkpoints", daemon=True
        )
        self._background, self._completing = thread, completing
        thread.start()

    def _join_background(self) -> None:
        thread = self._background
        if thread is not None and thread is not threading.current_thread():
            thread.join()

    def _hurry(self, thread: threading.Thread) -> None:
        self.scanner.hurry.set()
        thread.join()
        self.scanner.hurry.clear()

    # -- around commands ------------------------------------------------------------------------

    def refresh(self) -> Region | None:
        """Bring the snapshot up to date: the region that was looked at (before, after), or
        None when nothing was (or there was no snapshot to compare with yet).

        Raises:
            OSError: the tree could not be scanned (the caller reports it, then :meth:`lose`).
        """
        with self.scan_lock:
            if not self.live:
                self._first_scan()
                return None
            snap = self.snapshot
            assert snap is not None
            watcher = self._watcher
            dirty = watcher.dirty() if watcher is not None else None
            if dirty is not None and self._base_rules_changed(snap):
                dirty = None
            if dirty is None:  # no watcher, or it may have missed something: scan it all
                post = self.scanner.scan(
                    snap, git=self._index, watch=watcher.watch if watcher is not None else None
                )
                self.snapshot = post
                self.saved, self.garbage = False, True
                return snap, post
            if not dirty:
                return None
            assert watcher is not None
            pre, post = self.scanner.update(snap, dirty, watch=watcher.watch, forget=watcher.forget)
            if pre.files or post.files or pre.dirs or post.dirs:
                self.saved, self.garbage = False, True
            return pre, post

    def changes(self) -> tuple[dict[str, Change], dict[str, str]]:
        """What changed since the last refresh: ``({path: (before, after)}, {path: why not
        restorable})``.

        Raises:
            OSError: the tree could not be scanned.
        """
        region = self.refresh()
        if region is None:
            return {}, {}
        pre, post = region
        return diff(pre, post, self.scope, self.blobs, self.scanner.cap, self._from_git)

    def command_started(self) -> str | None:
        """Call just before a command runs. Once per session: what the first snapshot had not
        seen by then (a problem to report), else None."""
        snap = self.snapshot
        if snap is None:
            return None
        if snap.unlisted and not snap.partial_since:
            snap.partial_since = time.time_ns()
        dirs, files = len(snap.unlisted), self.scanner.not_saved
        if not (dirs or files) or self._said_not_in_time:
            return None
        self._said_not_in_time = True
        what = [f"{dirs} directories had not been listed"] if dirs else []
        what += [f"{files} files had not been saved"] if files else []
        return NOT_IN_TIME.format(what=" and ".join(what))

    def list_the_rest(self) -> None:
        """After a command: go on with what a hurried first snapshot left, in the background."""
        snap = self.snapshot
        if snap is not None and snap.unlisted:
            self._in_background(self._resume, completing=True)

    def _resume(self) -> None:
        with self.scan_lock:
            snap, watcher = self.snapshot, self._watcher
            if not self.live or snap is None or not snap.unlisted:
                return
            watch = watcher.watch if watcher is not None else _unwatched
            pre, post = self.scanner.resume(snap, git=self._index, watch=watch)
            _, blocked = diff(pre, post, self.scope, self.blobs, self.scanner.cap, self._from_git)
            self.saved = False
            if not snap.unlisted:
                self._index = None  # complete: what changes from now on is read
        if blocked:
            with self._late_lock:
                self._late.update(blocked)

    def take_late(self) -> dict[str, str]:
        """Paths the background found not restorable since the last call (for the current
        checkpoint), with the reason."""
        if not self._late:
            return {}
        with self._late_lock:
            late, self._late = self._late, {}
        return late

    def lose(self) -> None:
        """Forget the snapshot (a scan failed): the next command starts from a new one."""
        with self.scan_lock:
            self.snapshot, self.live = None, False

    def known(self, rel: str) -> Entry | None:
        """The snapshot's entry for ``rel``, if any (a cache: check its stat key)."""
        snap = self.snapshot
        return snap.files.get(rel) if snap is not None else None

    def _base_rules_changed(self, snap: Snapshot) -> bool:
        """Whether the rules from outside the workspace (or .git/info/exclude) changed."""
        keys: dict[str, object] = {}
        self.scope.base_frames(keys)
        return any(snap.ignore_keys.get(path) != key for path, key in keys.items())

    def _from_git(self, entries: list[Entry]) -> list[State]:
        """The content of entries kept in git, now copied into the blob store (diff's resolve)."""
        repo = self._repo
        why = "its earlier content is no longer in git's object store"
        found: dict[str, bytes | None] = {}
        if repo is None:
            why = "its earlier content was left to git, which is not available any more"
        else:
            try:
                found = repo.read_blobs([e.git for e in entries if e.git])
            except OSError as exc:
                why = f"its earlier content could not be read from git ({exc.strerror or exc})"
        out: list[State] = []
        for e in entries:
            size, mtime, mode = e.key[0], e.key[1], stat.S_IMODE(e.key[4])
            data = found.get(e.git) if e.git else None
            if data is None or len(data) != size:
                if data is not None:
                    why = "git's copy of its earlier content differs from the file"
                out.append(State(FILE, mode, None, size, mtime, why=why))
                continue
            sha = hashlib.sha256(data).hexdigest()
            self.blobs.put_hashed(sha, data)
            out.append(State(FILE, mode, sha, size))
        return out

    # -- the store's upkeep ---------------------------------------------------------------------

    def load(self, snapshot: Snapshot | None) -> None:
        """Start from a saved stat cache (files unchanged since are not read again)."""
        with self.scan_lock:
            self.snapshot = snapshot

    def cache_json(self) -> dict[str, Any] | None:
        """The stat cache to save, or None: nothing new, or a scan is changing it just now."""
        snap = self.snapshot
        if snap is None or self.saved or not self.scan_lock.acquire(blocking=False):
            return None
        try:
            return snap.to_json()
        finally:
            self.scan_lock.release()

    def collect(self, keep: set[str]) -> None:
        """Remove the blobs neither ``keep`` nor the snapshot refers to (not while a scan is
        writing blobs no snapshot refers to yet: then next time)."""
        if not self.scan_lock.acquire(blocking=False):
            return
        try:
            snap = self.snapshot
            if snap is not None:
                keep |= {e.state.sha for e in snap.files.values() if e.state.sha}
            self.blobs.gc(keep)
            self.garbage = False
        finally:
            self.scan_lock.release()

    def close(self) -> None:
        """Stop the background snapshot where it is and stop watching (later refreshes scan)."""
        thread = self._background
        if thread is not None and thread.is_alive() and thread is not threading.current_thread():
            self._hurry(thread)
        with self.scan_lock:
            watcher, self._watcher = self._watcher, None
            self._want_watch = False
        if watcher is not None:
            watcher.close()


def _quietly(work: Callable[[], None]) -> None:
    """Background work, niced: a failure shows at the next command, which scans again and
    says why."""
    _nice_this_thread()
    with contextlib.suppress(Exception):
        work()


BACKGROUND_NICE = 10
"""How much lower the background snapshot's thread runs: a tool the model called meanwhile
(ripgrep on both cores: a first Grep in a 50,000-file tree took 197 ms beside the snapshot at
the same priority, 160 ms beside it niced) comes first. A command that waits for the snapshot
cannot raise it back (only a privileged process may): on a busy machine that wait is slower,
and it is bounded (``SNAPSHOT_WAIT_S``, then the scan stops where it is)."""


def _nice_this_thread() -> None:
    """Lower the calling thread's priority (Linux schedules threads one by one; elsewhere,
    or where it is not allowed, nothing changes)."""
    with contextlib.suppress(AttributeError, OSError):
        tid = threading.get_native_id()
        nice = os.getpriority(os.PRIO_PROCESS, tid) + BACKGROUND_NICE
        os.setpriority(os.PRIO_PROCESS, tid, min(nice, 19))


def _unwatched(rel: str) -> None:
    """Where there is no watcher: nothing to tell."""
