"""Custom slash commands: markdown files sent as the prompt, from Claude Code's folders and
eddy's own.

Where they are, later ones winning a name clash (project beats user, eddy's beats Claude's):
``~/.claude/commands/``, eddy's ``~/.config/eddy/commands/``, the project's
``.claude/commands/``, the project's ``.eddy/commands/``. Files are found at any depth:
``frontend/review.md`` is ``/frontend:review``. Built-ins (frontend/commands.py) beat all;
skills (agent/prompt/skills.py) are commands too, beaten by a command file of the same name.
A session's plugins (agent/plugins) bring theirs as ``/plugin:command`` (and their skills as
``/plugin:skill``), Claude Code's namespacing, with ``${CLAUDE_PLUGIN_ROOT}`` in the text
filled in: ``custom_commands(workspace, plugins)``.

Front matter (Claude Code's): ``description`` (else the body's first line), ``argument-hint``,
``allowed-tools`` (granted for that prompt's turn only), ``model`` (that turn only). In the
body ``$ARGUMENTS`` is the whole argument text and ``$1``..``$9`` its words; ``!`cmd` ``
is replaced by the command's output before sending (run by the engine through the Bash
permission rules: agent/session/command_prompt.py); ``@file`` attaches the file as a typed
mention does. Also what is a command at all (``parse``).
"""

from __future__ import annotations

import dataclasses
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from agent import ops
from agent.memory.files import claude_user_dir
from agent.memory.frontmatter import parse_front_matter
from agent.paths import config_dir
from agent.prompt.skills import fill, load_skills

if TYPE_CHECKING:
    from agent.plugins.plugin import Plugin

_POSITIONAL = re.compile(r"\$([1-9])(?![0-9])")
_SNIPPET = re.compile(r"!`[^`\n]+`")


@dataclass(frozen=True)
class CustomCommand:
    """A markdown file that a ``/name`` sends as the prompt.

    Attributes:
        name: the name after the slash (``folder:name`` for a file in a subfolder).
        path: the file.
        description: for /help and completion.
        argument_hint: what the arguments are (``argument-hint``), "" if not said.
        allowed_tools: allow rules for the prompt's turn (``allowed-tools``).
        model: the model for the prompt's turn, or None.
        problems: what its front matter got wrong.
        variables: what ``${NAME}`` stands for in its text (a plugin's root).
    """

    name: str
    path: Path
    description: str
    argument_hint: str = ""
    allowed_tools: tuple[str, ...] = ()
    model: str | None = None
    problems: tuple[str, ...] = field(default=(), compare=False)
    variables: tuple[tuple[str, str], ...] = ()

    def body(self) -> str:
        """The file's text after its front matter, its variables filled in.

        Raises:
            OSError: the file cannot be read.
        """
        text = parse_front_matter(self.path.read_text(errors="replace"), self.path).body
        return fill(text, self.variables)

    def expand(self, arguments: str) -> str:
        """The prompt for ``/name arguments`` (``!`cmd` `` still in it).

        Raises:
            OSError: the file cannot be read.
        """
        return expand_arguments(self.body(), arguments)

    def prompt_op(self, arguments: str) -> ops.SubmitPrompt:
        """The operation that sends ``/name arguments``.

        Raises:
            OSError: the file cannot be read.
        """
        text = self.expand(arguments)
        return ops.SubmitPrompt(
            text,
            allowed_tools=self.allowed_tools,
            model=self.model,
            expand_shell=_SNIPPET.search(text) is not None,
        )


def expand_arguments(body: str, arguments: str) -> str:
    """``body`` with ``$ARGUMENTS`` and ``$1``..``$9`` filled in from ``arguments``; with
    neither placeholder, the arguments follow the body."""
    has_positional = _POSITIONAL.search(body) is not None
    if "$ARGUMENTS" not in body and not has_positional:
        return body if not arguments else f"{body.rstrip()}\n\n{arguments}"
    try:
        words = shlex.split(arguments)
    except ValueError:  # an unbalanced quote: plain words
        words = arguments.split()
    text = body.replace("$ARGUMENTS", arguments)
    return _POSITIONAL.sub(
        lambda m: words[int(m.group(1)) - 1] if int(m.group(1)) <= len(words) else "", text
    )


def resolve_model(name: str) -> str | None:
    """A command's ``model``: a known model id, or an alias (``opus``, ``sonnet``, ``haiku``:
    the newest of that family); None for anything else (the API would refuse it)."""
    from agent.model.pricing import known_models

    known = known_models()  # newest first within each family
    name = name.strip()
    if name in known:
        return name
    return next((m for m in known if m.startswith(f"claude-{name.lower()}-")), None)


