"""What git already holds of the workspace, so the checkpoint engine need not copy it.

A tracked file whose ``lstat`` still matches its entry in git's index has the content of that
entry's blob: ``git status`` relies on exactly this. The first snapshot of a workspace in a git
repository therefore reads only what git cannot give back (untracked files, files modified
since the index was written, "racily clean" ones) and keeps, for every other file, the id of its
blob (:class:`GitIndex`). When a command then changes such a file, its earlier content is taken
from git's object store (:meth:`GitRepo.read_blobs`) and kept in the engine's own blob store.

Git is trusted only where its blob is byte for byte the file: not where attributes or
``core.autocrlf`` may convert content on checkout (``filter``, ``text``, ``eol``, ``crlf``,
``ident``, ``working-tree-encoding``), nor with a split index; there the engine reads every
file as it does outside git. Git itself (``git rev-parse``, ``git config``, ``git cat-file``) is
run only in the background snapshot and for files a command changed.
"""

from __future__ import annotations

import os
import re
import stat
import struct
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tools.childenv import child_env

GIT_TIMEOUT_S = 30.0
RISKY_ATTRIBUTE = re.compile(
    r"(?:^|\s)(?:text|eol|crlf|ident|filter|working-tree-encoding)(?:=|\s|$)"
)
"""An attribute that makes git convert content between the blob and the file (set, not unset:
``-text`` and ``binary`` are harmless)."""
EXTENDED, STAGE_MASK, ASSUME_VALID = 0x4000, 0x3000, 0x8000
SKIP_WORKTREE, INTENT_TO_ADD = 0x4000, 0x2000
REGULAR, EXECUTABLE = 0o100644, 0o100755
EXEC_BITS = 0o170000 | stat.S_IXUSR
"""What of ``st_mode`` the index's mode tells: a regular file, and whether it is executable."""

Stat = tuple[int, ...]
"""The engine's stat key: size, mtime_ns, ctime_ns, inode, mode."""


@dataclass(frozen=True)
class GitRepo:
    """The repository around a workspace: where it is and how its objects are named."""

    top: str
    """The work tree's root."""
    prefix: str
    """The workspace relative to ``top``, ending in ``/`` (``""`` when it is the root)."""
    index: str
    """The index file."""
    hash_len: int
    """20 for SHA-1 repositories, 32 for SHA-256."""

    @classmethod
    def find(cls, workspace: str) -> GitRepo | None:
        """The repository whose work tree holds ``workspace``, or None (no git, no repository,
        or a repository whose blobs may differ from the files: see the module's docstring)."""
        out = _git(
            workspace,
            "rev-parse",
            "--show-toplevel",
            "--git-path",
            "index",
            "--git-dir",
            "--show-object-format",
        )
        if out is None:
            return None
        lines = out.split("\n")
        if len(lines) < 4 or not lines[0]:
            return None
        top, index, git_dir, fmt = lines[0], lines[1], lines[2], lines[3]
        index = os.path.join(workspace, index) if not os.path.isabs(index) else index
        git_dir = os.path.join(workspace, git_dir) if not os.path.isabs(git_dir) else git_dir
        real_top = os.path.realpath(top)
        if workspace != real_top and not workspace.startswith(real_top + os.sep):
            return None
        prefix = workspace[len(real_top) + 1 :].replace(os.sep, "/")
        repo = cls(real_top, prefix + "/" if prefix else "", index, 32 if fmt == "sha256" else 20)
        if repo._converts(git_dir):
            return None
        return repo

    def _converts(self, git_dir: str) -> bool:
        """Whether git may convert content between blob and file anywhere in this repository."""
        config = _git(self.top, "config", "--get-regexp", r"^core\.(autocrlf|attributesfile)$")
        attribute_files = [
            os.path.join(git_dir, "info", "attributes"),
            "/etc/gitattributes",
            os.path.join(
                os.environ.get("XDG_CONFIG_HOME") or os.path.expanduser("~/.config"),
                "git",
                "attributes",
            ),
        ]
        for line in (config or "").splitlines():
            key, _, value = line.partition(" ")
            if key.lower() == "core.autocrlf" and value.strip().lower() not in ("false", "0", ""):
                return True
            if key.lower() == "core.attributesfile" and value.strip():
                attribute_files.append(os.path.expanduser(value.strip()))
        files = _git(self.top, "ls-files", "-z", "--", ":(glob)**/.gitattributes")
        if files is None:
            return True
        attribute_files += [os.path.join(self.top, f) for f in files.split("\0") if f]
        for path in attribute_files:
            try:
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read()
            except OSError:
                continue
            for line in text.splitlines():
                line = line.strip()
                if line and not line.startswith("#") and RISKY_ATTRIBUTE.search(line):
                    return True
        return False

    def read_index(self) -> GitIndex | None:
        """The index's trustworthy entries below the workspace, or None when it cannot be read."""
        try:
            with open(self.index, "rb") as f:
                data = f.read()
            written = os.stat(self.index).st_mtime_ns
        except OSError:
            return None
        entries = parse_index(data, self.hash_len, self.prefix, written)
        if entries is None:
            return None
        return GitIndex(entries)

    def read_blobs(self, oids: list[str]) -> dict[str, bytes | None]:
        """The content of each blob (None for one git no longer has).

        Raises:
            OSError: git could not be run, or failed.
        """
        unique = list(dict.fromkeys(oids))
        if not unique:
            return {}
        try:
            out = subprocess.run(
                ["git", "-C", self.top, "cat-file", "--batch"],
                input="\n".join(unique).encode() + b"\n",
                capture_output=True,
                timeout=GIT_TIMEOUT_S,
                check=False,
                env=child_env(),
            )
        except (OSError, subprocess.SubprocessError) as exc:
            raise OSError(f"git cat-file could not run ({exc})") from exc
        if out.returncode != 0:
            raise OSError(f"git cat-file failed: {out.stderr.decode(errors='replace').strip()}")
        found: dict[str, bytes | None] = {}
        data, pos = out.stdout, 0
        for oid in unique:
            end = data.find(b"\n", pos)
            if end < 0:
                raise OSError("git cat-file's answer was cut short")
            header = data[pos:end].split()
            pos = end + 1
            if len(header) == 3 and header[1] == b"blob":
                size = int(header[2])
                found[oid] = data[pos : pos + size]
                pos += size + 1
            elif len(header) == 3:  # not a blob: skip its body
                pos += int(header[2]) + 1
                found[oid] = None
            else:
                found[oid] = None  # "<oid> missing"
        return found


