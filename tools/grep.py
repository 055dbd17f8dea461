"""Grep: search file contents with a regular expression, through ripgrep when it is there.

ripgrep is the one the ``ripgrep`` wheel installs beside the Python executable, else the first
on PATH; without it the pure-Python :mod:`tools.grep_fallback` runs, with the same options and
output. Both search hidden files, honour .gitignore (also outside a git repository), skip
``.git`` and binary files, and sort by path (rg searches in parallel and eddy orders the output,
see :mod:`tools.grep_rg`), so a search gives the same lines every time. Patterns are ripgrep's
(Rust regex syntax) or, in the fallback, Python ``re``'s: they differ only for exotic
constructs (see the fallback's docstring).

Output skips ``offset`` lines, then is cut at ``head_limit`` lines and at ``output_max_chars``
(long content lines at ``read_max_line_chars``), each with a note.
"""

from __future__ import annotations

import asyncio
import os
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tools import grep_fallback
from tools.base import ResolvedPath, ToolContext, ToolError, ToolResult
from tools.grep_fallback import GrepOptions
from tools.grep_rg import search
from tools.outbuf import LineCollector
from tools.search_files import find_rg, printable
from tools.textfile import summary_path

MODES = ("content", "files_with_matches", "count")


def split_globs(raw: str | None) -> tuple[str, ...]:
    """``"*.ts *.tsx"`` / ``"*.ts,*.tsx"`` / ``"*.{ts,tsx}"`` -> separate ``--glob`` values."""
    out: list[str] = []
    for token in (raw or "").split():
        out.extend([token] if "{" in token else [t for t in token.split(",") if t])
    return tuple(out)


def options(args: dict[str, Any]) -> GrepOptions:
    """The call's options with Claude Code's defaults (``-n`` on; context only in content)."""
    mode = args.get("output_mode") or "files_with_matches"
    content = mode == "content"
    context = args.get("-C") or 0
    before = args.get("-B", context) if content else 0
    after = args.get("-A", context) if content else 0
    return GrepOptions(
        pattern=args["pattern"],
        mode=mode,
        ignore_case=bool(args.get("-i")),
        line_numbers=bool(args.get("-n", True)),
        before=int(before or 0),
        after=int(after or 0),
        multiline=bool(args.get("multiline")),
        globs=split_globs(args.get("glob")),
        type=args.get("type") or None,
    )


def run_fallback(
    root: Path,
    opts: GrepOptions,
    workspace: Path,
    out: LineCollector,
    stop: threading.Event,
    denied: Callable[[str], bool] | None = None,
) -> None:
    """Run the pure-Python search, feeding ``out`` until it is full (``denied``: paths left
    out, see :func:`tools.grep_fallback.search`)."""
    for line in grep_fallback.search(root, opts, workspace, stop, denied):
        if not out.add(printable(line)):
            break


def _format(opts: GrepOptions, out: LineCollector, head_limit: int | None) -> str:
    lines = out.lines
    what = "files" if opts.mode == "files_with_matches" else "lines"
    if not lines:
        if out.skipped:
            return f"No entries at this offset ({out.skipped} {what} in all)"
        return "No matches found"
    # an offset is said first: what follows (the count too) is what comes after it
    skipped = f"[Skipped the first {out.skipped} {what} (offset).]\n" if out.skipped else ""
    body = "\n".join(lines)
    if out.truncated:
        why = f"head_limit={head_limit}" if head_limit and len(lines) >= head_limit else "the cap"
        return (
            f"{skipped}{body}\n\n[Results truncated at {len(lines)} {what} ({why}); more "
            "matched. Narrow the search with path, glob or type, or use a more specific pattern.]"
        )
    if opts.mode == "files_with_matches":
        return f"{skipped}Found {len(lines)} file{'s' if len(lines) != 1 else ''}\n{body}"
    if opts.mode == "count":
        total = sum(int(line.rsplit(":", 1)[1]) for line in lines if re.search(r":\d+$", line))
        return f"{skipped}{body}\n\nFound {total} matching line{'s' if total != 1 else ''} in " + (
            f"{len(lines)} file{'s' if len(lines) != 1 else ''}."
        )
    return skipped + body


def _denied_paths(tool: str, ctx: ToolContext) -> Callable[[str], bool] | None:
    """A predicate on the search's paths from ``ctx.read_denied``, or None without rules."""
    rule = ctx.read_denied
    if rule is None:
        return None
    return lambda path: rule(tool, Path(os.path.realpath(path)))


