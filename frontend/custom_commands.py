"""Custom slash commands: markdown files in ``.eddy/commands/`` (the project's) and
``~/.config/eddy/commands/`` (the user's). ``/name args`` sends the file's body as the prompt
with ``$ARGUMENTS`` replaced by ``args``; a project command beats a user command of the same
name, built-ins (frontend/commands.py) beat both. Also what is a command at all (``parse``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agent.paths import config_dir


@dataclass(frozen=True)
class CustomCommand:
    """A markdown file that a ``/name`` sends as the prompt."""

    name: str
    path: Path
    description: str

    def expand(self, arguments: str) -> str:
        """The prompt for ``/name arguments``."""
        body = self.path.read_text(errors="replace")
        if "$ARGUMENTS" in body:
            return body.replace("$ARGUMENTS", arguments)
        return body if not arguments else f"{body.rstrip()}\n\n{arguments}"


def custom_commands(workspace: Path) -> dict[str, CustomCommand]:
    """Custom commands by name (project ones override the user's)."""
    found: dict[str, CustomCommand] = {}
    for folder in (config_dir() / "commands", workspace / ".eddy" / "commands"):
        try:
            files = sorted(folder.glob("*.md"))
        except OSError:
            continue
        for f in files:
            try:
                first = f.read_text(errors="replace").strip().splitlines()
            except OSError:
                continue
            desc = first[0].lstrip("# ").strip()[:80] if first else ""
            found[f.stem] = CustomCommand(f.stem, f, desc or "custom command")
    return found


def parse(text: str) -> tuple[str, str] | None:
    """``("name", "args")`` for ``/name args``, else None (also for ``/`` paths like /usr)."""
    if not text.startswith("/") or text.startswith("//"):
        return None
    head, _, rest = text[1:].partition(" ")
    if not head or "/" in head:
        return None
    return head, rest.strip()
