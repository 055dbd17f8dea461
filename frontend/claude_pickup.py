"""What eddy picked up from a Claude Code user's files, for the one start-up line
("CLAUDE.md x3, 4 commands, 2 skills, 1 output style, status line"), and what was wrong
with them (shown with the other start-up problems)."""

from __future__ import annotations

from pathlib import Path

from agent.memory import claude_user_dir, read_memory
from agent.output_styles import load_styles
from agent.skills import load_skills
from frontend.custom_commands import command_problems, custom_commands
from frontend.statusline import load_status_line


def _from_claude(path: Path, workspace: Path) -> bool:
    """Whether ``path`` is one of Claude Code's files (not eddy's own)."""
    claude_dirs = (claude_user_dir(), workspace / ".claude")
    return any(d == path or d in path.parents for d in claude_dirs)


def claude_pickup(workspace: Path) -> list[str]:
    """The items picked up from Claude Code's files, in a fixed order; [] for none."""
    items: list[str] = []
    memory = read_memory(workspace)
    count = memory.claude_md_count()
    if count:
        items.append(f"CLAUDE.md x{count}")
    rules = len(memory.rules) + len(memory.path_rules.rules)
    if rules:
        items.append(f"{rules} rule{'s' if rules != 1 else ''}")
    commands = [c for c in custom_commands(workspace).values() if c.path.name != "SKILL.md"]
    n = sum(1 for c in commands if _from_claude(c.path, workspace))
    if n:
        items.append(f"{n} command{'s' if n != 1 else ''}")
    skills = load_skills(workspace).found.values()
    n = sum(1 for s in skills if _from_claude(s.path, workspace))
    if n:
        items.append(f"{n} skill{'s' if n != 1 else ''}")
    styles = [s for s in load_styles(workspace).values() if s.path is not None]
    if styles:
        items.append(f"{len(styles)} output style{'s' if len(styles) != 1 else ''}")
    if load_status_line(workspace) is not None:
        items.append("status line")
    return items


def claude_problems(workspace: Path) -> list[str]:
    """What the command files got wrong (memory, skills, styles and the status line are
    reported by frontend/session_open.py as it reads them)."""
    return command_problems(workspace)
