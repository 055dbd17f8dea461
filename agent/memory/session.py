"""The memory of one session: the system prompt's memory part and the path rules, re-read
after each compaction (memory is re-read, never summarised away). A session extension: the
path rules a successful call touches follow its result."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.extension import Extension, ToolCall
from agent.memory import Memory, read_memory

if TYPE_CHECKING:
    from agent.prompt.output_styles import OutputStyle
    from tools.base import ToolResult


class SessionMemory(Extension):
    """Reads the memory for ``workspace`` and keeps it current for one session.

    Args:
        workspace: the session's workspace.
        eddy_user_dir: eddy's config directory (its own user memory).
        build: ``(memory text, output style) -> system prompt`` (agent/prompt/system.py's
            ``system_prompt`` with the session's other parts bound).
    """

    def __init__(
        self,
        workspace: Path,
        eddy_user_dir: Path | None,
        build: Callable[[str, OutputStyle | None], str],
    ) -> None:
        self.workspace = workspace
        self.eddy_user_dir = eddy_user_dir
        self.build = build
        self.memory: Memory = read_memory(workspace, eddy_user_dir)

    @property
    def problems(self) -> list[str]:
        """What could not be read when the session started."""
        return self.memory.problems

    def system(self, style: OutputStyle | None = None) -> str:
        """The system prompt with the memory as it was last read, in ``style``."""
        return self.build(self.memory.text(), style)

    def refresh(self, style: OutputStyle | None = None) -> str:
        """Re-read every memory file (after a compaction, a style switch) and return the new
        system prompt. Path rules are delivered again when their files are touched next."""
        self.memory = read_memory(self.workspace, self.eddy_user_dir)
        return self.system(style)

    name = "memory rules"

    def note_for(self, tool: str, args: dict[str, Any]) -> str:
        """The path rules a ``tool`` call with ``args`` loads (for the tool result), or ""."""
        return self.memory.path_rules.note_for(tool, args, self.workspace)

    async def after_tool(self, call: ToolCall, result: ToolResult) -> ToolResult:
        """A successful call's result, with the path rules it loads after it."""
        if result.is_error:
            return result
        return result.with_note(self.note_for(call.use.name, call.use.input))
