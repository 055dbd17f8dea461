"""Glob: files whose path matches a glob pattern, newest first, honouring .gitignore.

The listing (:mod:`tools.search_files`) starts at the pattern's literal leading directories
(``src/**/*.ts`` reads only ``src``), goes no deeper than the pattern can match when it has no
``**``, lets rg filter file names when the pattern's last segment is a plain name glob
(``*.ts``), and prunes ignored directories (see :mod:`tools.ignore`), so an ignored
``node_modules`` is never read. With rg, ``newest_files`` has rg processes (one per CPU, each on
a share of the subdirectories) list and sort by modification time, and reads only the head of
each list; without rg (or where only the Python rules are exact) every file is listed, stat'ed
and sorted here. Either way the order is newest first, then by path, so the same tree gives the
same list every time; a read deny rule is asked only about the files up to the cut.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tools.base import ResolvedPath, ToolContext, ToolError, ToolResult
from tools.globpattern import CompiledGlob, compile_glob
from tools.search_files import iter_files, newest_files, printable
from tools.textfile import summary_path

TRUNCATED_NOTE = "(Results are truncated. Consider using a more specific path or pattern.)"


def split_absolute(pattern: str) -> tuple[str | None, str]:
    """``"/repo/src/**/*.py"`` -> ``("/repo/src", "**/*.py")``; relative patterns -> (None, p)."""
    expanded = os.path.expanduser(pattern)
    if not os.path.isabs(expanded):
        return None, pattern
    parts = expanded.split("/")
    literal = []
    for part in parts[:-1]:
        if any(ch in part for ch in "*?[{\\"):
            break
        literal.append(part)
    base = "/".join(literal) or "/"
    return base, "/".join(parts[len(literal) :])


def find_files(
    start: Path,
    glob: CompiledGlob,
    workspace: Path | None = None,
    stop: threading.Event | None = None,
    backend: str | None = None,
) -> list[str]:
    """Every file below ``start`` matching ``glob``: newest first, then by path.

    Each file is stat'ed as the listing streams it, while rg still walks.

    Args:
        start: the directory to walk (absolute, real).
        glob: the compiled pattern, relative to ``start``.
        workspace: the workspace root, above which no ignore file is read.
        stop: set it to end the walk early.
        backend: ``"python"`` forces the Python walk (see ``iter_files``).
    """
    listing = iter_files(
        start,
        workspace,
        max_depth=glob.max_depth,
        names=glob.names,
        keep=glob.regex.match,
        stop=stop,
        backend=backend,
    )
    keyed: list[tuple[int, str]] = []
    for path in listing:
        try:
            keyed.append((-os.stat(path).st_mtime_ns, path))
        except OSError:  # gone since it was listed
            continue
    keyed.sort()
    return [path for _key, path in keyed]


def _first(paths: list[str], limit: int, denied: Callable[[str], bool] | None) -> list[str]:
    """The first ``limit + 1`` of ``paths`` that no read deny rule hides (the one past the
    limit says the list was cut); each path's rules are checked only until then."""
    if denied is None:
        return paths[: limit + 1]
    kept: list[str] = []
    for path in paths:
        if not denied(path):
            kept.append(path)
            if len(kept) > limit:
                break
    return kept


class GlobTool:
    """The Glob tool (Claude Code's name and input fields).

    Args:
        backend: ``"python"`` forces the Python walk; None lists with rg when it can.
    """

    name = "Glob"
    description = (
        "Fast file pattern matching that works with any codebase size.\n"
        '- Supports glob patterns like "**/*.js" or "src/**/*.ts"; "*" stays within one '
        'directory, "**" spans any number of directories, "{ts,tsx}" gives alternatives. '
        'The pattern is matched from the searched directory, so "*.py" finds only its top-level '
        'files: use "**/*.py" to search all levels.\n'
        "- Returns matching file paths (absolute) sorted by modification time, newest first; "
        "files ignored by .gitignore and the .git directory are skipped.\n"
        "- Use this tool when you need to find files by name patterns. To search file contents "
        "use Grep; for an open-ended search needing several rounds, make several calls.\n"
        "- You can call several tools in one response: it is often better to run several "
        "searches in parallel."
    )
    input_schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "pattern": {
                "type": "string",
                "minLength": 1,
                "description": "The glob pattern to match files against",
            },
            "path": {
                "type": "string",
                "description": "The directory to search in. If not specified, the workspace "
                'root is used. Omit it for the default; do not pass "undefined" or "null".',
            },
        },
        "required": ["pattern"],
        "additionalProperties": False,
    }
    read_only = True

    def __init__(self, backend: str | None = None) -> None:
        self.backend = backend

    def _root_raw(self, args: dict[str, Any], ctx: ToolContext) -> tuple[str, str]:
        base, pattern = split_absolute(args["pattern"])
        raw = args.get("path")
        if raw in (None, "", "undefined", "null"):
            raw = str(ctx.workspace)
        return (base or raw), pattern

    def paths(self, args: dict[str, Any], ctx: ToolContext) -> list[ResolvedPath]:
        """The directory searched."""
        return [ctx.resolve(self._root_raw(args, ctx)[0])]

    def summary(self, args: dict[str, Any]) -> str:
        """The pattern, and the directory when one is given."""
        where = args.get("path")
        return str(args.get("pattern", "")) + (f" in {summary_path(where)}" if where else "")

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Find the files; see the description."""
        raw, pattern = self._root_raw(args, ctx)
        root = ctx.resolve_for(self.name, raw)
        if not root.exists():
            raise ToolError(f"Directory does not exist: {raw}")
        if not root.is_dir():
            raise ToolError(f"Path is not a directory: {raw}")
        glob = compile_glob(pattern)
        start = ctx.resolve_for(self.name, str(root / glob.prefix)) if glob.prefix else root
        if not start.is_dir():
            return ToolResult("No files found")
        rule = ctx.read_denied
        # a read deny rule: its files are not even named
        denied = None if rule is None else lambda p: rule(self.name, Path(os.path.realpath(p)))
        limit = ctx.limits.glob_max_results
        stop = threading.Event()

        def listing() -> tuple[list[str], bool]:
            if self.backend != "python":
                newest = newest_files(
                    start,
                    ctx.workspace,
                    limit,
                    max_depth=glob.max_depth,
                    names=glob.names,
                    keep=glob.regex.match,
                    wanted=None if denied is None else lambda p: not denied(p),
                    stop=stop,
                )
                if newest is not None:
                    return newest
            found = find_files(start, glob, ctx.workspace, stop, self.backend)
            kept = _first(found, limit, denied)
            return kept[:limit], len(kept) > limit

        try:
            lines, more = await asyncio.to_thread(listing)
        finally:
            stop.set()
        if not lines:
            return ToolResult("No files found")
        if more:
            lines.append(TRUNCATED_NOTE)
        return ToolResult(printable("\n".join(lines)))


TOOL = GlobTool()