class GitIndex:
    """The index entries of the workspace's files: path -> (stat as git saw it, blob id)."""

    def __init__(self, entries: dict[str, tuple[tuple[int, int, int, int], int, bytes]]):
        self._entries = entries

    def __len__(self) -> int:
        return len(self._entries)

    def blob_of(self, rel: str, key: Stat) -> str | None:
        """The blob id holding ``rel``'s content when its stat ``key`` (size, mtime_ns,
        ctime_ns, inode, mode) still matches the index, else None. Entries that were racily
        clean when the index was written are left out by :func:`parse_index`."""
        entry = self._entries.get(rel)
        if entry is None or key[:4] != entry[0] or entry[1] != key[4] & EXEC_BITS:
            return None  # changed since (or an inode or size past 32 bits: read it)
        return entry[2].hex()


_HEAD = struct.Struct(">4sII")


def parse_index(
    data: bytes, hash_len: int, prefix: str, written: int
) -> dict[str, tuple[tuple[int, int, int, int], int, bytes]] | None:
    """The stage-0 regular-file entries of a git index (versions 2 to 4) below ``prefix``,
    keyed by their path relative to it: ((size, mtime_ns, ctime_ns, inode), the ``st_mode``
    bits of :data:`EXEC_BITS` they imply, blob id). Left out: entries git would look at the
    content of (modified at or after ``written``, the index's mtime: "racily clean"), assumed
    unchanged, skipped in the work tree, conflicted, or not regular files. None for what this
    parser does not trust (a split index, an unknown version, a damaged file)."""
    if len(data) < 12:
        return None
    sig, version, count = _HEAD.unpack_from(data, 0)
    if sig != b"DIRC" or version not in (2, 3, 4):
        return None
    entry = struct.Struct(f">10I{hash_len}sH")
    fixed = entry.size
    cut = len(prefix)
    out: dict[str, tuple[tuple[int, int, int, int], int, bytes]] = {}
    pos, previous = 12, b""
    try:
        for _ in range(count):
            (cs, cn, ms, mn, _dev, ino, mode, _uid, _gid, size, oid, flags) = entry.unpack_from(
                data, pos
            )
            p = pos + fixed
            xflags = 0
            if flags & EXTENDED:
                if version < 3:
                    return None
                xflags = int.from_bytes(data[p : p + 2], "big")
                p += 2
            if version == 4:
                strip, p = _varint(data, p)
                end = data.index(b"\0", p)
                name = previous[: len(previous) - strip] + data[p:end]
                pos = end + 1
            else:
                n = flags & 0xFFF
                end = p + n if n < 0xFFF else data.index(b"\0", p)
                name = data[p:end]
                pos += (end - pos + 8) & ~7  # NUL-padded to a multiple of 8
            previous = name
            if (
                flags & (STAGE_MASK | ASSUME_VALID)
                or xflags & (SKIP_WORKTREE | INTENT_TO_ADD)
                or mode not in (REGULAR, EXECUTABLE)
            ):
                continue
            rel = name.decode("utf-8", "surrogateescape")
            if cut:
                if not rel.startswith(prefix):
                    continue
                rel = rel[cut:]
            mtime = ms * 1_000_000_000 + mn
            if mtime >= written:
                continue
            bits = stat.S_IFREG | (stat.S_IXUSR if mode == EXECUTABLE else 0)
            out[rel] = ((size, mtime, cs * 1_000_000_000 + cn, ino), bits, oid)
        while pos + 8 <= len(data) - hash_len:  # extensions
            sig = data[pos : pos + 4]
            length = int.from_bytes(data[pos + 4 : pos + 8], "big")
            if sig == b"link":  # a split index: these entries are only part of it
                return None
            pos += 8 + length
    except (ValueError, struct.error, IndexError):
        return None
    return out


def _varint(data: bytes, p: int) -> tuple[int, int]:
    """Git's offset varint (index v4 path compression)."""
    c = data[p]
    p += 1
    value = c & 0x7F
    while c & 0x80:
        c = data[p]
        p += 1
        value = ((value + 1) << 7) | (c & 0x7F)
    return value, p


def _git(cwd: str, *args: str) -> str | None:
    """Git's output (stripped of the last newline), or None when it could not run or failed."""
    try:
        out = subprocess.run(
            ["git", "-C", cwd, *args],
            capture_output=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
            stdin=subprocess.DEVNULL,
            env=child_env(),
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    text = out.stdout.decode("utf-8", errors="surrogateescape")
    return text[:-1] if text.endswith("\n") else text


def workspace_repo(workspace: Path) -> GitRepo | None:
    """:meth:`GitRepo.find` for a workspace path (its real path)."""
    return GitRepo.find(os.path.realpath(workspace))
