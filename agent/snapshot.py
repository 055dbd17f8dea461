"""What the checkpoint engine can see of a workspace: file states, scope rules and scans.

- A :class:`State` is what one path looked like: absent, a regular file (content hash and mode
  bits), a symbolic link (its target) or a directory (its mode bits). A file whose content was
  not kept (over the size cap, unreadable) has ``sha=None`` and a ``why``; it can be compared
  (by size and mtime) but not restored.
- :class:`Scanner` walks the in-scope tree (see :mod:`agent.scope`) and returns a
  :class:`Snapshot`: for every file its stat key (size, mtime_ns, ctime_ns, inode, mode) and
  State, with the content of every file (under the cap) in the blob store. A rescan re-reads
  only files whose stat key changed, or that were modified so recently when they were last
  read ("racy", as git calls it) that a later change could keep the same timestamps. A
  directory whose own stat did not change (and was not racy) keeps its listing: no
  ``scandir``, no ignore matching, one ``lstat`` per file.
- :func:`diff` compares two snapshots (before and after a shell command).
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agent.blobstore import BlobStore
from agent.scope import IGNORE_FILE, SKIPPED_DIR, Frame, Frames, Scope, decide, stat_key

ABSENT, FILE, LINK, DIR = "absent", "file", "link", "dir"
RACY_WINDOW_NS = 2_000_000_000
"""Files changed this long before a scan are read again at the next one (coarse clocks)."""


@dataclass(frozen=True, slots=True)
class State:
    """The state of one path. ``sha`` is None for a file whose content was not kept."""

    kind: str
    mode: int = 0
    sha: str | None = None
    size: int = 0
    mtime_ns: int = 0
    target: str | None = None
    why: str | None = None

    @property
    def restorable(self) -> bool:
        return self.kind != FILE or self.sha is not None

    def same(self, other: State) -> bool:
        """Whether both describe the same thing (content and mode bits; dirs: existence)."""
        if self.kind != other.kind:
            return False
        if self.kind == FILE:
            if self.mode != other.mode:
                return False
            if self.sha is None or other.sha is None:
                return (self.size, self.mtime_ns, self.sha) == (
                    other.size,
                    other.mtime_ns,
                    other.sha,
                )
            return self.sha == other.sha
        if self.kind == LINK:
            return self.target == other.target
        return True

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"k": self.kind}
        if self.kind in (FILE, DIR):
            d["m"] = self.mode
        if self.kind == FILE:
            d["h"] = self.sha
            d["n"] = self.size
            if self.sha is None:
                d["t"] = self.mtime_ns
                d["w"] = self.why
        if self.kind == LINK:
            d["l"] = self.target
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> State:
        return cls(
            kind=d["k"],
            mode=d.get("m", 0),
            sha=d.get("h"),
            size=d.get("n", 0),
            mtime_ns=d.get("t", 0),
            target=d.get("l"),
            why=d.get("w"),
        )


GONE = State(ABSENT)


class Entry:
    """A scanned file or link: its stat key, its State, and whether it must be read again."""

    __slots__ = ("key", "racy", "state")

    def __init__(self, key: tuple[int, ...], state: State, racy: bool) -> None:
        self.key = key
        self.state = state
        self.racy = racy


# -- reading files ---------------------------------------------------------------------------


def read_capped(path: str, cap: int) -> tuple[bytes | None, os.stat_result]:
    """The content of the regular file ``path`` (None when it is larger than ``cap``).

    The stat returned is taken from the open file after reading, so it belongs to the content.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(f"{path} is not a regular file")
        if st.st_size > cap:
            return None, st
        chunks = []
        remaining = cap + 1
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        data = b"".join(chunks)
        st = os.fstat(fd)
        if len(data) > cap:
            return None, st
        return data, st
    finally:
        os.close(fd)


def cap_text(cap: int) -> str:
    if cap >= 1 << 20:
        return f"{cap / (1 << 20):g} MB"
    return f"{cap / 1024:g} KB" if cap >= 1024 else f"{cap} bytes"


