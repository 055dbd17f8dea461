"""Skill: loads one of the project's or the user's skills (Claude Code's tool and schema,
``{"skill": name}``): the SKILL.md body, the folder it lives in, and the folder's other files
(which the model reads with Read when the body points at them).

The skills are found once, when the session starts (agent/prompt/skills.py), and listed in this
tool's description: it must stay byte-identical for the whole session (the prompt cache).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tools.base import ResolvedPath, ToolContext, ToolError, ToolResult

MAX_LISTED_FILES = 50
"""The folder's files listed at most (a skill with a vendored tree must not flood the result)."""

INTRO = (
    "Load a skill: a folder of instructions (and often scripts or references) for a kind of "
    "task. When the user's request matches a skill's description, call this tool with the "
    "skill's name before doing the task, then follow the instructions it returns; read the "
    "other files it lists with Read when the instructions point at them. Do not call it for "
    "a skill that is already loaded in this conversation."
)


@dataclass(frozen=True)
class SkillEntry:
    """One skill as the tool offers it.

    Attributes:
        name: what the model passes as ``skill``.
        description: when to use it (listed to the model).
        path: its SKILL.md.
        asks: its first run asks the user (a project's skill, as in Claude Code).
    """

    name: str
    description: str
    path: Path
    asks: bool = False


def describe(skills: list[SkillEntry]) -> str:
    """The tool's description: the intro and one line per skill, in name order."""
    if not skills:
        return INTRO + "\n\nNo skills are available in this session."
    lines = [f"- {s.name}: {s.description}" for s in sorted(skills, key=lambda s: s.name)]
    return INTRO + "\n\nAvailable skills:\n" + "\n".join(lines)


def folder_files(folder: Path, skip: Path) -> list[str]:
    """The files below ``folder`` (relative, sorted), without ``skip``; at most the cap."""
    found: list[str] = []
    for base, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            p = Path(base) / name
            if p != skip:
                found.append(p.relative_to(folder).as_posix())
    return found


class SkillTool:
    """The Skill tool over the skills found when the session started.

    Args:
        skills: the skills offered.
        read_body: SKILL.md's text without its front matter (raises OSError).
    """

    name = "Skill"
    input_schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "skill": {
                "type": "string",
                "description": 'The skill name, e.g. "pdf" or "release-notes"',
            }
        },
        "required": ["skill"],
        "additionalProperties": False,
    }
    read_only = True

    def __init__(self, skills: list[SkillEntry], read_body: Callable[[Path], str]) -> None:
        self.skills = {s.name: s for s in skills}
        self.read_body = read_body
        self.description = describe(skills)

    def paths(self, args: dict[str, Any], ctx: ToolContext) -> list[ResolvedPath]:
        """None: the skill's own folder is read, no path of the model's."""
        return []

    def summary(self, args: dict[str, Any]) -> str:
        """The skill's name."""
        return str(args.get("skill", ""))

    def asks_first(self, args: dict[str, Any]) -> str | None:
        """Why this call asks (a project's skill: its instructions and grants come from the
        repository), or None. An allow rule ``Skill(name)`` or ``Skill`` settles it."""
        skill = self.skills.get(str(args.get("skill", "")).strip().lstrip("/"))
        if skill is None or not skill.asks:
            return None
        return (
            f"The skill {skill.name} comes from this project ({skill.path}); its instructions "
            "(and what it may run) are the repository's."
        )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """The skill's instructions, its folder and its other files."""
        name = str(args.get("skill", "")).strip().lstrip("/")
        skill = self.skills.get(name)
        if skill is None:
            known = ", ".join(sorted(self.skills)) or "none"
            raise ToolError(f"No skill named {name!r}. Available skills: {known}.")
        try:
            body = self.read_body(skill.path).strip()
            others = folder_files(skill.path.parent, skill.path)
        except OSError as exc:
            raise ToolError(f"Could not read {skill.path}: {exc.strerror or exc}") from None
        text = f"Base directory for this skill: {skill.path.parent}\n\n{body}"
        if others:
            listed = others[:MAX_LISTED_FILES]
            more = len(others) - len(listed)
            text += "\n\nOther files in the skill's folder (read them with Read):\n"
            text += "\n".join(f"- {skill.path.parent / f}" for f in listed)
            if more > 0:
                text += f"\n- ... and {more} more"
        return ToolResult(text)
