"""Recording what changes while a checkpoint is current: the hooks the tools call.

The engine records the prior state of every path that changes:

- **File tools** (Write, Edit, MultiEdit) await :meth:`~ChangeRecorder.before_change` with the
  paths they are about to write; the prior state (bytes and mode bits, or "did not exist", and
  the parent directories a write will create) is saved then. The state the tool leaves behind
  is read at the next hook, or when the session calls :meth:`~ChangeRecorder.settle` after the
  tool call (which it should: that is "the state eddy left it in" for conflict detection).
- **Shell commands** (Bash) are bracketed by :meth:`~ChangeRecorder.before_shell` and
  :meth:`~ChangeRecorder.after_shell`. The engine keeps a snapshot of the in-scope tree: a
  stat cache plus the content of every file, in its blob store or, for files git's index
  vouches for, in git's object store (:mod:`agent.checkpoints.gitbase`). Before a command it
  brings the snapshot up to date; after it, it records what was created, modified, deleted or
  chmod-ed, and which directories were created or removed.

How it knows what changed: an inotify watcher (:mod:`agent.checkpoints.watch`) names the
directories something happened in, and only those are listed again; where there is no watcher,
or it may have missed something, the whole tree is stat-ed (one ``lstat`` per file, files read
again only when their stat changed). The first snapshot is the expensive one:
:meth:`~ChangeRecorder.prepare_in_background` takes it as soon as the session opens, in a
thread. A command that comes while it is still being taken waits for it up to
``SNAPSHOT_WAIT_S``; then the snapshot stops where it is and the command runs. The files it had
not read and the directories it had not listed are then looked at after the command, in the
background: what a command may have changed there (their ctime says) is reported as not
restorable, with the reason, and the user is told once for the checkpoint (``problems``):
never silently less.

In scope is everything inside the workspace except ``.git`` (never read, never touched), what
``.gitignore`` files ignore, and files over the size cap (their changes are detected but their
content is not kept). A change to an out-of-scope path that the engine knows about is reported
as not restorable, with the reason.

The hooks run their work in a thread and never raise for file-system errors: what could not be
captured is reported in the summaries (``not_restorable``, ``problems``).
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from agent.checkpoints.blobs import BlobStore
from agent.checkpoints.gitbase import GitRepo
from agent.checkpoints.records import PROMPT, Change, Entry
from agent.checkpoints.scan import Scanner, Snapshot
from agent.checkpoints.scope import Scope, stat_key
from agent.checkpoints.snapshot import FILE, GONE, State, capture, diff
from agent.checkpoints.snapshot import Entry as Scanned
from agent.checkpoints.watch import TreeWatcher, open_watcher

SNAPSHOT_WAIT_S = 1.0
"""How long a command waits for the first snapshot before it runs anyway."""
NOT_IN_TIME = (
    "The workspace was too large to snapshot in time: {what} when a command ran, and what "
    "commands changed there cannot be rewound."
)


class ChangeRecorder:
    """The recording half of :class:`agent.checkpoints.engine.CheckpointStore`: its hooks put the
    prior state of every path that changes into the current entry.

    Args:
        workspace: the workspace root (its real path is used).
        blobs: where file contents are kept.
        state_dir: a directory of the store's own (the watcher's barrier goes there).
        max_file_bytes: files larger than this are not kept (their changes are reported as
            not restorable).
        max_snapshot_bytes: the most file content one snapshot of the tree keeps; files past
            it are only stat-ed (shell changes to them are not restorable).
        racy_window_ns: files modified this recently before a scan are read again next scan.
        watch: use a watcher where there is one (False: always scan the tree).
        use_git: let git's object store hold what it has (False: read every file).
    """

    def __init__(
        self,
        workspace: Path,
        blobs: BlobStore,
        *,
        state_dir: Path,
        max_file_bytes: int,
        max_snapshot_bytes: int | None,
        racy_window_ns: int,
        watch: bool = True,
        use_git: bool = True,
    ) -> None:
        self.workspace = Path(os.path.realpath(workspace))
        self.cap = max_file_bytes
        self.blobs = blobs
        self.scope = Scope(self.workspace)
        self.scanner = Scanner(
            self.scope,
            self.blobs,
            max_file_bytes=max_file_bytes,
            max_total_bytes=max_snapshot_bytes,
            racy_window_ns=racy_window_ns,
        )
        self.entries: list[Entry] = []
        self._root = str(self.workspace)
        self._seq = 0
        self._pending: dict[str, Entry] = {}
        self._snapshot: Snapshot | None = None
        """The tree as last seen (written only under ``_scan_lock``)."""
        self._live = False
        """Whether ``_snapshot`` was taken by this process (not only loaded from the cache)."""
        self._snapshot_saved = True
        self._garbage = True
        """Whether blobs may have lost their last reference since the last gc."""
        self._pre: Entry | None = None
        self._state_dir = str(state_dir)
        self._want_watch = watch
        self._want_git = use_git
        self._watcher: TreeWatcher | None = None
        self._repo: GitRepo | None = None
        self._preparing: threading.Thread | None = None
        """The background thread taking (or completing) the first snapshot."""
        self._said_not_in_time = False
        self._late: dict[str, str] = {}
        """Paths found not restorable in the background, for the current entry."""
        self._late_lock = threading.Lock()
        self._lock = threading.RLock()
        self._scan_lock = threading.Lock()
        """Held while scanning (and by gc, which must not remove blobs a scan just wrote)."""

    def _save_log(self) -> None:
        """Save the entries (the store writes ``checkpoints.json``)."""
        raise NotImplementedError

    def prepare_in_background(self) -> None:
        """Start taking the first snapshot now, in a thread, so that the first command need not
        wait for it (call once the session is open; calling again is harmless)."""
        if not self._live:
            self._in_background(self._prepare)

    def _in_background(self, work: Callable[[], None]) -> None:
        with self._lock:
            if self._preparing is not None and self._preparing.is_alive():
                return
            thread = threading.Thread(
                target=self._background, args=(work,), name="eddy-checkpoints", daemon=True
            )
            self._preparing = thread
        thread.start()

    @staticmethod
    def _background(work: Callable[[], None]) -> None:
        try:
            work()
        except OSError:
            pass  # the next command scans again, and says what went wrong

    async def prepare(self) -> None:
        """Take the first snapshot of the tree now (in a thread), not at the first command; or
        wait until the one being taken (or completed) in the background is done."""
        await asyncio.to_thread(self._prepare_now)

    def _prepare_now(self) -> None:
        thread = self._preparing
        if thread is not None and thread is not threading.current_thread():
            thread.join()
        self._prepare()

    def _prepare(self) -> None:
        # Only the scan lock is held while scanning, so begin() and the reports stay quick.
        with self._scan_lock:
            if not self._live:
                self._first_scan()

    def _first_scan(self) -> None:
        """The first snapshot: git's index spares reading what it holds; the watcher starts."""
        repo = GitRepo.find(self._root) if self._want_git else None
        index = repo.read_index() if repo is not None else None
        if self._watcher is None and self._want_watch:
            self._watcher = open_watcher(self._root, self._state_dir)
        watcher = self._watcher
        watch = watcher.watch if watcher is not None else None
        if watcher is not None:
            watcher.dirty()  # what happened before this scan: the scan sees it
        snap = self.scanner.scan(self._snapshot, git=index, watch=watch)
        self._repo = repo if index is not None else None
        self._snapshot, self._live = snap, True
        self._snapshot_saved = False
        self._garbage = True

    def _wait_prepared(self) -> None:
        """Wait for the background snapshot; past ``SNAPSHOT_WAIT_S``, make it stop where it is
        (the rest is looked at after the command)."""
        thread = self._preparing
        if thread is None or not thread.is_alive():
            return
        thread.join(SNAPSHOT_WAIT_S)
        if thread.is_alive():
            self.scanner.hurry.set()
            thread.join()
            self.scanner.hurry.clear()

    def _resume(self) -> None:
        """List what the hurried first snapshot left; what a command may have changed there is
        not restorable (kept for the current entry)."""
        with self._scan_lock:
            snap, watcher = self._snapshot, self._watcher
            if not self._live or snap is None or not snap.unlisted:
                return
            watch = watcher.watch if watcher is not None else _unwatched
            pre, post = self.scanner.resume(snap, watch=watch)
            _, blocked = diff(pre, post, self.scope, self.blobs, self.cap, self._from_git)
        if blocked:
            with self._late_lock:
                self._late.update(blocked)

    async def before_change(self, paths: list[Path], tool_use_id: str | None = None) -> None:
        """Save the prior state of ``paths``, which a tool is about to write (ToolContext hook)."""
        await asyncio.to_thread(self._before_change, paths, tool_use_id)

    def _before_change(self, paths: Iterable[Path], tool_use_id: str | None = None) -> None:
        with self._lock:
            self._settle()
            entry = self._current()
            for path in paths:
                rel = self._rel(path)
                if not rel:
                    entry.blocked[os.path.abspath(path)] = "outside the workspace"
                    continue
                try:
                    why = self.scope.out_of_scope(rel, False)
                    if why is not None:
                        entry.blocked[rel] = why
                        continue
                    parts = rel.split("/")
                    for i in range(1, len(parts)):
                        parent = "/".join(parts[:i])
                        if not os.path.lexists(self._abs(parent)):
                            self._touch(entry, parent, tool_use_id, GONE)
                    self._touch(entry, rel, tool_use_id)
                except OSError as exc:
                    entry.blocked[rel] = f"its earlier state could not be saved ({error_text(exc)})"
            self._save_log()

    def settle(self) -> None:
        """Record the state the last tool calls left their files in (call after each call)."""
        with self._lock:
            if self._pending:
                self._settle()
                self._save_log()

    async def before_shell(self) -> None:
        """Bring the snapshot up to date before a shell command runs (ToolContext hook)."""
        await asyncio.to_thread(self._before_shell)

    def _before_shell(self) -> None:
        self._wait_prepared()
        with self._lock:
            self._settle()
            entry = self._current()
            entry.shell_commands += 1
            self._pre = None
            try:
                self._refresh()
            except OSError as exc:
                self._lost_track(entry, exc)
                return
            self._pre = entry
            snap = self._snapshot
            if snap is not None and snap.unlisted and not snap.partial_since:
                snap.partial_since = time.time_ns()
            self._say_not_in_time(entry)

    async def after_shell(self) -> None:
        """Record what the shell command changed in the workspace (ToolContext hook)."""
        await asyncio.to_thread(self._after_shell)

    def _after_shell(self) -> None:
        with self._lock:
            if self._pre is None:
                return
            entry, self._pre = self._pre, None
            self._record(entry)
        self._list_the_rest()

    async def catch_up(self) -> None:
        """Record what changed since the last scan although no hook bracketed it (background
        shells): the changes go to the current entry, as a shell command's would."""
        await asyncio.to_thread(self._catch_up)

    def _catch_up(self) -> None:
        self._wait_prepared()
        with self._lock:
            self._settle()
            if not self._live:  # nothing to compare with: the next command's baseline
                try:
                    self._refresh()
                except OSError as exc:
                    self._lost_track(self._current(), exc)
                return
            self._record(self._current())
        self._list_the_rest()

    def _record(self, entry: Entry) -> None:
        """Put what changed since the last refresh into ``entry``."""
        try:
            region = self._refresh()
            if region is None:
                return
            pre, post = region
            changes, blocked = diff(pre, post, self.scope, self.blobs, self.cap, self._from_git)
        except OSError as exc:
            self._lost_track(entry, exc)
            return
        for rel, (before, after) in changes.items():
            change = entry.changes.get(rel)
            if change is None:
                entry.changes[rel] = Change(before, after, shell=True)
            else:
                change.after, change.shell, change.lines = after, True, None
        for rel, why in blocked.items():
            entry.blocked.setdefault(rel, why)
        if changes or blocked:
            self._save_log()

    def _list_the_rest(self) -> None:
        """After a command: go on with what a hurried first snapshot left, in the background."""
        snap = self._snapshot
        if snap is not None and snap.unlisted:
            self._in_background(self._resume)

    def _refresh(self) -> tuple[Snapshot, Snapshot] | None:
        """Bring the snapshot up to date: the region that was looked at (before, after), or
        None when nothing was (or there was no snapshot to compare with yet).

        Raises:
            OSError: the tree could not be scanned (the caller reports it).
        """
        with self._scan_lock:
            if not self._live:
                self._first_scan()
                return None
            snap = self._snapshot
            assert snap is not None
            watcher = self._watcher
            dirty = watcher.dirty() if watcher is not None else None
            if dirty is not None and self._base_rules_changed(snap):
                dirty = None
            if dirty is None:  # no watcher, or it may have missed something: scan it all
                post = self.scanner.scan(snap, watch=watcher.watch if watcher is not None else None)
                self._snapshot = post
                self._snapshot_saved = False
                self._garbage = True
                return snap, post
            if not dirty:
                return None
            assert watcher is not None
            pre, post = self.scanner.update(snap, dirty, watch=watcher.watch, forget=watcher.forget)
            if pre.files or post.files or pre.dirs or post.dirs:
                self._snapshot_saved = False
                self._garbage = True
            return pre, post

    def _base_rules_changed(self, snap: Snapshot) -> bool:
        """Whether the rules from outside the workspace (or .git/info/exclude) changed."""
        keys: dict[str, object] = {}
        self.scope.base_frames(keys)
        return any(snap.ignore_keys.get(path) != key for path, key in keys.items())

    def _from_git(self, entries: dict[str, Scanned]) -> dict[str, State]:
        """The content of entries kept in git, now copied into the blob store (diff's resolve)."""
        repo = self._repo
        why = "its earlier content is no longer in git's object store"
        found: dict[str, bytes | None] = {}
        if repo is None:
            why = "its earlier content was left to git, which is not available any more"
        else:
            try:
                found = repo.read_blobs([e.git for e in entries.values() if e.git])
            except OSError as exc:
                why = f"its earlier content could not be read from git ({error_text(exc)})"
        out: dict[str, State] = {}
        for rel, e in entries.items():
            s = e.state
            data = found.get(e.git) if e.git else None
            if data is None or len(data) != s.size:
                if data is not None:
                    why = "git's copy of its earlier content differs from the file"
                out[rel] = State(FILE, s.mode, None, s.size, s.mtime_ns, why=why)
                continue
            sha = hashlib.sha256(data).hexdigest()
            self.blobs.put_hashed(sha, data)
            out[rel] = State(FILE, s.mode, sha, s.size)
        return out

    def _lost_track(self, entry: Entry, exc: OSError) -> None:
        """A scan failed: report it; the next command starts from a new snapshot."""
        with self._scan_lock:
            self._snapshot, self._live = None, False
        self._problem(entry, f"a command's changes were not captured ({error_text(exc)})")

    def _say_not_in_time(self, entry: Entry) -> None:
        """Once: the first snapshot had not seen everything when a command ran."""
        snap = self._snapshot
        dirs = len(snap.unlisted) if snap is not None else 0
        files = self.scanner.not_saved
        if (dirs or files) and not self._said_not_in_time:
            self._said_not_in_time = True
            what = [f"{dirs} directories had not been listed"] if dirs else []
            what += [f"{files} files had not been saved"] if files else []
            self._problem(entry, NOT_IN_TIME.format(what=" and ".join(what)))

    def close_watcher(self) -> None:
        """Stop watching the tree (later commands scan it)."""
        with self._scan_lock:
            watcher, self._watcher = self._watcher, None
        if watcher is not None:
            watcher.close()

    def _problem(self, entry: Entry, text: str) -> None:
        if text not in entry.problems:
            entry.problems.append(text)
        self._save_log()

    # -- internals -------------------------------------------------------------------------------

    def _abs(self, rel: str) -> str:
        return os.path.join(self._root, rel)

    def _rel(self, path: Path | str) -> str | None:
        """The workspace-relative ``/`` path of ``path``, or None when it lies outside."""
        head, name = os.path.split(os.path.abspath(os.fspath(path)))
        real = os.path.join(os.path.realpath(head), name)
        if real.startswith(self._root + os.sep):
            return real[len(self._root) + 1 :].replace(os.sep, "/")
        return None

    def _current(self) -> Entry:
        """The entry changes go to: the latest prompt (one is made if there is none)."""
        if not self.entries or self.entries[-1].kind != PROMPT:
            self._seq += 1
            self.entries.append(Entry(f"auto-{self._seq}", PROMPT, time.time()))
        return self.entries[-1]

    def _capture(self, rel: str) -> State:
        """The current state of ``rel``; the snapshot spares reading a file whose stat held."""
        path = self._abs(rel)
        snap = self._snapshot
        known = snap.files.get(rel) if snap is not None else None
        if known is not None and not known.racy and known.state.restorable and not known.git:
            try:
                if stat_key(os.lstat(path)) == known.key:
                    return known.state
            except OSError:
                pass
        return capture(path, self.blobs, self.cap)[0]

    def _touch(
        self, entry: Entry, rel: str, tool_use_id: str | None, before: State | None = None
    ) -> None:
        change = entry.changes.get(rel)
        if change is None:
            change = Change(before if before is not None else self._capture(rel))
            entry.changes[rel] = change
        change.after, change.lines = None, None
        if tool_use_id and tool_use_id not in change.tools:
            change.tools.append(tool_use_id)
        self._pending[rel] = entry

    def _settle(self) -> None:
        if self._late:
            with self._late_lock:
                late, self._late = self._late, {}
            entry = self._current()
            for rel, why in late.items():
                entry.blocked.setdefault(rel, why)
            self._save_log()
        pending, self._pending = self._pending, {}
        for rel, entry in pending.items():
            change = entry.changes.get(rel)
            if change is not None and change.after is None:
                try:
                    change.after = self._capture(rel)
                except OSError as exc:
                    change.after = State(FILE, why=f"could not be read ({error_text(exc)})")


def _unwatched(rel: str) -> None:
    """Where there is no watcher: nothing to tell."""


def error_text(exc: OSError) -> str:
    """What went wrong, in words (``strerror`` when there is one)."""
    return exc.strerror or str(exc)
