"""Claude Code's memory syntax: ``@path`` imports and block HTML comments.

An import is ``@path`` at the start of a line or after whitespace (so ``me@example.com`` is
none), outside code spans and fenced code blocks. The path is relative to the importing file;
``~/`` is the home directory. Imports nest at most :data:`MAX_DEPTH` hops. A missing file, a
cycle or a too deep import is reported as a problem; nothing raises.

A project's memory files (found in the project and the folders above it) import only what lies
inside the project and its added directories (``roots``; a file in a folder above the project,
which the repository cannot plant, also what lies below its own folder): an import reaching
elsewhere (``@~/.ssh/id_rsa``, ``@../other/secret``, an absolute path, a symlink leading out)
is left out and listed in ``Expander.external`` until the user approves it (the trust
question). The user's own memory files (``~/.claude/CLAUDE.md``, eddy's) import what they like.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

MAX_DEPTH = 5
"""How many hops of imports are followed (Claude Code's limit)."""

MAX_FILE_CHARS = 200_000
"""A memory file longer than this is cut (a huge import must not flood every request)."""

_FENCE = re.compile(r"^\s*(```|~~~)")
_SPAN = re.compile(r"(`+)(?:.+?)\1")
_IMPORT = re.compile(r"(?:^|(?<=\s))@((?:~/|/|\.{1,2}/)?[^\s`'\"()<>\[\]]+)")
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)


@dataclass(frozen=True)
class MemoryFile:
    """One memory file as it reaches the prompt.

    Attributes:
        path: the file.
        text: its text with block HTML comments removed.
        imported_by: the file that imported it, or None for a file found by location.
    """

    path: Path
    text: str
    imported_by: Path | None = None


@dataclass
class Expander:
    """Reads memory files and the files they import, each once.

    Attributes:
        problems: what went wrong (missing imports, cycles, depth), for the user.
        seen: the real paths already read (a file imported twice is read once).
    """

    problems: list[str] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)
    roots: tuple[Path, ...] | None = None
    """Where a project file's imports may lead (real paths); None: anywhere (approved)."""
    external: list[tuple[Path, Path]] = field(default_factory=list)
    """(importer, real path) of each import left out because it reaches outside ``roots``."""
    survey: bool = False
    """Follow imports outside ``roots`` too, to list theirs (for the trust question: what is
    read is not sent anywhere); they are still listed in ``external``."""

    def read(self, path: Path, *, users: bool = False) -> list[MemoryFile]:
        """``path`` and, after it, what it imports (depth first), or [] if it was read.

        Args:
            path: a memory file.
            users: it is the user's own (its imports are not limited to the project).
        """
        roots = None if users or self.roots is None else self.roots
        real = Path(os.path.realpath(path))
        if roots is not None and not _within(real, roots):
            roots = (*roots, real.parent)  # a folder above the project: its own files too
        return list(self._read(path, None, (), roots))

    def _read(
        self,
        path: Path,
        parent: Path | None,
        chain: tuple[str, ...],
        roots: tuple[Path, ...] | None,
    ) -> Iterator[MemoryFile]:
        real = os.path.realpath(path)
        if parent is not None and roots is not None and not _within(Path(real), roots):
            if (parent, Path(real)) not in self.external:
                self.external.append((parent, Path(real)))
            if not self.survey:
                self.problems.append(
                    f"{parent}: the import of {path} reaches outside the project ({real}); it "
                    "is not read until you approve it (eddy asks when a session starts)."
                )
                return
        if real in chain:
            self.problems.append(f"{parent}: the import of {path} is a cycle; skipped.")
            return
        if real in self.seen:
            return
        try:
            raw = Path(real).read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            where = f"{parent}: the import of {path}" if parent is not None else str(path)
            self.problems.append(f"{where} cannot be read ({exc.strerror or exc}); skipped.")
            return
        self.seen.add(real)
        text = strip_comments(raw[:MAX_FILE_CHARS])
        yield MemoryFile(path, text, parent)
        targets = import_targets(text)
        if targets and len(chain) + 1 > MAX_DEPTH:
            self.problems.append(
                f"{path}: imports nest deeper than {MAX_DEPTH} levels; "
                f"{', '.join('@' + t for t in targets)} not read."
            )
            return
        for target in targets:
            resolved = resolve_import(target, path)
            if not resolved.exists():
                self.problems.append(f"{path}: imported file {target} does not exist; skipped.")
                continue
            if resolved.is_dir():
                continue  # "@src/" names a folder in prose, not a file to load
            yield from self._read(resolved, path, (*chain, real), roots)


def _within(path: Path, roots: tuple[Path, ...]) -> bool:
    return any(path == r or r in path.parents for r in roots)


def resolve_import(target: str, importer: Path) -> Path:
    """The file ``@target`` names, written in ``importer``."""
    if target.startswith("~/"):
        return Path(os.path.expanduser(target))
    p = Path(target)
    return p if p.is_absolute() else importer.parent / p


def _looks_like_path(target: str) -> bool:
    # "@alice" or "@here" in prose is a mention of a person, not a file
    return "/" in target or "." in target.lstrip(".")


def import_targets(text: str) -> list[str]:
    """The ``@path`` imports of ``text`` in order, outside code spans and fences."""
    out: list[str] = []
    fence: str | None = None
    for line in text.splitlines():
        marker = _FENCE.match(line)
        if marker is not None:
            if fence is None:
                fence = marker.group(1)
            elif marker.group(1) == fence:
                fence = None
            continue
        if fence is not None:
            continue
        for match in _IMPORT.finditer(_SPAN.sub(" ", line)):
            target = match.group(1).rstrip(".,;:!?")
            if _looks_like_path(target) and target not in out:
                out.append(target)
    return out


def strip_comments(text: str) -> str:
    """``text`` without HTML comments, except inside fenced code blocks."""
    out: list[str] = []
    fence: str | None = None
    chunk: list[str] = []

    def flush() -> None:
        if chunk:
            out.append(_COMMENT.sub("", "".join(chunk)))
            chunk.clear()

    for line in text.splitlines(keepends=True):
        marker = _FENCE.match(line)
        if fence is None and marker is not None:
            flush()
            fence = marker.group(1)
            out.append(line)
        elif fence is not None:
            out.append(line)
            if marker is not None and marker.group(1) == fence:
                fence = None
        else:
            chunk.append(line)
    flush()
    return "".join(out)
