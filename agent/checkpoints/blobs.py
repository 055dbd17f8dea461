"""A content-addressed store of file contents for checkpoints: one file per distinct content.

A blob is named by the SHA-256 of its bytes and kept as ``<root>/<first 2 hex>/<other 62>``,
written through a temporary file and ``os.replace`` so a reader never sees half a blob. The
same content is stored once however many files, checkpoints or scans refer to it. Blobs are
never changed; ``gc`` removes the ones nothing refers to any more.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

WRITERS = 4
"""Threads that write blobs in the background (creating files is slow; it overlaps well)."""
MAX_QUEUED = 256
"""Blobs waiting to be written at most (so queued contents cannot fill the memory)."""


class BlobStore:
    """The blobs under ``root`` (created on first write)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._known: set[str] | None = None
        self._dirs: set[str] = set()
        self._lock = threading.Lock()
        self._tmp_seq = 0
        self._executor: ThreadPoolExecutor | None = None
        self._queued: dict[str, Future[None]] = {}
        self._slots = threading.BoundedSemaphore(MAX_QUEUED)

    def _path(self, sha: str) -> str:
        return os.path.join(self.root, sha[:2], sha[2:])

    def path(self, sha: str) -> Path:
        """Where the blob ``sha`` is (or would be) kept."""
        return Path(self._path(sha))

    def known(self) -> set[str]:
        """The names of all stored blobs (listed from disk once, then kept up to date)."""
        if self._known is None:
            found: set[str] = set()
            try:
                subdirs = os.listdir(self.root)
            except FileNotFoundError:
                subdirs = []
            for sub in subdirs:
                if len(sub) != 2:
                    continue
                try:
                    names = os.listdir(os.path.join(self.root, sub))
                except NotADirectoryError:
                    continue
                self._dirs.add(sub)
                found.update(sub + n for n in names if len(n) == 62 and ".tmp" not in n)
            self._known = found
        return self._known

    def has(self, sha: str) -> bool:
        return sha in self.known()

    def put_hashed(self, sha: str, data: bytes, *, background: bool = False) -> None:
        """Store ``data`` whose SHA-256 the caller already computed.

        With ``background``, the write may happen in another thread: call :meth:`flush` before
        relying on the blob being on disk.
        """
        known = self.known()
        if sha in known or sha in self._queued:
            return
        if not background:
            self._write(sha, data)
            return
        if self._executor is None:
            self._executor = ThreadPoolExecutor(WRITERS, thread_name_prefix="eddy-blobs")
        self._slots.acquire()
        try:
            future = self._executor.submit(self._write, sha, data)
        except BaseException:
            self._slots.release()
            raise
        self._queued[sha] = future
        future.add_done_callback(lambda _f: self._slots.release())

    def flush(self) -> None:
        """Wait for the background writes; raise the first error (OSError) among them."""
        queued, self._queued = self._queued, {}
        error: BaseException | None = None
        for future in queued.values():
            exc = future.exception()
            if exc is not None and error is None:
                error = exc
        if error is not None:
            raise error

    def _write(self, sha: str, data: bytes) -> None:
        sub = sha[:2]
        directory = os.path.join(self.root, sub)
        if sub not in self._dirs:
            os.makedirs(directory, exist_ok=True)
            with self._lock:
                self._dirs.add(sub)
        with self._lock:
            self._tmp_seq += 1
            tmp = os.path.join(directory, f"{sha[2:10]}.{os.getpid()}.{self._tmp_seq}.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, self._path(sha))
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
        with self._lock:
            self.known().add(sha)

    def read(self, sha: str) -> bytes:
        """The content of blob ``sha`` (FileNotFoundError if it is missing)."""
        with open(self._path(sha), "rb") as f:
            return f.read()

    def gc(self, keep: Iterable[str]) -> int:
        """Remove every blob not in ``keep`` (and stray temporary files); return how many."""
        keep_set = set(keep)
        removed = 0
        for sha in list(self.known() - keep_set):
            try:
                os.unlink(self._path(sha))
            except FileNotFoundError:
                pass
            self.known().discard(sha)
            removed += 1
        for sub in list(self._dirs):
            directory = os.path.join(self.root, sub)
            try:
                for name in os.listdir(directory):
                    if name.endswith(".tmp"):
                        os.unlink(os.path.join(directory, name))
            except OSError:
                continue
        return removed

    def disk_usage(self) -> tuple[int, int]:
        """(number of blobs, total bytes of their contents)."""
        total = 0
        count = 0
        for sha in self.known():
            try:
                total += os.stat(self._path(sha)).st_size
                count += 1
            except FileNotFoundError:
                continue
        return count, total
