"""The whole output of a command whose result is cut: kept in memory while it is short,
written to a file once it passes the result's cap, so the model can be told where to read it.

The file lives in ``ctx.output_dir`` (the session's data directory) or, without one, in a
temporary directory this process creates once and removes at exit. It is capped too
(``MAX_FILE_CHARS``): a command printing gigabytes fills neither the context nor the disk.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import tempfile
import uuid
from pathlib import Path
from typing import TextIO

MAX_FILE_CHARS = 64 * 1024 * 1024
"""The most output one saved file keeps (the rest is counted, not written)."""

_temp_dir: Path | None = None


def _process_temp_dir() -> Path:
    """A temporary directory of this process, removed when it exits."""
    global _temp_dir
    if _temp_dir is None:
        _temp_dir = Path(tempfile.mkdtemp(prefix="eddy-output-"))
        atexit.register(shutil.rmtree, _temp_dir, True)
    return _temp_dir


def output_folder(directory: Path | None) -> Path:
    """Where files for ``directory`` go (None: the process's temporary directory), created."""
    base = directory if directory is not None else _process_temp_dir()
    base.mkdir(parents=True, exist_ok=True)
    return base


def new_output_path(directory: Path | None, prefix: str) -> Path:
    """A fresh file name in ``directory`` (or the process's temporary directory)."""
    return output_folder(directory) / f"{prefix}-{uuid.uuid4().hex[:10]}.txt"


class OutputSpool:
    """Collects a stream of text; past ``threshold`` characters it goes to a file.

    Args:
        threshold: below this many characters nothing is written (the result holds it all).
        directory: where the file goes (None: a temporary directory of this process).
        prefix: the start of the file's name.
    """

    def __init__(self, threshold: int, directory: Path | None, prefix: str = "bash") -> None:
        self.threshold = threshold
        self.directory = directory
        self.prefix = prefix
        self.path: Path | None = None
        self.error: str | None = None
        """Why the file could not be written, or None."""
        self.written = 0
        self.fed = 0
        """Characters fed so far (a view of the output sees it grow)."""
        self.clipped = False
        """Whether the file stopped at ``MAX_FILE_CHARS``."""
        self._held: list[str] = []
        self._held_len = 0
        self._file: TextIO | None = None

    def feed(self, text: str) -> None:
        """Add a chunk of output."""
        self.fed += len(text)
        if self.error is not None or self.clipped:
            return
        if self._file is None:
            self._held.append(text)
            self._held_len += len(text)
            if self._held_len <= self.threshold:
                return
            if not self._open():
                return
            text = "".join(self._held)
            self._held = []
        self._write(text)

    def _open(self) -> bool:
        try:
            self.path = new_output_path(self.directory, self.prefix)
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            self._file = open(fd, "w", encoding="utf-8", errors="surrogateescape")  # noqa: SIM115
        except OSError as exc:
            self.error = exc.strerror or str(exc)
            self._held = []
            return False
        return True

    def _write(self, text: str) -> None:
        assert self._file is not None
        room = MAX_FILE_CHARS - self.written
        if len(text) > room:
            text, self.clipped = text[:room], True
        try:
            self._file.write(text)
            # each chunk reaches the file as it comes: a view following the file (a
            # background shell's /bashes screen) is told of it by the kernel
            self._file.flush()
        except OSError as exc:
            self.error = exc.strerror or str(exc)
            self.close()
            return
        self.written += len(text)

    def tail(self, max_chars: int) -> str:
        """The last ``max_chars`` characters of what was fed so far (read back from the file
        once there is one), without consuming anything: a view of a running command."""
        if self.path is None:
            return "".join(self._held)[-max_chars:]
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.flush()
        try:
            with open(self.path, "rb") as f:
                f.seek(max(0, f.seek(0, os.SEEK_END) - 4 * max_chars))
                data = f.read()
        except OSError:
            return ""
        return data.decode("utf-8", "replace")[-max_chars:]

    def close(self) -> Path | None:
        """Finish the file; its path, or None when the output stayed below the threshold."""
        self._held = []
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None
        return self.path

    def note(self) -> str:
        """What the result says about the saved output (empty when nothing was saved)."""
        if self.error is not None:
            return f"(The whole output could not be saved: {self.error}.)"
        if self.path is None:
            return ""
        clipped = f" (its first {MAX_FILE_CHARS} characters)" if self.clipped else ""
        return (
            f"The whole output{clipped} is saved in {self.path}: read parts of it with Read "
            "(offset and limit) or search it with Grep."
        )