class GrepTool:
    """The Grep tool (Claude Code's name and input fields).

    Args:
        backend: ``"rg"`` or ``"python"`` to force one; None picks ripgrep when available.
    """

    name = "Grep"
    description = (
        "A powerful search tool built on ripgrep.\n"
        "- ALWAYS use Grep for search tasks. NEVER invoke `grep` or `rg` as a Bash command.\n"
        '- Supports full regex syntax (e.g. "log.*Error", "function\\s+\\w+"). Literal braces '
        'need escaping (use "interface\\{\\}" to find "interface{}" in Go code).\n'
        '- Filter files with the glob parameter (e.g. "*.js", "**/*.tsx", "*.{ts,tsx}") or the '
        'type parameter (e.g. "js", "py", "rust").\n'
        '- Output modes: "files_with_matches" (the default) shows only file paths, "content" '
        'shows matching lines (with line numbers; -A/-B/-C add context), "count" shows match '
        "counts per file. Results are sorted by path; paths are absolute.\n"
        "- Patterns match within single lines by default; for patterns spanning lines (e.g. "
        '"struct \\{[\\s\\S]*?field"), set multiline: true.\n'
        "- Files ignored by .gitignore, the .git directory and binary files are skipped.\n"
        "- Use head_limit to keep the output short (offset skips the first lines/entries, to "
        "page); large outputs are truncated with a note."
    )
    input_schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "pattern": {
                "type": "string",
                "minLength": 1,
                "description": "The regular expression pattern to search for in file contents",
            },
            "path": {
                "type": "string",
                "description": "File or directory to search in. Defaults to the workspace root.",
            },
            "glob": {
                "type": "string",
                "description": 'Glob pattern to filter files (e.g. "*.js", "*.{ts,tsx}") - '
                "maps to rg --glob",
            },
            "type": {
                "type": "string",
                "description": "File type to search (rg --type), e.g. js, py, rust, go, java. "
                "More efficient than glob for standard file types.",
            },
            "output_mode": {
                "type": "string",
                "enum": list(MODES),
                "description": 'Output mode: "content" shows matching lines (supports -A/-B/-C '
                'context, -n line numbers, head_limit), "files_with_matches" shows file paths '
                '(supports head_limit), "count" shows match counts (supports head_limit). '
                'Defaults to "files_with_matches".',
            },
            "-i": {"type": "boolean", "description": "Case insensitive search (rg -i)"},
            "-n": {
                "type": "boolean",
                "description": "Show line numbers in output (rg -n). Requires output_mode: "
                '"content", ignored otherwise. Defaults to true.',
            },
            "-A": {
                "type": "integer",
                "minimum": 0,
                "description": "Number of lines to show after each match (rg -A). Requires "
                'output_mode: "content", ignored otherwise.',
            },
            "-B": {
                "type": "integer",
                "minimum": 0,
                "description": "Number of lines to show before each match (rg -B). Requires "
                'output_mode: "content", ignored otherwise.',
            },
            "-C": {
                "type": "integer",
                "minimum": 0,
                "description": "Number of lines to show before and after each match (rg -C). "
                'Requires output_mode: "content", ignored otherwise.',
            },
            "multiline": {
                "type": "boolean",
                "description": "Enable multiline mode where . matches newlines and patterns can "
                "span lines (rg -U --multiline-dotall). Default: false.",
            },
            "head_limit": {
                "type": "integer",
                "minimum": 0,
                "description": 'Limit output to the first N lines/entries, like "| head -N". '
                "Works across all output modes. 0 or omitted: no limit but the output cap.",
            },
            "offset": {
                "type": "integer",
                "minimum": 0,
                "description": "Skip the first N lines/entries before applying head_limit, like "
                '"| tail -n +N | head -N". Works across all output modes. Defaults to 0.',
            },
        },
        "required": ["pattern"],
        "additionalProperties": False,
    }
    read_only = True

    def __init__(self, backend: str | None = None) -> None:
        self.backend = backend

    def _raw_path(self, args: dict[str, Any], ctx: ToolContext) -> str:
        raw = args.get("path")
        return str(ctx.workspace) if raw in (None, "", "undefined", "null") else str(raw)

    def paths(self, args: dict[str, Any], ctx: ToolContext) -> list[ResolvedPath]:
        """The file or directory searched."""
        return [ctx.resolve(self._raw_path(args, ctx))]

    def summary(self, args: dict[str, Any]) -> str:
        """The pattern, and the path when one is given."""
        where = args.get("path")
        return str(args.get("pattern", "")) + (f" in {summary_path(where)}" if where else "")

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Search; see the description."""
        raw = self._raw_path(args, ctx)
        root = ctx.resolve_for(self.name, raw)
        if not root.exists():
            raise ToolError(f"Path does not exist: {raw}")
        opts = options(args)
        head_limit = args.get("head_limit") or None  # 0: no limit (as in Claude Code)
        offset = args.get("offset") or 0
        limits = ctx.limits
        # long lines (minified code) are cut in content mode; paths never are
        line_cap = limits.read_max_line_chars if opts.mode == "content" else limits.output_max_chars

        def collector() -> LineCollector:
            return LineCollector(head_limit, limits.output_max_chars, line_cap, skip=offset)

        out = collector()
        denied = _denied_paths(self.name, ctx)
        # with read deny rules the Python search runs: it skips denied files before reading
        # them, where ripgrep's output could only be filtered after the fact
        rg = find_rg() if self.backend in (None, "rg") and denied is None else None
        if self.backend == "rg" and rg is None and denied is None:
            raise ToolError("ripgrep (rg) is not installed")
        cwd = root if root.is_dir() else root.parent
        if rg is not None:
            try:
                out = await search(rg, opts, root, cwd, collector)
                return ToolResult(_format(opts, out, head_limit))
            except OSError:
                if self.backend == "rg":
                    raise ToolError("ripgrep (rg) could not be started") from None
                out = collector()
        stop = threading.Event()
        try:
            await asyncio.to_thread(run_fallback, root, opts, ctx.workspace, out, stop, denied)
        finally:
            stop.set()
        return ToolResult(_format(opts, out, head_limit))


TOOL = GrepTool()
