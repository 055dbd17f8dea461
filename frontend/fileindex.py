"""A file index for @-mention completion: ignore rules honoured, fuzzy ranking, fast.

The list comes from ``git ls-files`` (tracked and untracked-but-not-ignored) when the workspace
is a git repository, else from the listing Glob uses (``rg --files`` under eddy's ignore rules,
or the Python walk without rg: :mod:`tools.search_files`). It is built once (in a thread,
by the front end) and ranked per keystroke: on 100,000 paths a query is a single pass of cheap
string tests before the (few) candidates are scored.
"""

from __future__ import annotations

import heapq
import subprocess
from pathlib import Path

from tools.childenv import child_env


def list_files(workspace: Path, limit: int = 500_000) -> list[str]:
    """Workspace-relative paths of the files a user may mention (ignored files left out)."""
    from tools.ignore import respect_gitignore

    # respectGitignore false: git's ignore rules do not hide files from the @ picker either
    excluded = ["--exclude-standard"] if respect_gitignore() else []
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", *excluded],
            cwd=workspace,
            env=child_env(),
            capture_output=True,
            timeout=20,
        )
        if out.returncode == 0:
            files = [p for p in out.stdout.decode(errors="replace").split("\0") if p]
            return sorted(set(files))[:limit]
    except (OSError, subprocess.SubprocessError):
        pass
    from tools.search_files import iter_files

    skip = len(str(workspace).rstrip("/")) + 1
    files = []
    for path in iter_files(workspace, workspace):
        files.append(path[skip:])
        if len(files) >= limit:
            break
    return sorted(files)


def _score(path: str, low: str, query: str) -> int | None:
    """Higher is better; None when ``query``'s characters are not in ``path`` in order
    (``low``: ``path`` in lower case)."""
    name = low.rsplit("/", 1)[-1]
    if query in name:
        return 1000 - len(path) + (500 if name.startswith(query) else 0)
    if query in low:
        return 600 - len(path)
    pos, gaps, last = 0, 0, -1
    for ch in query:
        pos = low.find(ch, pos)
        if pos < 0:
            return None
        if last >= 0 and pos != last + 1:
            gaps += 1
        last = pos
        pos += 1
    return 300 - gaps * 10 - len(path)


class FileIndex:
    """Paths of a workspace, ranked against a query (fuzzy: characters in order).

    Typing a query one key at a time only narrows it, and what matches ``abc`` is among what
    matched ``ab``: the matches of the last query are kept, and a query that extends it is
    looked for among them only. Safe to call from several threads (the cache is replaced
    whole, and any earlier query's matches are a superset)."""

    def __init__(self, files: list[str]) -> None:
        self.files = files
        self._low = [f.lower() for f in files]
        self._last: tuple[str, list[int]] = ("\0", [])  # no query matches "\0"

    @classmethod
    def build(cls, workspace: Path) -> FileIndex:
        return cls(list_files(workspace))

    def search(self, query: str, limit: int = 20) -> list[str]:
        """The best ``limit`` paths for ``query`` (the start of the list when it is empty)."""
        q = query.lower().lstrip("./")
        if not q:
            return self.files[:limit]
        last_query, last_matched = self._last
        candidates = last_matched if q.startswith(last_query) else range(len(self.files))
        files, low = self.files, self._low
        matched: list[int] = []
        scored: list[tuple[int, str]] = []
        for i in candidates:
            s = _score(files[i], low[i], q)
            if s is not None:
                matched.append(i)
                scored.append((s, files[i]))
        self._last = (q, matched)
        best = heapq.nsmallest(limit, scored, key=lambda sp: (-sp[0], sp[1]))
        return [p for _, p in best]
