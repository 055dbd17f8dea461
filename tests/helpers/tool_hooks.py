"""Small ``tools.base.PathRules`` and ``ChangeHooks`` for tests of the tools alone."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

Hook = Callable[[], Awaitable[None]]


class OutsidePaths:
    """Paths outside the workspace are allowed where ``allow(tool, path)`` says so; no read
    deny rule."""

    def __init__(self, allow: Callable[[str, Path], bool]) -> None:
        self.allow = allow

    def allow_outside(self, tool: str, path: Path) -> bool:
        return self.allow(tool, path)

    def read_filter(self) -> Callable[[str, Path], bool] | None:
        return None


class Hooks:
    """Checkpoint hooks from coroutines (each optional)."""

    def __init__(
        self,
        before_change: Callable[[list[Path]], Awaitable[None]] | None = None,
        before_shell: Hook | None = None,
        after_shell: Hook | None = None,
    ) -> None:
        self._change, self._before, self._after = before_change, before_shell, after_shell

    async def before_change(self, paths: list[Path]) -> None:
        if self._change is not None:
            await self._change(paths)

    async def before_shell(self) -> None:
        if self._before is not None:
            await self._before()

    async def after_shell(self) -> None:
        if self._after is not None:
            await self._after()
