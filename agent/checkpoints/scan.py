"""The scanner of the checkpoint engine: it walks the in-scope tree into a :class:`Snapshot`.

:meth:`Scanner.scan` walks the in-scope tree (see :mod:`agent.checkpoints.scope`) and returns a
:class:`Snapshot`: for every file its stat key (size, mtime_ns, ctime_ns, inode, mode) and
State (see :mod:`~agent.checkpoints.snapshot`), with the content of every file (under the cap)
in the blob store, except files whose content git's index vouches for (see
:mod:`agent.checkpoints.gitbase`): those keep only their blob's id. A rescan re-reads only
files whose stat key changed, or that were modified so recently when they were last read
("racy", as git calls it) that a later change could keep the same timestamps. A directory
whose own stat did not change (and was not racy) keeps its :class:`Listing`: no ``scandir``,
no ignore matching, one ``lstat`` per file.

:meth:`Scanner.update` brings a snapshot up to date in place, looking only at the directories a
watcher reported (see :mod:`agent.checkpoints.watch`), and returns the region it looked at
before and after, for :func:`~agent.checkpoints.snapshot.diff`: its cost follows what changed,
not the size of the tree.
"""

from __future__ import annotations

import os
import stat
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agent.checkpoints.blobs import BlobStore
from agent.checkpoints.gitbase import GitIndex
from agent.checkpoints.scope import IGNORE_FILE, SKIPPED_DIR, Frame, Frames, Scope, decide, stat_key
from agent.checkpoints.snapshot import (
    FILE,
    IN_GIT_STATE,
    LINK,
    RACY_WINDOW_NS,
    Entry,
    State,
    file_state,
)

NOT_SAVED_IN_TIME = (
    "not saved yet when a command ran (the workspace was too large to snapshot in time)"
)
Hook = Callable[[str], None]
YIELD_S = 0.001
"""A scan lets another thread have the GIL at least this often (between directories)."""


@dataclass
class Listing:
    """One scanned directory: its in-scope files and subdirectories, as of a scan."""

    key: tuple[int, ...]
    """The directory's own stat key (its mtime changes when an entry is added or removed)."""
    frames: Frames
    racy: bool
    rels: list[str]
    paths: list[str]
    entries: list[Entry]
    keys: list[tuple[int, ...]]
    subdirs: list[str]
    racy_files: bool
    content_bytes: int


@dataclass
class Snapshot:
    """The in-scope tree as of one scan."""

    taken_ns: int
    files: dict[str, Entry] = field(default_factory=dict)
    dirs: dict[str, int] = field(default_factory=dict)
    rules: dict[str, Any] = field(default_factory=dict)
    """Directory -> the patterns of its .gitignore (for directories that have one)."""
    ignore_keys: dict[str, Any] = field(default_factory=dict)
    base: Frames = ()
    listings: dict[str, Listing] = field(default_factory=dict)
    content_bytes: int = 0
    """The content of the files this snapshot keeps (what counts against its budget)."""
    unlisted: dict[str, tuple[Frames, tuple[int, ...]]] = field(default_factory=dict)
    """Directories a hurried first scan did not list yet (their frames and stat key); their
    modes are in ``dirs``. Not watched either: :meth:`Scanner.resume` lists them later."""
    partial_since: int = 0
    """When the first command ran while directories were unlisted (0: none did)."""

    def rules_of(self, rel_dir: str) -> Any:
        return self.rules.get(rel_dir)

    def to_json(self) -> dict[str, Any]:
        """The stat cache: the files whose content the store keeps (listings and rules are
        rebuilt by the next scan; files kept in git are found in git's index again)."""
        files = {
            rel: [*e.key, e.racy, e.state.to_json()] for rel, e in self.files.items() if not e.git
        }
        return {"version": 1, "taken": self.taken_ns, "files": files}

    @classmethod
    def from_json(cls, data: dict[str, Any], has_blob: Callable[[str], bool]) -> Snapshot:
        """The saved stat cache, less the files whose content is no longer stored."""
        snap = cls(taken_ns=int(data["taken"]))
        for rel, row in data["files"].items():
            state = State.from_json(row[6])
            if state.sha is None or has_blob(state.sha):
                snap.files[rel] = Entry(tuple(row[:5]), state, bool(row[5]))
        return snap


