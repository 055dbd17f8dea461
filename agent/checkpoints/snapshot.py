"""What the checkpoint engine can see of a workspace: file states, and what changed between scans.

- A :class:`State` is what one path looked like: absent, a regular file (content hash and mode
  bits), a symbolic link (its target) or a directory (its mode bits). A file whose content was
  not kept (over the size cap, unreadable) has ``sha=None`` and a ``why``; it can be compared
  (by size and mtime) but not restored. An :class:`Entry` is a scanned file's State with its
  stat key.
- :func:`file_state` and :func:`capture` read one path (file content into the blob store).
- :func:`diff` compares two snapshots (before and after a shell command); the snapshots
  themselves are taken by :class:`agent.checkpoints.scan.Scanner`.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent.checkpoints.blobs import BlobStore
from agent.checkpoints.scope import Scope

if TYPE_CHECKING:
    from agent.checkpoints.scan import Snapshot

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


IN_GIT = "kept in git's object store"
"""The ``why`` of the State of a file whose content is a git blob (see ``Entry.git``)."""
IN_GIT_STATE = State(FILE, why=IN_GIT)
"""The State of every entry whose content is a git blob (one object for all of them)."""


class Entry:
    """A scanned file or link: its stat key, its State, whether it must be read again, and
    (``git``) the id of the git blob holding its content when the engine did not copy it; then
    ``state`` is :data:`IN_GIT_STATE` (mode and size are in the key) until :func:`diff` needs
    the content (see :mod:`agent.checkpoints.gitbase`)."""

    __slots__ = ("git", "key", "racy", "state")

    def __init__(
        self, key: tuple[int, ...], state: State, racy: bool, git: str | None = None
    ) -> None:
        self.key = key
        self.state = state
        self.racy = racy
        self.git = git


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


def ignore_rules_changed(pre: Snapshot, post: Snapshot) -> bool:
    return pre.ignore_keys != post.ignore_keys


UNKNOWN_FILE = (
    "changed while the workspace was still being snapshotted: its earlier state is unknown"
)
UNKNOWN_DIR = (
    "changed while the workspace was still being snapshotted: what was deleted from it is unknown"
)


def _another_inode(post: Snapshot, rel: str, inode: int) -> bool:
    """Whether directory ``rel`` of ``post`` was listed and is another inode than ``inode``."""
    listing = post.listings.get(rel)
    return listing is not None and listing.key[2] != inode


def _below(rel: str, dirs: Any) -> bool:
    """Whether ``rel`` lies below one of ``dirs`` (a set or dict of directory paths)."""
    head = rel.rpartition("/")[0]
    while head:
        if head in dirs:
            return True
        head = head.rpartition("/")[0]
    return False


Change = tuple[State, State]
Resolve = Callable[[list[Entry]], list[State]]
"""Reads the content of entries kept in git (``Entry.git``) into the blob store: their States,
in the same order."""


def diff(
    pre: Snapshot,
    post: Snapshot,
    scope: Scope,
    blobs: BlobStore,
    cap: int,
    resolve: Resolve | None = None,
) -> tuple[dict[str, Change], dict[str, str]]:
    """What changed between two scans: ``({path: (before, after)}, {path: why not restorable})``.

    The two may be whole snapshots or the region of the tree an update looked at (see
    ``Scanner.update``). ``resolve`` gives the content of a changed entry kept in git.

    A path that left the scan but still exists (a .gitignore now ignores it) is read directly.
    A path new to the scan whose ctime is older than the first scan was there unseen and did
    not change (it came with a directory moved in, say): it is not a creation, and is never
    deleted by a rewind, unless its inode left a path of the scan (a directory moved within
    the workspace): then its old path comes back and it goes. When a .gitignore changed, a path
    new to the scan counts as created only if the old rules would have seen it; otherwise it
    existed unseen and, having been changed, cannot be restored. Below a directory a hurried
    first scan had not listed (``pre.unlisted``), nothing counts as created: what a command
    may have changed there (by its ctime) is reported as not restorable.
    """
    walk = _Diff(pre, post, scope, blobs, cap)
    walk.old_files()
    walk.old_dirs()
    walk.unknown_dirs()
    walk.new_files()
    walk.compare(resolve)
    walk.new_dirs()
    return walk.changes, walk.blocked


class _Diff:
    """The steps of :func:`diff`, in their order, and what they share: the changes and the
    paths not restorable found so far, and the files whose before or after may differ."""

    def __init__(self, pre: Snapshot, post: Snapshot, scope: Scope, blobs: BlobStore, cap: int):
        self.pre, self.post, self.scope, self.blobs, self.cap = pre, post, scope, blobs, cap
        self.changes: dict[str, Change] = {}
        self.blocked: dict[str, str] = {}
        # Files whose before or after may differ: (path, before, after); after None = read it
        # now. Entries kept in git get their content (``resolve``) only once they changed.
        self.compared: list[tuple[str, Entry | None, Entry | None]] = []
        # A path new to the scan counts as created only if it could not have been there unseen:
        # its ctime (which every write, chmod and rename sets, and nothing sets back) is recent,
        # or it is a file or directory of the scan that moved (the same inode left its old path).
        self.unseen_before = pre.taken_ns - RACY_WINDOW_NS
        self.rules_changed = ignore_rules_changed(pre, post)
        self.moved_files = {old.key[3] for rel, old in pre.files.items() if rel not in post.files}
        # A directory's inode left its path when the path is gone or is another directory now
        # (moved away and one made in its place: ``mv d1 d4; mkdir -p d1/d2``, where d4/d2,
        # the old d1/d2, is new to the scan with an old ctime but must go on a rewind).
        self.moved_dirs = {
            x.key[2]
            for rel, x in pre.listings.items()
            if rel and (rel not in post.dirs or _another_inode(post, rel, x.key[2]))
        }
        self.unknown = pre.unlisted
        self.since = pre.partial_since - RACY_WINDOW_NS if pre.partial_since else None

    def _read(self, rel: str) -> State:
        return capture(os.path.join(self.scope.root, rel), self.blobs, self.cap)[0]

    def old_files(self) -> None:
        """The files of ``pre`` that may have changed, to compare."""
        post_files = self.post.files
        for rel, old in self.pre.files.items():
            new = post_files.get(rel)
            if new is old:
                continue
            if new is not None and new.key == old.key and not (old.git or old.state.restorable):
                continue  # read again only because it had not been read: the stat says unchanged
            if new is not None and new.git and old.git == new.git and old.key[4] == new.key[4]:
                continue  # the same blob
            self.compared.append((rel, old, new))

    def old_dirs(self) -> None:
        """The directories of ``pre`` whose mode changed, or that are gone or no longer one."""
        for rel, mode in self.pre.dirs.items():
            if rel in self.post.dirs:
                if self.post.dirs[rel] != mode:
                    self.changes[rel] = (State(DIR, mode), State(DIR, self.post.dirs[rel]))
                continue
            after = self._read(rel)
            if after.kind != DIR:
                self.changes[rel] = (State(DIR, mode), after)

    def unknown_dirs(self) -> None:
        """Directories a hurried first scan had not listed, in which a command may have
        created, deleted or renamed something: what was there is unknown."""
        if self.since is None:
            return
        for rel in self.pre.dirs:  # listed or not, the parent knew its mode
            if rel in self.unknown and rel not in self.post.dirs:
                self.blocked[rel] = UNKNOWN_DIR
        for rel, listed in self.post.listings.items():
            if rel in self.unknown and max(listed.key[0], listed.key[1]) >= self.since:
                self.blocked[rel] = UNKNOWN_DIR

    def new_files(self) -> None:
        """The files new to the scan: created (to compare), or there unseen (not restorable
        when a command may have changed them)."""
        for rel, new in self.post.files.items():
            if rel in self.pre.files or rel in self.changes:
                continue
            if self.unknown and _below(rel, self.unknown):
                if self.since is not None and max(new.key[1], new.key[2]) >= self.since:
                    self.blocked[rel] = UNKNOWN_FILE
                continue  # there before any command, or changed when its state was not known
            if self._there_unseen(rel, new):
                continue
            if self.rules_changed and self.scope.out_of_scope(
                rel, False, self.pre.rules_of, self.pre.base
            ):
                self.blocked[rel] = (
                    "ignored before a .gitignore changed: its earlier state is unknown"
                )
                continue
            self.compared.append((rel, None, new))

    def _there_unseen(self, rel: str, new: Entry) -> bool:
        """Whether ``rel`` was there all along but unseen, and unchanged since: moved in with
        its directory (a rewind must not delete what may exist nowhere else), or unreadable
        before."""
        movable = new.git is not None or new.state.restorable
        if new.key[2] >= self.unseen_before or (new.key[3] in self.moved_files and movable):
            return False
        parent = rel.rpartition("/")[0]
        if parent and parent not in self.pre.dirs:
            self.blocked[rel] = "moved into the workspace by a command: a rewind keeps it"
        return True

    def compare(self, resolve: Resolve | None) -> None:
        """The changes among the files to compare (those kept in git read through
        ``resolve``)."""
        compared = self.compared
        in_git = [e for _, a, b in compared for e in (a, b) if e is not None and e.git]
        states = (
            dict(zip(map(id, in_git), resolve(in_git), strict=True)) if in_git and resolve else {}
        )
        for rel, was, now in compared:
            before = GONE if was is None else states.get(id(was), was.state)
            after = self._read(rel) if now is None else states.get(id(now), now.state)
            if not before.same(after):
                self.changes[rel] = (before, after)

    def new_dirs(self) -> None:
        """The directories new to the scan that a command created (not moved in unseen)."""
        pre, unknown = self.pre, self.unknown
        for rel, mode in self.post.dirs.items():
            if rel in pre.dirs or rel in self.changes or (unknown and _below(rel, unknown)):
                continue
            listing = self.post.listings.get(rel)
            if (
                listing is not None
                and listing.key[1] < self.unseen_before
                and listing.key[2] not in self.moved_dirs
            ):
                continue
            if self.rules_changed and self.scope.out_of_scope(rel, True, pre.rules_of, pre.base):
                continue
            self.changes[rel] = (GONE, State(DIR, mode))
