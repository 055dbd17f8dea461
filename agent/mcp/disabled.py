"""Which MCP servers the user switched off for a project (``/mcp disable NAME``).

Kept where Claude Code keeps them, so that a server switched off in one agent is off in the
other: the ``disabledMcpServers`` list of the project's entry in Claude Code's user file
(``~/.claude.json``, ``projects["<absolute project path>"]``; Claude Code 2.1's ``/mcp``
writes the same key and its ``/mcp enable`` takes a name out again). This is the one key eddy
writes in that file, and only when the user asks: the rest of the file is kept as it is
(read, change the one list, replace the file whole).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent.paths import claude_json_path

KEY = "disabledMcpServers"


class DisabledServers:
    """The servers switched off for one project.

    Args:
        workspace: the project root (its resolved path is the key in ``projects``).
        path: Claude Code's user file (default: :func:`agent.paths.claude_json_path`).
    """

    def __init__(self, workspace: Path, path: Path | None = None) -> None:
        self.project = str(Path(workspace).resolve())
        self.path = path or claude_json_path()

    def names(self) -> frozenset[str]:
        """The names switched off (none if the file is missing or unreadable)."""
        try:
            entry = self._entry(self._read())
        except OSError:  # unreadable: nothing is known to be off (the config says why)
            return frozenset()
        names = entry.get(KEY) if entry is not None else None
        if not isinstance(names, list):
            return frozenset()
        return frozenset(n for n in names if isinstance(n, str))

    def set(self, name: str, disabled: bool) -> None:
        """Switch ``name`` off (``disabled``) or on again for this project, in the file.

        Raises:
            OSError: the file cannot be written, or it is not a JSON object (never
                overwritten then: it is Claude Code's).
        """
        from agent.settings.edit import write_json_file

        data = self._read()
        if data is None:
            data = {}
        elif not isinstance(data, dict):
            raise OSError(f"{self.path} is not a JSON object; it was left as it is")
        projects = data.setdefault("projects", {})
        if not isinstance(projects, dict):
            raise OSError(f"{self.path}: projects is not an object; it was left as it is")
        entry = projects.setdefault(self.project, {})
        if not isinstance(entry, dict):
            raise OSError(f"{self.path}: projects[{self.project}] is not an object")
        old = entry.get(KEY)
        names = [n for n in old if isinstance(n, str)] if isinstance(old, list) else []
        names = [n for n in names if n != name] + ([name] if disabled else [])
        if names == old:
            return
        entry[KEY] = names
        write_json_file(self.path, data)

    def _read(self) -> Any:
        """The file's JSON (None if it is missing).

        Raises:
            OSError: it exists but cannot be read or is not JSON (not overwritten then).
        """
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        try:
            return json.loads(text) if text.strip() else None
        except ValueError as exc:
            raise OSError(f"{self.path} is not valid JSON ({exc}); it was left as it is") from None

    def _entry(self, data: Any) -> dict[str, Any] | None:
        projects = data.get("projects") if isinstance(data, dict) else None
        entry = projects.get(self.project) if isinstance(projects, dict) else None
        return entry if isinstance(entry, dict) else None
