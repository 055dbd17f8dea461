"""Glob: files whose path matches a glob pattern, newest first, honouring .gitignore.

The listing (:mod:`tools.search_files`: ``rg --files`` on every core, or the Python walk without
rg) starts at the pattern's literal leading directories (``src/**/*.ts`` reads only ``src``),
goes no deeper than the pattern can match when it has no ``**``, lets rg filter file names when
the pattern's last segment is a plain name glob (``*.ts``), and prunes ignored directories (see
:mod:`tools.ignore`), so an ignored ``node_modules`` is never read. The order is eddy's, not the
walk's: newest first, then by path, so the same tree gives the same list every time.
"""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path
from typing import Any

from tools.base import ResolvedPath, ToolContext, ToolError, ToolResult
from tools.globpattern import CompiledGlob, compile_glob
from tools.search_files import list_files, printable
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
) -> list[tuple[float, str]]:
    """``(mtime, path)`` of every file below ``start`` matching ``glob`` (unsorted).

    Args:
        start: the directory to walk (absolute, real).
        glob: the compiled pattern, relative to ``start``.
        workspace: the workspace root, above which no ignore file is read.
        stop: set it to end the walk early.
        backend: ``"python"`` forces the Python walk (see ``list_files``).
    """
    paths = list_files(
        start,
        workspace,
        max_depth=glob.max_depth,
        names=glob.names,
        keep=glob.regex.match,
        stop=stop,
        backend=backend,
    )
    found: list[tuple[float, str]] = []
    for path in paths:
        try:
            found.append((os.stat(path).st_mtime, path))
        except OSError:  # gone since it was listed
            continue
    return found


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
        stop = threading.Event()
        try:
            found = await asyncio.to_thread(
                find_files, start, glob, ctx.workspace, stop, self.backend
            )
        finally:
            stop.set()
        denied = ctx.read_denied
        if denied is not None:  # a read deny rule: its files are not even named
            found = [f for f in found if not denied(self.name, Path(os.path.realpath(f[1])))]
        if not found:
            return ToolResult("No files found")
        found.sort(key=lambda item: (-item[0], item[1]))
        limit = ctx.limits.glob_max_results
        lines = [path for _mtime, path in found[:limit]]
        if len(found) > limit:
            lines.append(TRUNCATED_NOTE)
        return ToolResult(printable("\n".join(lines)))


TOOL = GlobTool()
