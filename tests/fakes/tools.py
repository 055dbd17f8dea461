"""Small tools for loop tests: behaviour given as a function, no file system needed."""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from typing import Any

from tools.base import ResolvedPath, ToolContext, ToolResult


class FnTool:
    """A tool whose run is ``fn(args, ctx)`` (sync or async) returning str or ToolResult."""

    def __init__(
        self,
        name: str,
        fn: Callable[..., Any],
        *,
        read_only: bool = False,
        schema: dict[str, Any] | None = None,
    ) -> None:
        self.name = name
        self.description = f"test tool {name}"
        self.input_schema = schema or {"type": "object"}
        self.read_only = read_only
        self._fn = fn
        self.calls: list[dict[str, Any]] = []

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        self.calls.append(args)
        out = self._fn(args, ctx)
        if inspect.isawaitable(out):
            out = await out
        return out if isinstance(out, ToolResult) else ToolResult(str(out))

    def paths(self, args: dict[str, Any], ctx: ToolContext) -> list[ResolvedPath]:
        return []

    def summary(self, args: dict[str, Any]) -> str:
        return json.dumps(args)