def file_state(
    path: str, blobs: BlobStore, cap: int, *, background: bool = False
) -> tuple[State, os.stat_result | None]:
    """Read the regular file ``path`` into the blob store; return its State and stat.

    With ``background`` the blob may still be being written (see ``BlobStore.flush``).
    """
    try:
        data, st = read_capped(path, cap)
    except FileNotFoundError:
        return GONE, None
    except OSError as exc:
        try:
            st = os.lstat(path)
        except OSError:
            return GONE, None
        why = f"unreadable ({exc.strerror or exc})"
        return State(FILE, stat.S_IMODE(st.st_mode), None, st.st_size, st.st_mtime_ns, why=why), st
    mode = stat.S_IMODE(st.st_mode)
    if data is None:
        why = f"larger than the {cap_text(cap)} size cap"
        return State(FILE, mode, None, st.st_size, st.st_mtime_ns, why=why), st
    sha = hashlib.sha256(data).hexdigest()
    blobs.put_hashed(sha, data, background=background)
    return State(FILE, mode, sha, st.st_size), st


def capture(path: str, blobs: BlobStore, cap: int) -> tuple[State, os.stat_result | None]:
    """The current State of any path (file content goes into the blob store)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return GONE, None
    except NotADirectoryError:
        return GONE, None
    mode = st.st_mode
    if stat.S_ISDIR(mode):
        return State(DIR, stat.S_IMODE(mode)), st
    if stat.S_ISLNK(mode):
        try:
            return State(LINK, target=os.readlink(path)), st
        except OSError:
            return GONE, None
    if stat.S_ISREG(mode):
        return file_state(path, blobs, cap)
    why = "not a regular file"
    return State(FILE, stat.S_IMODE(mode), None, st.st_size, st.st_mtime_ns, why=why), st


# -- scans -------------------------------------------------------------------------------------


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


def ignore_rules_changed(pre: Snapshot, post: Snapshot) -> bool:
    return pre.ignore_keys != post.ignore_keys


Change = tuple[State, State]


def diff(
    pre: Snapshot,
    post: Snapshot,
    scope: Scope,
    blobs: BlobStore,
    cap: int,
) -> tuple[dict[str, Change], dict[str, str]]:
    """What changed between two scans: ``({path: (before, after)}, {path: why not restorable})``.

    A path that left the scan but still exists (a .gitignore now ignores it) is read directly.
    A path new to the scan whose ctime is older than the first scan was there unseen and did
    not change (it came with a directory moved in, say): it is not a creation, and is never
    deleted by a rewind. When a .gitignore changed, a path new to the scan counts as
    created only if the old rules would have seen it; otherwise it existed unseen and, having
    been changed, cannot be restored.
    """
    changes: dict[str, Change] = {}
    blocked: dict[str, str] = {}
    root = scope.root
    pre_files, post_files = pre.files, post.files
    for rel, old in pre_files.items():
        new = post_files.get(rel)
        if new is old:
            continue
        if new is None:
            after, _ = capture(os.path.join(root, rel), blobs, cap)
        else:
            after = new.state
        if not old.state.same(after):
            changes[rel] = (old.state, after)
    for rel, mode in pre.dirs.items():
        if rel in post.dirs:
            if post.dirs[rel] != mode:
                changes[rel] = (State(DIR, mode), State(DIR, post.dirs[rel]))
            continue
        after, _ = capture(os.path.join(root, rel), blobs, cap)
        if after.kind != DIR:
            changes[rel] = (State(DIR, mode), after)
    # A path new to the scan counts as created only if it could not have been there unseen:
    # its ctime (which every write, chmod and rename sets, and nothing sets back) is recent.
    unseen_before = pre.taken_ns - RACY_WINDOW_NS
    rules_changed = ignore_rules_changed(pre, post)
    for rel, new in post_files.items():
        if rel in pre_files or rel in changes:
            continue
        if new.key[2] < unseen_before:
            # There all along but unseen, and unchanged since: moved in with its directory (a
            # rewind must not delete what may exist nowhere else), or unreadable before.
            parent = rel.rpartition("/")[0]
            if parent and parent not in pre.dirs:
                blocked[rel] = "moved into the workspace by a command: a rewind keeps it"
            continue
        if rules_changed and scope.out_of_scope(rel, False, pre.rules_of, pre.base):
            blocked[rel] = "ignored before a .gitignore changed: its earlier state is unknown"
            continue
        changes[rel] = (GONE, new.state)
    for rel, mode in post.dirs.items():
        if rel in pre.dirs or rel in changes:
            continue
        listing = post.listings.get(rel)
        if listing is not None and listing.key[1] < unseen_before:
            continue
        if rules_changed and scope.out_of_scope(rel, True, pre.rules_of, pre.base):
            continue
        changes[rel] = (GONE, State(DIR, mode))
    return changes, blocked