def command_folders(workspace: Path) -> list[Path]:
    """The folders commands are read from, lowest precedence first."""
    return [
        claude_user_dir() / "commands",
        config_dir() / "commands",
        workspace / ".claude" / "commands",
        workspace / ".eddy" / "commands",
    ]


def _read_command(folder: Path, f: Path, plugin: Plugin | None = None) -> CustomCommand | None:
    try:
        text = f.read_text(errors="replace")
    except OSError:
        return None
    fm = parse_front_matter(text, f)
    name = ":".join(f.relative_to(folder).with_suffix("").parts)
    variables: tuple[tuple[str, str], ...] = ()
    if plugin is not None:
        name = f"{plugin.name}:{name}"
        variables = tuple(plugin.variables().items())
    first = [ln for ln in fm.body.splitlines() if ln.strip() and ln.strip() != "---"]
    description = fm.text("description") or (first[0].lstrip("# ").strip()[:80] if first else "")
    model = fm.text("model") or None
    problems = list(fm.problems)
    if model is not None:
        resolved = resolve_model(model)
        if resolved is None:
            problems.append(f"{f}: model {model!r} is not a known model; the session's is used.")
        model = resolved
    return CustomCommand(
        name,
        f,
        description or "custom command",
        fm.raw.get("argument-hint", ""),
        tuple(fm.items("allowed-tools")),
        model,
        tuple(problems),
        variables,
    )


def _plugin_commands(plugin: Plugin) -> list[CustomCommand]:
    """A plugin's command files (its ``commands`` places: files, or folders of them)."""
    out = []
    for place in plugin.commands:
        if place.is_file():
            command = _read_command(place.parent, place, plugin)
            out += [command] if command is not None else []
            continue
        try:
            files = sorted(place.rglob("*.md")) if place.is_dir() else []
        except OSError:
            continue
        for f in files:
            command = _read_command(place, f, plugin)
            out += [command] if command is not None else []
    return out


def custom_commands(
    workspace: Path, plugins: Sequence[Plugin] = (), grant_project: bool | None = None
) -> dict[str, CustomCommand]:
    """Custom commands by name, the ``plugins``' included (see the module's docstring for
    who wins a clash).

    Args:
        workspace: the project.
        plugins: the session's plugins.
        grant_project: whether the project's own commands' and skills' ``allowed-tools``
            grant (a plugin the project switched on counts as the project's); None: as the
            user approved what the project's files grant
            (:func:`agent.settings.trust.approved_kinds`), or the caller vouched for it.
    """
    if grant_project is None:
        from agent.settings.grants import collect_grants
        from agent.settings.trust import approved_kinds

        grant_project = "skills" in approved_kinds(workspace, collect_grants(workspace))
    found: dict[str, CustomCommand] = {}
    skills = load_skills(workspace, plugins, grant_project=grant_project)
    for skill in skills.found.values():  # /skill-name runs a skill
        found[skill.name] = CustomCommand(
            skill.name,
            skill.path,
            skill.description,
            "",
            skill.allowed_tools,
            variables=skill.variables,
        )
    for plugin in plugins:
        for command in _plugin_commands(plugin):
            command = _granted(command, plugin.borne == "project", grant_project)
            found[command.name] = command
    project = command_folders(workspace)[2:]
    for folder in command_folders(workspace):
        for command in _folder_commands(folder):
            command = _granted(command, folder in project, grant_project)
            found[command.name] = command
    return found


def _folder_commands(folder: Path) -> list[CustomCommand]:
    """The commands of a command folder (its ``.md`` files, subfolders included)."""
    try:
        files = sorted(folder.rglob("*.md")) if folder.is_dir() else []
    except OSError:
        return []
    out = []
    for f in files:
        read = _read_command(folder, f)
        if read is not None:
            out.append(read)
    return out


def _granted(command: CustomCommand, of_project: bool, grant_project: bool) -> CustomCommand:
    """``command``, without its ``allowed-tools`` (and saying so) when it is the project's
    and the project's grants are not approved."""
    if of_project and command.allowed_tools and not grant_project:
        note = (
            f"{command.path}: its allowed-tools grant nothing until you approve what this "
            "project's files grant (eddy asks when a session starts)."
        )
        command = dataclasses.replace(command, allowed_tools=(), problems=(*command.problems, note))
    return command


def command_problems(workspace: Path, plugins: Sequence[Plugin] = ()) -> list[str]:
    """What the command files' front matter got wrong, for the start-up messages."""
    return [p for c in custom_commands(workspace, plugins).values() for p in c.problems]


def parse(text: str) -> tuple[str, str] | None:
    """``("name", "args")`` for ``/name args``, else None (also for ``/`` paths like /usr)."""
    if not text.startswith("/") or text.startswith("//"):
        return None
    head, _, rest = text[1:].partition(" ")
    if not head or "/" in head:
        return None
    return head, rest.strip()
