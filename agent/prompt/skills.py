"""Skills: ``<name>/SKILL.md`` folders, as Claude Code has them.

Where, later ones winning a name clash (project beats user, eddy's beats Claude's):
``~/.claude/skills/``, eddy's ``~/.config/eddy/skills/``, the project's ``.claude/skills/``,
the project's ``.eddy/skills/``. Front matter: ``name`` (lowercase letters, digits and
hyphens, at most 64), ``description`` (what it does and when to use it, at most 1024; both
required), ``allowed-tools``. A skill with bad front matter is reported and left out.

Plugins' skills (agent/plugins) are named ``plugin:skill`` (Claude Code's namespacing) and
come below every folder above; ``${CLAUDE_PLUGIN_ROOT}`` in their text is the plugin's folder.
A folder holding ``.claude-plugin/plugin.json`` is a plugin (agent/plugins/registry.py), not
a skill.

The model sees the skills in the Skill tool's description (tools/skill.py); ``/name`` runs one
as a command (agent/prompt/commands.py).

A project's skills (its ``.claude/skills/`` and ``.eddy/skills/``) come from the repository:
their ``allowed-tools`` grant nothing until the user approved what the project's files grant
(``load_skills(..., grant_project=False)``, :mod:`agent.settings.trust`), and the model's first
call of one asks (``SkillEntry.project``, as Claude Code does).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent import events as ev
from agent.extension import Extension, ToolCall
from agent.memory.files import claude_user_dir
from agent.memory.frontmatter import parse_front_matter, read_front_matter
from agent.paths import config_dir
from tools.base import ToolResult
from tools.skill import SkillEntry, SkillTool

if TYPE_CHECKING:
    from agent.plugins.plugin import Plugin

_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
MAX_DESCRIPTION = 1024


@dataclass(frozen=True)
class Skill:
    """One skill.

    Attributes:
        name: its name.
        description: when to use it.
        path: its SKILL.md.
        allowed_tools: its ``allowed-tools`` (granted when run as ``/name``).
        variables: what ``${NAME}`` stands for in its text (a plugin's root).
        project: it comes from the project's own folders, or a plugin the project switched
            on (agent/plugins/grants.py).
    """

    name: str
    description: str
    path: Path
    allowed_tools: tuple[str, ...] = ()
    variables: tuple[tuple[str, str], ...] = ()
    project: bool = False

    def body(self) -> str:
        """SKILL.md's instructions, its variables filled in.

        Raises:
            OSError: it cannot be read.
        """
        return fill(skill_body(self.path), self.variables)


@dataclass
class Skills:
    """The skills found, and what was wrong with the others."""

    found: dict[str, Skill] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def tool(self) -> SkillTool:
        """The Skill tool offering these skills; a project's skill asks before its first run,
        also when the caller vouches for the folder (``eddy -p`` refuses it then, naming the
        rule ``Skill(name)`` that allows it: Claude Code 2.1.333's ``-p`` does the same)."""
        entries = [
            SkillEntry(s.name, s.description, s.path, s.project) for s in self.found.values()
        ]
        by_path = {s.path: s for s in self.found.values()}

        def body(path: Path) -> str:
            skill = by_path.get(path)
            return skill.body() if skill is not None else skill_body(path)

        return SkillTool(entries, body)


def fill(text: str, variables: tuple[tuple[str, str], ...]) -> str:
    """``text`` with each ``${NAME}`` of ``variables`` replaced by its value."""
    for name, value in variables:
        text = text.replace("${" + name + "}", value)
    return text


def skill_folders(workspace: Path) -> list[Path]:
    """The folders skills are read from, lowest precedence first."""
    return [
        claude_user_dir() / "skills",
        config_dir() / "skills",
        workspace / ".claude" / "skills",
        workspace / ".eddy" / "skills",
    ]


def skill_body(path: Path) -> str:
    """SKILL.md's instructions (its text after the front matter).

    Raises:
        OSError: it cannot be read.
    """
    return parse_front_matter(path.read_text(encoding="utf-8", errors="replace"), path).body


def _read_skill(path: Path, problems: list[str], plugin: Plugin | None = None) -> Skill | None:
    fm = read_front_matter(path, problems, "skill skipped")
    if fm is None:
        return None
    name = (fm.text("name") or "").strip()
    if plugin is not None and not name:
        name = path.parent.name  # Claude Code: a plugin's skill may go by its folder's name
    description = " ".join((fm.text("description") or "").split())
    if not name or not description:
        missing = " and ".join(
            k for k, v in (("name", name), ("description", description)) if not v
        )
        problems.append(f"{path}: the front matter has no {missing}; skill skipped.")
        return None
    if not _NAME.match(name):
        problems.append(
            f"{path}: name {name!r} must be lowercase letters, digits and hyphens (at most 64); "
            "skill skipped."
        )
        return None
    if len(description) > MAX_DESCRIPTION:
        problems.append(f"{path}: the description is cut to {MAX_DESCRIPTION} characters.")
        description = description[:MAX_DESCRIPTION]
    allowed = tuple(fm.items("allowed-tools"))
    from agent.permissions.policy import Rule

    for text in allowed:
        try:
            Rule.parse(text)
        except ValueError as exc:
            problems.append(f"{path}: allowed-tools {text!r} is not a rule ({exc}); ignored.")
    if plugin is not None:
        variables = tuple(plugin.variables().items())
        return Skill(f"{plugin.name}:{name}", description, path, allowed, variables)
    return Skill(name, description, path, allowed)


def load_skills(
    workspace: Path, plugins: Sequence[Plugin] = (), *, grant_project: bool = True
) -> Skills:
    """Every skill for ``workspace`` and its ``plugins``; never raises.

    Args:
        workspace: the project.
        plugins: the session's plugins (their skills are ``plugin:skill``).
        grant_project: the project's skills' ``allowed-tools`` grant (the user approved the
            project's grants); otherwise they grant nothing (said once). A plugin the project
            switched on counts as the project's.
    """
    loader = _SkillLoader(grant_project)
    for plugin in plugins:
        for folder in plugin.skills:
            loader.plugin_folder(plugin, folder)
    project = {workspace / ".claude" / "skills", workspace / ".eddy" / "skills"}
    for folder in skill_folders(workspace):
        loader.folder(folder, of_project=folder in project)
    return loader.done()


class _SkillLoader:
    """Collects the skills of one session, the project's marked (and, unless
    ``grant_project``, without their ``allowed-tools``)."""

    def __init__(self, grant_project: bool) -> None:
        self.skills = Skills()
        self.grant_project = grant_project
        self.withheld: list[str] = []

    def keep(self, skill: Skill, of_project: bool) -> None:
        if of_project:
            skill = dataclasses.replace(skill, project=True)
            if skill.allowed_tools and not self.grant_project:
                self.withheld.append(skill.name)
                skill = dataclasses.replace(skill, allowed_tools=())
        self.skills.found[skill.name] = skill

    def plugin_folder(self, plugin: Plugin, folder: Path) -> None:
        """A plugin's skills folder: one SKILL.md, or one per subfolder."""
        files = [folder / "SKILL.md"] if (folder / "SKILL.md").is_file() else []
        try:
            files = files or sorted(folder.glob("*/SKILL.md"))
        except OSError:
            return
        for f in files:
            skill = _read_skill(f, self.skills.problems, plugin)
            if skill is not None:
                self.keep(skill, plugin.borne == "project")

    def folder(self, folder: Path, *, of_project: bool) -> None:
        """A skills folder of the user or the project: one SKILL.md per subfolder."""
        try:
            files = sorted(folder.glob("*/SKILL.md")) if folder.is_dir() else []
        except OSError:
            return
        for f in files:
            if (f.parent / ".claude-plugin" / "plugin.json").is_file():
                continue  # a plugin in a skills folder: loaded as a plugin
            skill = _read_skill(f, self.skills.problems)
            if skill is not None:
                self.keep(skill, of_project)

    def done(self) -> Skills:
        """The skills, with a problem naming the skills whose grants were withheld."""
        if self.withheld:
            self.skills.problems.append(
                f"skills {', '.join(self.withheld)}: their allowed-tools grant nothing until "
                "you approve what this project's files grant (eddy asks when a session starts)."
            )
        return self.skills


def read_rules(skills: Skills, workspace: Path) -> list[str]:
    """Allow rules that let Read open the files of skills outside the workspace (a user's
    ``~/.claude/skills``): the Skill tool lists them for the model to read."""
    from agent.permissions.paths import path_rule

    root = workspace.resolve()
    rules = []
    for skill in skills.found.values():
        folder = skill.path.parent.resolve()
        if folder != root and root not in folder.parents:
            rules.append(path_rule("Read", folder, workspace, directory=True))
    return rules


class SkillGrants(Extension):
    """A skill's ``allowed-tools`` while it is active: from the Skill call that loads it to
    the end of that turn (Claude Code's "without asking while the skill is active"). A
    session extension: a successful Skill call grants, the turn's end takes back.

    Args:
        skills: the session's skills.
        allow: the policy's allow rules (granted rules are added to it and removed again).
    """

    name = "skills"

    def __init__(self, skills: Skills, allow: list[Any]) -> None:
        self.skills = skills
        self.allow = allow
        self.active: list[Any] = []

    async def after_tool(self, call: ToolCall, result: ToolResult) -> ToolResult:
        """After a successful Skill call: grant its rules (the result is unchanged)."""
        if not result.is_error:
            self.grant(call.use.name, call.use.input)
        return result

    def on_event(self, event: ev.Event) -> None:
        """A skill's grants end with its turn."""
        if isinstance(event, ev.TurnFinished):
            self.end_turn()

    def grant(self, tool: str, args: dict[str, Any]) -> None:
        """After a successful Skill call: allow what its skill's ``allowed-tools`` name."""
        if tool != "Skill":
            return
        skill = self.skills.found.get(str(args.get("skill", "")).strip().lstrip("/"))
        if skill is None:
            return
        from agent.permissions.policy import Rule

        for text in skill.allowed_tools:
            try:
                rule = Rule.parse(text)
            except ValueError:  # reported when the skill was read
                continue
            self.allow.append(rule)
            self.active.append(rule)

    def end_turn(self) -> None:
        """The turn ended: the granted rules go (exactly those objects)."""
        for rule in self.active:
            for i, r in enumerate(self.allow):
                if r is rule:
                    del self.allow[i]
                    break
        self.active = []