def _dir_key(st: os.stat_result) -> tuple[int, int, int, int]:
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_mode)


class Scanner:
    """Walks the workspace; keeps the content of every in-scope file in the blob store."""

    def __init__(
        self,
        scope: Scope,
        blobs: BlobStore,
        *,
        max_file_bytes: int,
        max_total_bytes: int | None = None,
        racy_window_ns: int = RACY_WINDOW_NS,
    ) -> None:
        self.scope = scope
        self.blobs = blobs
        self.cap = max_file_bytes
        self.max_total = max_total_bytes
        self.racy_window_ns = racy_window_ns
        self.files_read = 0
        """How many files the scans read (for tests and benchmarks)."""
        self.dirs_listed = 0
        """How many directories the scans listed (``scandir``)."""
        self.not_saved = 0
        """Files a scan found but did not read because ``hurry`` was set."""
        self.hurry = threading.Event()
        """Set: read no more content (a command waits); such files get ``NOT_SAVED_IN_TIME``."""
        self.wanted = threading.Event()
        """Set: a command waits for this scan, which then keeps the GIL (see ``YIELD_S``)."""
        self._git: GitIndex | None = None
        self._watch: Hook | None = None
        self._prev_files: dict[str, Entry] = {}
        self._budget: int | None = None
        self._racy_after = 0

    # -- a whole scan ----------------------------------------------------------------------------

    def scan(
        self, prev: Snapshot | None, *, git: GitIndex | None = None, watch: Hook | None = None
    ) -> Snapshot:
        """A new snapshot; files unchanged since ``prev`` keep their entry without being read.

        Args:
            prev: the last snapshot (its entries are reused where the stat still matches).
            git: the index of the repository: files it vouches for are not read.
            watch: called with each directory before it is listed (the watcher's ``watch``).
        """
        now = time.time_ns()
        self._start(now, None, git, watch)
        snap = Snapshot(taken_ns=now)
        snap.base = self.scope.base_frames(snap.ignore_keys)
        self._prev_files = prev.files if prev is not None else {}
        try:
            root_key = _dir_key(os.lstat(self.scope.root))
        except OSError:
            return snap
        self._walk(snap, None, "", snap.base, root_key, prev.listings if prev is not None else {})
        snap.content_bytes = sum(listing.content_bytes for listing in snap.listings.values())
        self._finish()
        return snap

    def _start(
        self, now: int, budget: int | None, git: GitIndex | None, watch: Hook | None
    ) -> None:
        self._racy_after = now - self.racy_window_ns
        self._budget = budget if budget is not None else self.max_total
        self._git = git
        self._watch = watch

    def _finish(self) -> None:
        self._git = None
        self._watch = None
        self._prev_files = {}
        self.blobs.flush()

    def _walk(
        self,
        snap: Snapshot,
        out: Snapshot | None,
        start: str,
        frames: Frames,
        start_key: tuple[int, ...],
        prev_listings: dict[str, Listing],
        done: set[str] | None = None,
    ) -> None:
        """List ``start`` and everything below it into ``snap`` (and the region ``out``; the
        directories listed go into ``done``)."""
        root = self.scope.root
        stack: list[tuple[str, Frames, tuple[int, ...]]] = [(start, frames, start_key)]
        let_go = 0.0
        while stack:
            # a scan in the background holds the GIL between its system calls: it lets go
            # between directories every YIELD_S, so the session's own thread (a tool the
            # model called, a stream) does not wait a whole switch interval (5 ms) at each of
            # its own system calls
            now = time.monotonic()
            if now >= let_go and not self.wanted.is_set():
                time.sleep(0)
                let_go = now + YIELD_S
            rel_dir, frames, dkey = stack.pop()
            if self.hurry.is_set() and rel_dir != start:  # a command waits: the rest later
                snap.unlisted[rel_dir] = (frames, dkey)
                continue
            if done is not None:
                done.add(rel_dir)
            abs_dir = os.path.join(root, rel_dir) if rel_dir else root
            frames = self._own_rules(snap, out, rel_dir, abs_dir, frames)
            if self._watch is not None:
                self._watch(rel_dir)
            listing = self._listing_of(prev_listings.get(rel_dir), abs_dir, rel_dir, frames, dkey)
            if listing is not None:
                subdirs = self._record(snap, out, rel_dir, listing)
                stack.extend((sub, frames, key) for sub, key in subdirs)

    def _listing_of(
        self,
        cached: Listing | None,
        abs_dir: str,
        rel_dir: str,
        frames: Frames,
        dkey: tuple[int, ...],
    ) -> Listing | None:
        """The listing of a directory (None if it cannot be listed): its ``cached`` one
        re-stat-ed when the directory did not change since, else a new one."""
        racy = max(dkey[0], dkey[1]) >= self._racy_after
        if cached and cached.key == dkey and not cached.racy and cached.frames == frames:
            listing = self._relist(cached, racy)
            if listing is not None:
                return listing
        return self._list(abs_dir, rel_dir, frames, dkey, racy)

    def _record(
        self, snap: Snapshot, out: Snapshot | None, rel_dir: str, listing: Listing
    ) -> list[tuple[str, tuple[int, ...]]]:
        """Put ``listing`` and its subdirectories' mode bits into ``snap`` (and the region
        ``out``); returns the subdirectories still there, with their stat keys."""
        snap.listings[rel_dir] = listing
        snap.files.update(zip(listing.rels, listing.entries, strict=True))
        if out is not None:
            out.listings[rel_dir] = listing
            out.files.update(zip(listing.rels, listing.entries, strict=True))
        subdirs: list[tuple[str, tuple[int, ...]]] = []
        for sub in listing.subdirs:
            st = self._subdir(listing, sub)
            if st is None:
                continue
            snap.dirs[sub] = stat.S_IMODE(st.st_mode)
            if out is not None:
                out.dirs[sub] = snap.dirs[sub]
            subdirs.append((sub, _dir_key(st)))
        return subdirs

    def _own_rules(
        self, snap: Snapshot, out: Snapshot | None, rel_dir: str, abs_dir: str, frames: Frames
    ) -> Frames:
        """The frames in force in ``rel_dir``: ``frames`` and its own .gitignore (recorded)."""
        ignore_path = os.path.join(abs_dir, IGNORE_FILE)
        ikey, patterns = self.scope.read(ignore_path)
        if ikey is not None:
            snap.ignore_keys[ignore_path] = ikey
        else:
            snap.ignore_keys.pop(ignore_path, None)
        if out is not None:
            out.ignore_keys[ignore_path] = ikey
        if patterns is None:
            snap.rules.pop(rel_dir, None)
            return frames
        snap.rules[rel_dir] = patterns
        return (Frame(rel_dir + "/" if rel_dir else "", "", patterns), *frames)

    def _subdir(self, listing: Listing, sub: str) -> os.stat_result | None:
        try:
            st = os.lstat(os.path.join(self.scope.root, sub))
        except OSError:
            listing.racy = True  # it went away meanwhile: list again next time
            return None
        if not stat.S_ISDIR(st.st_mode):
            listing.racy = True
            return None
        return st

    # -- an update of the directories a watcher reported -----------------------------------------

    def update(
        self, snap: Snapshot, dirty: set[str], *, watch: Hook, forget: Hook
    ) -> tuple[Snapshot, Snapshot]:
        """Bring ``snap`` up to date in place, listing only the directories in ``dirty`` (and
        below them what is new, or what their changed .gitignore now shows or hides).

        Args:
            snap: the snapshot to update (changed in place; its Listings are replaced, never
                changed, so an older snapshot sharing them stays valid).
            dirty: directories (relative) in which something happened since ``snap`` was taken.
            watch: called with each directory before it is listed (again: a directory
                made again under its old name may have lost its watch).
            forget: called with each directory that left the snapshot, with its subtree.

        Returns:
            The region looked at, as it was (``taken_ns`` and rules of ``snap`` before) and as it
            is now, in the form :func:`~agent.checkpoints.snapshot.diff` compares.
        """
        now = time.time_ns()
        budget = None if self.max_total is None else self.max_total - snap.content_bytes
        self._start(now, budget, None, watch)
        pre = Snapshot(taken_ns=snap.taken_ns, rules=dict(snap.rules), base=snap.base)
        pre.partial_since = snap.partial_since
        post = Snapshot(taken_ns=now, rules=snap.rules, base=snap.base)
        self._prev_files = snap.files
        region = _Region(pre, post)
        try:
            for rel_dir in sorted(dirty, key=lambda r: (r.count("/") + bool(r), r)):
                if rel_dir not in region.done and rel_dir in snap.listings:
                    self._redo(snap, rel_dir, region, forget)
        finally:
            snap.taken_ns = now
            self._finish()
        return pre, post

    def resume(
        self, snap: Snapshot, *, git: GitIndex | None, watch: Hook
    ) -> tuple[Snapshot, Snapshot]:
        """List the directories a hurried first scan left (``snap.unlisted``) into ``snap``;
        stops again when ``hurry`` is set. Returns the region, as :meth:`update` does: what
        was found there is new to the snapshot, and ``diff`` tells which of it a command may
        have changed while it was not listed. ``git`` as for :meth:`scan`."""
        now = time.time_ns()
        budget = None if self.max_total is None else self.max_total - snap.content_bytes
        self._start(now, budget, git, watch)
        pre = Snapshot(taken_ns=snap.taken_ns, rules=dict(snap.rules), base=snap.base)
        pre.partial_since = snap.partial_since
        pre.unlisted = dict(snap.unlisted)
        post = Snapshot(taken_ns=now, rules=snap.rules, base=snap.base)
        self._prev_files = snap.files
        region = _Region(pre, post)
        try:
            while snap.unlisted and not self.hurry.is_set():
                rel_dir, (frames, _) = snap.unlisted.popitem()
                try:
                    st = os.lstat(os.path.join(self.scope.root, rel_dir))
                except OSError:
                    st = None
                if st is None or not stat.S_ISDIR(st.st_mode):  # gone before it was listed
                    pre.dirs[rel_dir] = snap.dirs.pop(rel_dir, 0)
                    continue
                self._walk_new(snap, region, rel_dir, frames, _dir_key(st))
        finally:
            self._finish()
        for rel_dir in snap.unlisted:
            pre.unlisted.pop(rel_dir, None)  # still unlisted: nothing about them yet
        return pre, post

    def _redo(self, snap: Snapshot, rel_dir: str, region: _Region, forget: Hook) -> None:
        """List ``rel_dir`` again; its files and subdirectories go into the region."""
        region.done.add(rel_dir)
        old = snap.listings[rel_dir]
        root = self.scope.root
        abs_dir = os.path.join(root, rel_dir) if rel_dir else root
        inherited = snap.listings[rel_dir.rpartition("/")[0]].frames if rel_dir else snap.base
        ignore_path = os.path.join(abs_dir, IGNORE_FILE)
        region.pre.ignore_keys.setdefault(ignore_path, snap.ignore_keys.get(ignore_path))
        frames = self._own_rules(snap, region.post, rel_dir, abs_dir, inherited)
        listing = self._list_again(old, abs_dir, rel_dir, frames)
        if listing is None:  # gone, or another directory now: out of the snapshot
            if rel_dir:
                self._drop(snap, rel_dir, region.pre, forget)
            return
        self._replace(snap, region, rel_dir, old, listing)
        subs = set(listing.subdirs)
        for sub in old.subdirs:
            if sub in snap.dirs:
                region.pre.dirs.setdefault(sub, snap.dirs[sub])
            if sub not in subs:
                self._drop(snap, sub, region.pre, forget)
        for sub in listing.subdirs:
            self._redo_subdir(snap, sub, old, listing, region, forget)

    def _list_again(
        self, old: Listing, abs_dir: str, rel_dir: str, frames: Frames
    ) -> Listing | None:
        """A new listing of the directory ``old`` lists, None if it is gone or another
        directory now (the content ``old`` kept is not counted twice against the budget)."""
        try:
            st = os.lstat(abs_dir)
        except OSError:
            return None
        if not stat.S_ISDIR(st.st_mode) or st.st_ino != old.key[2]:
            return None
        if self._watch is not None:
            # the same inode number may be another directory now: one removed and made again
            # gets the number back at once (ext4), and its watch went with the one removed
            self._watch(rel_dir)
        if self._budget is not None:
            self._budget += old.content_bytes
        listing = self._list(abs_dir, rel_dir, frames, _dir_key(st), False)
        if listing is None and self._budget is not None:
            self._budget -= old.content_bytes
        return listing

    @staticmethod
    def _replace(
        snap: Snapshot, region: _Region, rel_dir: str, old: Listing, listing: Listing
    ) -> None:
        """Put ``listing`` in place of ``old`` in ``snap``: the files it no longer has leave
        the snapshot, the old files go into the region as they were, the new as they are."""
        snap.content_bytes += listing.content_bytes - old.content_bytes
        _keep_first(region.pre.files, old.rels, old.entries)
        region.post.files.update(zip(listing.rels, listing.entries, strict=True))
        still = set(listing.rels)
        for rel in old.rels:
            if rel not in still:
                snap.files.pop(rel, None)
        snap.files.update(zip(listing.rels, listing.entries, strict=True))
        snap.listings[rel_dir] = region.post.listings[rel_dir] = listing

    def _redo_subdir(
        self,
        snap: Snapshot,
        sub: str,
        old: Listing,
        listing: Listing,
        region: _Region,
        forget: Hook,
    ) -> None:
        """A subdirectory of a directory listed again (``old``, now ``listing``): a new one is
        walked, one whose inherited rules changed is listed again, one gone or replaced by
        another directory leaves the snapshot."""
        sst = self._subdir(listing, sub)
        known = snap.listings.get(sub)
        if known is not None and (sst is None or known.key[2] != sst.st_ino):
            self._drop(snap, sub, region.pre, forget)  # gone, or replaced by another directory
            known = None
        if sst is None:
            return
        snap.dirs[sub] = region.post.dirs[sub] = stat.S_IMODE(sst.st_mode)
        if sub in snap.unlisted:  # not listed yet: resume() will
            snap.unlisted[sub] = (listing.frames, _dir_key(sst))
        elif known is None:
            self._walk_new(snap, region, sub, listing.frames, _dir_key(sst))
        elif listing.frames != old.frames and sub not in region.done:
            self._redo(snap, sub, region, forget)

    def _walk_new(
        self, snap: Snapshot, region: _Region, rel_dir: str, frames: Frames, dkey: tuple[int, ...]
    ) -> None:
        """Walk ``rel_dir``, new to ``snap``, and everything below it: all of it is new to the
        region (its .gitignore files included)."""
        found = Snapshot(taken_ns=region.post.taken_ns)
        self._walk(snap, found, rel_dir, frames, dkey, {}, region.done)
        region.post.files.update(found.files)
        region.post.dirs.update(found.dirs)
        region.post.listings.update(found.listings)
        for path, key in found.ignore_keys.items():
            region.pre.ignore_keys.setdefault(path, None)
            region.post.ignore_keys[path] = key
        snap.content_bytes += sum(x.content_bytes for x in found.listings.values())

    def _drop(self, snap: Snapshot, top: str, pre: Snapshot, forget: Hook) -> None:
        """Take ``top`` and everything below it out of ``snap``; what it held goes into ``pre``."""
        stack = [top]
        while stack:
            rel_dir = stack.pop()
            mode = snap.dirs.pop(rel_dir, None)
            if mode is not None:
                pre.dirs.setdefault(rel_dir, mode)
            if snap.unlisted.pop(rel_dir, None) is not None:
                pre.unlisted[rel_dir] = ((), (0, 0, 0, 0))  # gone before it was ever listed
            listing = snap.listings.pop(rel_dir, None)
            snap.rules.pop(rel_dir, None)
            if listing is None:
                continue
            pre.listings.setdefault(rel_dir, listing)
            snap.content_bytes -= listing.content_bytes
            if self._budget is not None:
                self._budget += listing.content_bytes
            _keep_first(pre.files, listing.rels, listing.entries)
            for rel in listing.rels:
                snap.files.pop(rel, None)
            stack.extend(listing.subdirs)
        forget(top)

    def _relist(self, cached: Listing, racy: bool) -> Listing | None:
        """The listing of an unchanged directory: only its files are stat-ed again."""
        try:
            sts = list(map(os.lstat, cached.paths))
        except OSError:
            return None
        keys = [(s.st_size, s.st_mtime_ns, s.st_ctime_ns, s.st_ino, s.st_mode) for s in sts]
        if keys == cached.keys and not cached.racy_files:
            if self._budget is not None:
                self._budget -= cached.content_bytes
            return cached
        rels, paths, entries = [], [], []
        rows = zip(cached.rels, cached.paths, keys, cached.entries, strict=True)
        for rel, path, key, old in rows:
            if key != old.key or old.racy:
                entry = self._entry(path, key, rel)
                if entry is None:
                    return None
                old = entry
            else:
                self._spend(old)
            rels.append(rel)
            paths.append(path)
            entries.append(old)
        return self._listing(cached.key, cached.frames, racy, rels, paths, entries, cached.subdirs)

    def _list(
        self, abs_dir: str, rel_dir: str, frames: Frames, dkey: tuple[int, ...], racy: bool
    ) -> Listing | None:
        self.dirs_listed += 1
        try:
            with os.scandir(abs_dir) as it:
                dir_entries = list(it)
        except OSError:
            return None
        prefix = rel_dir + "/" if rel_dir else ""
        rels, paths, entries, subdirs = [], [], [], []
        prev_files = self._prev_files
        for e in dir_entries:
            name = e.name
            if name == SKIPPED_DIR:
                continue
            rel = prefix + name
            try:
                if e.is_dir(follow_symlinks=False):
                    if not (frames and decide(frames, rel, True)):
                        subdirs.append(rel)
                    continue
                if frames and decide(frames, rel, False):
                    continue
                st = e.stat(follow_symlinks=False)
            except OSError:
                continue
            key = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_mode)
            old = prev_files.get(rel)
            if old is None or old.key != key or old.racy:
                old = self._entry(e.path, key, rel)
                if old is None:
                    continue
            else:
                self._spend(old)
            rels.append(rel)
            paths.append(e.path)
            entries.append(old)
        return self._listing(dkey, frames, racy, rels, paths, entries, subdirs)

    def _listing(
        self,
        dkey: tuple[int, ...],
        frames: Frames,
        racy: bool,
        rels: list[str],
        paths: list[str],
        entries: list[Entry],
        subdirs: list[str],
    ) -> Listing:
        return Listing(
            key=dkey,
            frames=frames,
            racy=racy,
            rels=rels,
            paths=paths,
            entries=entries,
            keys=[e.key for e in entries],
            subdirs=subdirs,
            racy_files=any(e.racy for e in entries),
            content_bytes=sum(e.state.size for e in entries if e.state.sha is not None),
        )

    def _spend(self, entry: Entry) -> None:
        """Count a kept entry's content against the snapshot budget."""
        if self._budget is not None and entry.state.sha is not None:
            self._budget -= entry.state.size

    def _entry(self, path: str, key: tuple[int, ...], rel: str) -> Entry | None:
        """A new entry for the file or link at ``path`` (None if it is neither, or vanished)."""
        mode = key[4]
        if stat.S_ISLNK(mode):
            try:
                state = State(LINK, target=os.readlink(path))
            except OSError:
                return None
        elif not stat.S_ISREG(mode):
            return None
        elif self._git is not None and key[0] <= self.cap and (oid := self._git.blob_of(rel, key)):
            return Entry(key, IN_GIT_STATE, max(key[1], key[2]) >= self._racy_after, oid)
        elif self._budget is not None and key[0] > self._budget:
            why = "over the workspace snapshot budget"
            state = State(FILE, stat.S_IMODE(mode), None, key[0], key[1], why=why)
        elif self.hurry.is_set():
            self.not_saved += 1
            state = State(FILE, stat.S_IMODE(mode), None, key[0], key[1], why=NOT_SAVED_IN_TIME)
            return Entry(key, state, True)
        else:
            state, fst = file_state(path, self.blobs, self.cap, background=True)
            self.files_read += 1
            if fst is None:
                return None
            key = stat_key(fst)
            if self._budget is not None and state.sha is not None:
                self._budget -= key[0]
        return Entry(key, state, max(key[1], key[2]) >= self._racy_after)


@dataclass
class _Region:
    """What an update or a resume looked at, for ``diff``: as it was (``pre``) and as it is
    now (``post``), and the directories it listed on the way (``done``)."""

    pre: Snapshot
    post: Snapshot
    done: set[str] = field(default_factory=set)


def _keep_first(into: dict[str, Entry], rels: list[str], entries: list[Entry]) -> None:
    """Add the entries not already in ``into`` (the region keeps the state first seen)."""
    for rel, entry in zip(rels, entries, strict=True):
        if rel not in into:
            into[rel] = entry
