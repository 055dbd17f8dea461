"""Hook configuration: the ``hooks`` key of every settings file, merged, and matching.

The format is Claude Code's, read as is::

    {"hooks": {"PreToolUse": [{"matcher": "Bash|Edit",
                               "hooks": [{"type": "command", "command": "...", "timeout": 5}]}]}}

Every settings file's ``hooks`` is read (``Settings.raw``, lowest precedence first) and the
groups are concatenated; a handler defined twice (same command, timeout and failClosed) runs
once per event, with the file that defined it first. ``disableAllHooks: true`` (the value of
the highest-precedence file that sets it) turns every hook off.

Matchers: empty, ``*`` or absent match everything; a matcher of only letters, digits, ``_``,
``-``, ``,``, ``|`` and spaces is a list of exact names separated by ``|`` or ``,``; anything
else is a regular expression searched in the name. Tool events match the tool name,
SessionStart its source, PreCompact its trigger, Notification its type, SessionEnd its reason;
UserPromptSubmit and Stop ignore the matcher.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

EVENTS = (
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "UserPromptSubmit",
    "Stop",
    "SubagentStop",
    "SessionStart",
    "SessionEnd",
    "PreCompact",
    "Notification",
)
DEFAULT_TIMEOUT = 600.0
"""Seconds a handler may run (Claude Code's default)."""
EVENT_TIMEOUTS = {"UserPromptSubmit": 30.0}
"""Events whose handlers get a shorter default: the user waits for them."""
_EXACT = re.compile(r"[A-Za-z0-9_\-,| ]*")
_INTERPRETER = re.compile(r"(ba|z|da|k)?sh|python[0-9.]*|node|ruby|perl|php|deno|bun")
"""Programs whose first argument (when it is not an option) is the script they run."""
_OPERATOR = re.compile(r"[|&;<>()]+")
"""A word that is a shell operator (pipeline, list, redirection, subshell)."""
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_SUBSTITUTIONS = ("`", "$(")


@dataclass(frozen=True)
class HookHandler:
    """One command to run for an event.

    Attributes:
        command: the shell command line (run by ``/bin/sh -c``).
        timeout: seconds before it is killed.
        fail_closed: eddy's addition: a timeout, crash or missing script blocks the action.
        source: the label of the settings file that defined it.
        env: more variables for its process (a plugin's ``CLAUDE_PLUGIN_ROOT``, ...).
    """

    command: str
    timeout: float
    fail_closed: bool = False
    source: str = field(default="", compare=False)
    env: tuple[tuple[str, str], ...] = field(default=(), compare=False)

    @property
    def key(self) -> tuple[str, float, bool]:
        """What makes two handlers the same handler (dedupe across files)."""
        return (self.command, self.timeout, self.fail_closed)


@dataclass(frozen=True)
class HookGroup:
    """A matcher and the handlers it runs."""

    event: str
    matcher: str
    handlers: tuple[HookHandler, ...]
    source: str = ""
    pattern: re.Pattern[str] | None = None
    """The compiled regular expression, for a regex matcher."""

    def matches(self, value: str | None) -> bool:
        """Whether this group applies to ``value`` (a tool name, a source, ...)."""
        return matcher_matches(self.matcher, value, self.pattern)


@dataclass
class HookConfig:
    """Every configured hook group, in settings order."""

    groups: list[HookGroup] = field(default_factory=list)
    disabled: bool = False
    """``disableAllHooks`` is set: nothing runs (``/hooks`` still lists what is configured)."""

    def handlers_for(self, event: str, value: str | None = None) -> list[HookHandler]:
        """The handlers to run for ``event`` on ``value``, deduplicated, in settings order."""
        if self.disabled:
            return []
        seen: dict[tuple[str, float, bool], HookHandler] = {}
        for group in self.groups:
            if group.event != event or not group.matches(value):
                continue
            for handler in group.handlers:
                seen.setdefault(handler.key, handler)
        return list(seen.values())

    def has(self, event: str) -> bool:
        """Whether any hook is configured (and enabled) for ``event``."""
        return not self.disabled and any(g.event == event for g in self.groups)

    def commands(self) -> list[str]:
        """Every configured command line."""
        return [h.command for g in self.groups for h in g.handlers]


def is_exact_matcher(matcher: str) -> bool:
    """Whether ``matcher`` is a list of exact names (not a regular expression)."""
    return _EXACT.fullmatch(matcher) is not None


def matcher_matches(
    matcher: str | None, value: str | None, pattern: re.Pattern[str] | None = None
) -> bool:
    """Claude Code's matcher rule (see the module docstring)."""
    if matcher is None or matcher.strip() in ("", "*"):
        return True
    if value is None:
        return True  # an event without a value (UserPromptSubmit, Stop) ignores the matcher
    if is_exact_matcher(matcher):
        names = {n.strip() for n in re.split(r"[|,]", matcher)}
        return value in names - {""}
    if pattern is None:
        try:
            pattern = re.compile(matcher)
        except re.error:
            return False
    return pattern.search(value) is not None


def load_hooks(raw: list[tuple[Any, dict[str, Any]]], problems: list[str]) -> HookConfig:
    """Merge the ``hooks`` of every settings file.

    Args:
        raw: ``Settings.raw``: (source, JSON object) per file, lowest precedence first;
            a source has a ``label`` (and may have ``env``, variables for its handlers: a
            plugin's, agent/plugins/parts.py).
        problems: receives one message per invalid entry, naming the file and the key.
    """
    config = HookConfig()
    for source, data in raw:
        label = str(getattr(source, "label", source))
        env = tuple(sorted(dict(getattr(source, "env", None) or {}).items()))
        if "disableAllHooks" in data:
            flag = data["disableAllHooks"]
            if isinstance(flag, bool):
                config.disabled = flag
            else:
                problems.append(f"{label}: disableAllHooks: expected true or false; ignored.")
        hooks = data.get("hooks")
        if hooks is None:
            continue
        if not isinstance(hooks, dict):
            problems.append(f"{label}: hooks: expected an object of events; ignored.")
            continue
        config.groups.extend(_file_groups(hooks, label, problems, env))
    return config


def _file_groups(
    hooks: dict[str, Any], label: str, problems: list[str], env: tuple[tuple[str, str], ...]
) -> list[HookGroup]:
    """The valid matcher groups of one settings file's ``hooks``, event by event (``env``:
    the variables its handlers get)."""
    out = []
    for event, groups in hooks.items():
        where = f"{label}: hooks.{event}"
        if event not in EVENTS:
            problems.append(f"{where}: eddy knows no such hook event; ignored.")
            continue
        if not isinstance(groups, list):
            problems.append(f"{where}: expected a list of matcher groups; ignored.")
            continue
        for i, group in enumerate(groups):
            parsed = _group(event, group, f"{where}[{i}]", label, problems, env)
            if parsed is not None:
                out.append(parsed)
    return out


def _group(
    event: str,
    data: Any,
    where: str,
    label: str,
    problems: list[str],
    env: tuple[tuple[str, str], ...] = (),
) -> HookGroup | None:
    if not isinstance(data, dict):
        problems.append(f"{where}: expected an object with matcher and hooks; ignored.")
        return None
    matcher = data.get("matcher", "")
    if matcher is None:
        matcher = ""
    if not isinstance(matcher, str):
        problems.append(f"{where}.matcher: expected a string; the group is ignored.")
        return None
    pattern = None
    if matcher.strip() not in ("", "*") and not is_exact_matcher(matcher):
        try:
            pattern = re.compile(matcher)
        except re.error as exc:
            problems.append(f"{where}.matcher: invalid regular expression ({exc}); ignored.")
            return None
    entries = data.get("hooks")
    if not isinstance(entries, list):
        problems.append(f"{where}.hooks: expected a list of handlers; the group is ignored.")
        return None
    default = EVENT_TIMEOUTS.get(event, DEFAULT_TIMEOUT)
    handlers = []
    for j, entry in enumerate(entries):
        handler = _handler(entry, f"{where}.hooks[{j}]", label, default, problems)
        if handler is not None:
            handlers.append(dataclasses.replace(handler, env=env) if env else handler)
    if not handlers:
        return None
    return HookGroup(event, matcher, tuple(handlers), label, pattern)


def _handler(
    entry: Any, where: str, label: str, default: float, problems: list[str]
) -> HookHandler | None:
    if not isinstance(entry, dict):
        problems.append(f"{where}: expected an object; ignored.")
        return None
    kind = entry.get("type", "command")
    if kind != "command":
        problems.append(f"{where}: eddy runs only hooks of type command, not {kind!r}; ignored.")
        return None
    command = entry.get("command")
    if not isinstance(command, str) or not command.strip():
        problems.append(f"{where}.command: expected a command line; ignored.")
        return None
    timeout = entry.get("timeout", default)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        problems.append(
            f"{where}.timeout: expected a positive number of seconds; {default:g} used."
        )
        timeout = default
    fail_closed = entry.get("failClosed", False)
    if not isinstance(fail_closed, bool):
        problems.append(f"{where}.failClosed: expected true or false; false used.")
        fail_closed = False
    return HookHandler(command, float(timeout), fail_closed, label)


def expand_project_dir(text: str, project_dir: Path) -> str:
    """``$CLAUDE_PROJECT_DIR`` / ``$EDDY_PROJECT_DIR`` (braced or not) and ``~`` expanded."""
    for name in ("CLAUDE_PROJECT_DIR", "EDDY_PROJECT_DIR"):
        text = text.replace("${" + name + "}", str(project_dir)).replace(
            "$" + name, str(project_dir)
        )
    return os.path.expanduser(text)


def script_of(command: str, project_dir: Path) -> Path | None:
    """The script a plain command line runs, or None when eddy cannot know it.

    Judged only for a plain path to a file: the first word when it is a path
    (``./hooks/check.sh``, ``"$CLAUDE_PROJECT_DIR"/.eddy/hooks/guard.sh --strict``), or an
    interpreter's first argument when no option comes before it (``python3 hooks/check.py``).
    Whatever else the shell makes of a line is not judged (the shell runs it, and its exit
    status counts): an option (``python3 -c CODE``, ``sh -c '...'``), an environment
    assignment (``X=1 ./guard.sh``), a pipeline, a list (``;``, ``&&``), a redirection, a
    subshell, a command substitution, another variable or a glob.
    """
    if any(mark in command for mark in _SUBSTITUTIONS):
        return None
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        words = list(lexer)
    except ValueError:  # unbalanced quotes: the shell says what is wrong
        return None
    if not words or any(_OPERATOR.fullmatch(w) for w in words) or _ASSIGNMENT.match(words[0]):
        return None
    first = expand_project_dir(words[0], project_dir)
    if _INTERPRETER.fullmatch(Path(first).name):
        if len(words) < 2 or words[1].startswith("-"):
            return None  # ``python3 -c CODE``, ``sh -c '...'``, ``python3 -m pkg``: not a file
        first = expand_project_dir(words[1], project_dir)
    elif "/" not in first:
        return None  # a program on PATH (``env``, ``jq``, ...): not a script of the project
    if any(c in first for c in "$*?["):
        return None  # another variable or a glob: eddy cannot know the path
    path = Path(first)
    return path if path.is_absolute() else project_dir / path


def missing_script(command: str, project_dir: Path) -> Path | None:
    """The script ``command`` names if it does not exist, else None."""
    path = script_of(command, project_dir)
    if path is None or path.exists():
        return None
    return path


def missing_scripts(config: HookConfig, project_dir: Path) -> list[str]:
    """One message per configured handler whose script does not exist (reported at start-up
    and in /hooks, not discovered when it silently fails or blocks)."""
    out = []
    seen: set[str] = set()
    for group in config.groups:
        for handler in group.handlers:
            path = missing_script(handler.command, project_dir)
            if path is None or handler.command in seen:
                continue
            seen.add(handler.command)
            effect = "blocks (failClosed)" if handler.fail_closed else "fails"
            out.append(
                f"{group.source}: {group.event} hook runs {path}, which does not exist; "
                f"the hook {effect} every time it runs."
            )
    return out
