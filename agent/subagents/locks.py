"""Serialising the changes of concurrent subagents: one lock per file, one for the shell.

Agent calls in one response run concurrently, so two children may change the same file at
once. A file tool checks that the file is unchanged since it was read, awaits the checkpoint
hook, then writes: two such calls interleaved at that await would both pass the check and the
second would overwrite the first (a lost update). Holding the file's lock across the whole
call makes the second see the first's write (and fail its stale-read check, so its model
reads the file again). Shell commands may change anything, so they take one tree-wide lock.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from tools.base import ResolvedPath, Tool, ToolContext, ToolResult

SHELL = Path("/<shell>")
"""The key of the shell's lock (no real file has it)."""


class FileLocks:
    """asyncio locks by real path, shared by every agent of a session's tree."""

    def __init__(self) -> None:
        self._locks: dict[Path, asyncio.Lock] = {}
        self._waiting: dict[Path, int] = {}

    def waiting(self, path: Path) -> int:
        """How many calls wait for ``path``'s lock now."""
        return self._waiting.get(path, 0)

    @contextlib.asynccontextmanager
    async def holding(self, paths: list[Path]) -> AsyncIterator[None]:
        """Hold the locks of ``paths``, taken in sorted order (two callers cannot deadlock)."""
        async with contextlib.AsyncExitStack() as stack:
            for path in sorted(set(paths)):
                lock = self._locks.setdefault(path, asyncio.Lock())
                self._waiting[path] = self._waiting.get(path, 0) + 1
                try:
                    await stack.enter_async_context(lock)
                finally:
                    self._waiting[path] -= 1
            yield


class LockedTool:
    """A tool whose state-changing calls hold the locks of what they touch.

    Everything else (name, schema, precheck, preview, ...) is the wrapped tool's.
    """

    def __init__(self, tool: Tool, locks: FileLocks) -> None:
        self._tool = tool
        self._locks = locks
        self.name = tool.name
        self.description = tool.description
        self.input_schema = tool.input_schema
        self.read_only = tool.read_only

    def __getattr__(self, name: str) -> Any:
        return getattr(self._tool, name)

    def paths(self, args: dict[str, Any], ctx: ToolContext) -> list[ResolvedPath]:
        return self._tool.paths(args, ctx)

    def summary(self, args: dict[str, Any]) -> str:
        return self._tool.summary(args)

    def _keys(self, args: dict[str, Any], ctx: ToolContext) -> list[Path]:
        if self.name == "Bash":
            return [SHELL]
        try:
            return [p.path for p in self._tool.paths(args, ctx)]
        except Exception:  # the tool reports its own input errors when it runs
            return []

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        if self.read_only:
            return await self._tool.run(args, ctx)
        async with self._locks.holding(self._keys(args, ctx)):
            return await self._tool.run(args, ctx)
