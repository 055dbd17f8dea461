"""Where memory files are, in the order they reach the system prompt (Claude Code's order:
the user's files first, then each directory from the filesystem root down to the working
directory, so the nearest instructions come last and weigh most).

Per directory: ``CLAUDE.md``, ``.claude/CLAUDE.md``, ``CLAUDE.local.md``; ``AGENTS.md`` where
the directory has neither ``CLAUDE.md`` nor ``.claude/CLAUDE.md``. The user's files:
``~/.claude/CLAUDE.md`` (``$CLAUDE_CONFIG_DIR`` when set, as Claude Code does), then eddy's own
user memory (``AGENTS.md`` / ``CLAUDE.md`` in eddy's config directory).
"""

from __future__ import annotations

import os
from pathlib import Path


def claude_user_dir() -> Path:
    """Claude Code's user directory: ``$CLAUDE_CONFIG_DIR``, else ``~/.claude``."""
    env = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(env) if env else Path.home() / ".claude"


def directory_files(directory: Path) -> list[Path]:
    """The memory files of one directory that exist, in order."""
    claude = [directory / "CLAUDE.md", directory / ".claude" / "CLAUDE.md"]
    found = [p for p in claude if p.is_file()]
    if not found and (directory / "AGENTS.md").is_file():
        found.append(directory / "AGENTS.md")
    local = directory / "CLAUDE.local.md"
    if local.is_file():
        found.append(local)
    return found


def user_files(eddy_user_dir: Path | None) -> list[Path]:
    """The user's memory files that exist: Claude Code's, then eddy's."""
    found = [p for p in [claude_user_dir() / "CLAUDE.md"] if p.is_file()]
    if eddy_user_dir is not None:
        found += [eddy_user_dir / n for n in ("AGENTS.md", "CLAUDE.md")]
    return [p for p in found if p.is_file()]


def memory_paths(cwd: Path, eddy_user_dir: Path | None = None) -> list[Path]:
    """Every memory file for a session in ``cwd``, in prompt order, each once."""
    paths = user_files(eddy_user_dir)
    for directory in reversed([cwd, *cwd.parents]):
        try:
            paths += directory_files(directory)
        except OSError:  # an unreadable directory on the way holds no memory we can use
            continue
    unique: dict[str, Path] = {}
    for p in paths:
        unique.setdefault(os.path.realpath(p), p)
    return list(unique.values())
