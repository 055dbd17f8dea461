"""The memory of one session: the system prompt's memory part and the path rules, re-read
after each compaction (memory is re-read, never summarised away). A session extension: the
path rules a successful call touches follow its result."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.extension import Extension, ToolCall
from agent.memory import Memory, read_memory

if TYPE_CHECKING:
    from tools.base import ToolResult


class SessionMemory(Extension):
    """Reads the memory for ``workspace`` and keeps it current for one session.

    Args:
        workspace: the session's workspace.
        eddy_user_dir: eddy's config directory (its own user memory).
        roots: where the project's memory may import from (the workspace and the added
            directories); None: anywhere (the user approved its imports).
    """

    name = "memory rules"

    def __init__(
        self, workspace: Path, eddy_user_dir: Path | None, roots: tuple[Path, ...] | None = None
    ) -> None:
        self.workspace = workspace
        self.eddy_user_dir = eddy_user_dir
        self.roots = roots
        self.memory: Memory = read_memory(workspace, eddy_user_dir, roots)

    @property
    def problems(self) -> list[str]:
        """What could not be read when the session started."""
        return self.memory.problems

    def text(self) -> str:
        """The memory as the system prompt carries it, as it was last read."""
        return self.memory.text()

    def reread(self) -> str:
        """Read every memory file again (after a compaction, a style switch); the new text.
        Path rules are delivered again when their files are touched next."""
        self.memory = read_memory(self.workspace, self.eddy_user_dir, self.roots)
        return self.memory.text()

    def note_for(self, tool: str, args: dict[str, Any]) -> str:
        """The path rules a ``tool`` call with ``args`` loads (for the tool result), or ""."""
        return self.memory.path_rules.note_for(tool, args, self.workspace)

    async def after_tool(self, call: ToolCall, result: ToolResult) -> ToolResult:
        """A successful call's result, with the path rules it loads after it."""
        if result.is_error:
            return result
        return result.with_note(self.note_for(call.use.name, call.use.input))
