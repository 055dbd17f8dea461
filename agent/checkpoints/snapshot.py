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
    changes: dict[str, Change] = {}
    blocked: dict[str, str] = {}
    root = scope.root
    pre_files, post_files = pre.files, post.files
    # Files whose before or after may differ: (path, before, after); after None = read it now.
    # Entries kept in git get their content (``resolve``) only once it is clear they changed.
    compared: list[tuple[str, Entry | None, Entry | None]] = []
    for rel, old in pre_files.items():
        new = post_files.get(rel)
        if new is old:
            continue
        if new is not None and new.key == old.key and not (old.git or old.state.restorable):
            continue  # read again only because it had not been read: the stat says unchanged
        if new is not None and new.git and old.git == new.git and old.key[4] == new.key[4]:
            continue  # the same blob
        compared.append((rel, old, new))
    for rel, mode in pre.dirs.items():
        if rel in post.dirs:
            if post.dirs[rel] != mode:
                changes[rel] = (State(DIR, mode), State(DIR, post.dirs[rel]))
            continue
        after, _ = capture(os.path.join(root, rel), blobs, cap)
        if after.kind != DIR:
            changes[rel] = (State(DIR, mode), after)
    # A path new to the scan counts as created only if it could not have been there unseen:
    # its ctime (which every write, chmod and rename sets, and nothing sets back) is recent, or
    # it is a file or directory of the scan that moved (the same inode left its old path).
    unseen_before = pre.taken_ns - RACY_WINDOW_NS
    rules_changed = ignore_rules_changed(pre, post)
    moved_files = {old.key[3] for rel, old in pre_files.items() if rel not in post_files}
    moved_dirs = {x.key[2] for rel, x in pre.listings.items() if rel and rel not in post.dirs}
    unknown = pre.unlisted
    since = pre.partial_since - RACY_WINDOW_NS if pre.partial_since else None
    for rel in pre.dirs:  # listed or not, the parent knew its mode
        if rel in unknown and rel not in post.dirs and since is not None:
            blocked[rel] = UNKNOWN_DIR
    for rel, listed in post.listings.items():
        if rel in unknown and since is not None and max(listed.key[0], listed.key[1]) >= since:
            blocked[rel] = UNKNOWN_DIR  # something in it was created, deleted or renamed
    for rel, new in post_files.items():
        if rel in pre_files or rel in changes:
            continue
        if unknown and _below(rel, unknown):
            if since is not None and max(new.key[1], new.key[2]) >= since:
                blocked[rel] = UNKNOWN_FILE
            continue  # there before any command, or changed when its state was not known
        movable = new.git is not None or new.state.restorable
        if new.key[2] < unseen_before and not (new.key[3] in moved_files and movable):
            # There all along but unseen, and unchanged since: moved in with its directory (a
            # rewind must not delete what may exist nowhere else), or unreadable before.
            parent = rel.rpartition("/")[0]
            if parent and parent not in pre.dirs:
                blocked[rel] = "moved into the workspace by a command: a rewind keeps it"
            continue
        if rules_changed and scope.out_of_scope(rel, False, pre.rules_of, pre.base):
            blocked[rel] = "ignored before a .gitignore changed: its earlier state is unknown"
            continue
        compared.append((rel, None, new))
    in_git = [e for _, a, b in compared for e in (a, b) if e is not None and e.git]
    states = dict(zip(map(id, in_git), resolve(in_git), strict=True)) if in_git and resolve else {}
    for rel, was, now in compared:
        before = GONE if was is None else states.get(id(was), was.state)
        if now is None:
            after, _ = capture(os.path.join(root, rel), blobs, cap)
        else:
            after = states.get(id(now), now.state)
        if not before.same(after):
            changes[rel] = (before, after)
    for rel, mode in post.dirs.items():
        if rel in pre.dirs or rel in changes or (unknown and _below(rel, unknown)):
            continue
        listing = post.listings.get(rel)
        if (
            listing is not None
            and listing.key[1] < unseen_before
            and listing.key[2] not in moved_dirs
        ):
            continue
        if rules_changed and scope.out_of_scope(rel, True, pre.rules_of, pre.base):
            continue
        changes[rel] = (GONE, State(DIR, mode))
    return changes, blocked
