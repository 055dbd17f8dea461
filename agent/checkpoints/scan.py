"""The scanner of the checkpoint engine: it walks the in-scope tree into a :class:`Snapshot`.

:class:`Scanner` walks the in-scope tree (see :mod:`agent.checkpoints.scope`) and returns a
:class:`Snapshot`: for every file its stat key (size, mtime_ns, ctime_ns, inode, mode) and
State (see :mod:`~agent.checkpoints.snapshot`),
with the content of every file (under the cap) in the blob
store. A rescan re-reads only files whose stat key changed, or that were modified so recently
when they were last read ("racy", as git calls it) that a later change could keep the same
timestamps. A directory whose own stat did not change (and was not racy) keeps its
:class:`Listing`: no ``scandir``, no ignore matching, one ``lstat`` per file.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agent.checkpoints.blobs import BlobStore
from agent.checkpoints.scope import IGNORE_FILE, SKIPPED_DIR, Frame, Frames, Scope, decide, stat_key
from agent.checkpoints.snapshot import FILE, LINK, RACY_WINDOW_NS, Entry, State, file_state


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

    def rules_of(self, rel_dir: str) -> Any:
        return self.rules.get(rel_dir)

    def to_json(self) -> dict[str, Any]:
        """The stat cache (files only: listings and rules are rebuilt by the next scan)."""
        files = {rel: [*e.key, e.racy, e.state.to_json()] for rel, e in self.files.items()}
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

    def scan(self, prev: Snapshot | None) -> Snapshot:
        """A new snapshot; files unchanged since ``prev`` keep their entry without being read."""
        now = time.time_ns()
        self._racy_after = now - self.racy_window_ns
        self._budget = self.max_total
        root = self.scope.root
        snap = Snapshot(taken_ns=now)
        snap.base = self.scope.base_frames(snap.ignore_keys)
        self._prev_files = prev.files if prev is not None else {}
        prev_listings = prev.listings if prev is not None else {}
        try:
            root_key = _dir_key(os.lstat(root))
        except OSError:
            return snap
        stack: list[tuple[str, Frames, tuple[int, ...]]] = [("", snap.base, root_key)]
        while stack:
            rel_dir, frames, dkey = stack.pop()
            abs_dir = os.path.join(root, rel_dir) if rel_dir else root
            ignore_path = os.path.join(abs_dir, IGNORE_FILE)
            ikey, patterns = self.scope.read(ignore_path)
            if ikey is not None:
                snap.ignore_keys[ignore_path] = ikey
            if patterns is not None:
                snap.rules[rel_dir] = patterns
                frames = (Frame(rel_dir + "/" if rel_dir else "", "", patterns), *frames)
            racy = max(dkey[0], dkey[1]) >= self._racy_after
            cached = prev_listings.get(rel_dir)
            listing = None
            if cached and cached.key == dkey and not cached.racy and cached.frames == frames:
                listing = self._relist(cached, racy)
            if listing is None:
                listing = self._list(abs_dir, rel_dir, frames, dkey, racy)
                if listing is None:
                    continue
            snap.listings[rel_dir] = listing
            snap.files.update(zip(listing.rels, listing.entries, strict=True))
            for sub in listing.subdirs:
                try:
                    st = os.lstat(os.path.join(root, sub))
                except OSError:
                    listing.racy = True  # it went away meanwhile: list again next time
                    continue
                if not stat.S_ISDIR(st.st_mode):
                    listing.racy = True
                    continue
                snap.dirs[sub] = stat.S_IMODE(st.st_mode)
                stack.append((sub, frames, _dir_key(st)))
        self.blobs.flush()
        return snap

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
                entry = self._entry(path, key)
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
                old = self._entry(e.path, key)
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

    def _entry(self, path: str, key: tuple[int, ...]) -> Entry | None:
        """A new entry for the file or link at ``path`` (None if it is neither, or vanished)."""
        mode = key[4]
        if stat.S_ISLNK(mode):
            try:
                state = State(LINK, target=os.readlink(path))
            except OSError:
                return None
        elif not stat.S_ISREG(mode):
            return None
        elif self._budget is not None and key[0] > self._budget:
            why = "over the workspace snapshot budget"
            state = State(FILE, stat.S_IMODE(mode), None, key[0], key[1], why=why)
        else:
            state, fst = file_state(path, self.blobs, self.cap, background=True)
            self.files_read += 1
            if fst is None:
                return None
            key = stat_key(fst)
            if self._budget is not None and state.sha is not None:
                self._budget -= key[0]
        return Entry(key, state, max(key[1], key[2]) >= self._racy_after)
