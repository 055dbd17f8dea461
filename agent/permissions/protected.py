"""Protected places in shell commands: a command whose output goes to, or whose arguments name,
one of the places that configure or extend eddy (:mod:`agent.permissions.places`) asks,
whatever the rules and the mode."""

from __future__ import annotations

import os
from pathlib import Path

from agent.permissions.places import SessionPlaces, protected_reason
from agent.permissions.policy import Decision
from agent.shell import parser as shellparse
from agent.shell import readonly as shell_readonly
from agent.shell.parser import Command
from agent.shell.words import ShellParseError
from tools.base import ToolContext, ToolError

_GIT_NAMING = frozenset(
    {"add", "commit", "push", "fetch", "tag", "log", "show", "diff", "status", "blame", "grep"}
)
"""git subcommands whose arguments name files without writing them (``git add CLAUDE.md``)."""


def protected_redirect(command: str, ctx: ToolContext, places: SessionPlaces) -> Decision | None:
    """An ask when the command's output goes to a protected place (``> .git/config``)."""
    try:
        script = shellparse.parse(command)
    except ShellParseError:
        return None
    base = str(ctx.shell.cwd or ctx.workspace)
    for cmd in script.commands:
        for redirect in cmd.redirects:
            target = redirect.target
            if redirect.kind != "write" or target is None or not target.static:
                continue
            raw = os.path.join(base, os.path.expanduser(target.value))
            try:
                path = ctx.resolve(raw).path
            except ToolError:
                continue
            why = protected_reason(path, places)
            if why is not None:
                text = f"{path.name} is a protected file: {why}."
                return Decision("ask", f"`{cmd.text()}` writes to {path}: {text}", None, text)
    return None


def protected_argument(command: str, ctx: ToolContext, places: SessionPlaces) -> Decision | None:
    """An ask when a command that may change files names a protected place as an argument
    (``cp x .eddy/settings.json``, ``mkdir -p .git/hooks``), whatever the rules: the
    writable sandbox keeps existing protected places read-only and removes new ones, but a
    command allowed outside it (bypassPermissions) could create them. Words inside ``sh -c``
    scripts are looked at too (split on blanks): a false alarm only asks."""
    try:
        script = shellparse.parse(command)
    except ShellParseError:
        return None
    base = Path(ctx.shell.cwd or ctx.workspace)
    for cmd in script.commands:
        if _names_without_writing(cmd) or shell_readonly.read_only(cmd.argv) is not None:
            continue  # it reads what it names (its redirections are checked on their own)
        for word in (*cmd.argv[1:], *(w for layer in cmd.layers for w in layer[1:])):
            for token in word.value.split():
                why = _protected_token(token, base, ctx, places)
                if why is not None:
                    text = f"{token} is protected: {why}."
                    reason = f"`{cmd.text()}` may change {token}: {text}"
                    return Decision("ask", reason, None, text)
    return None


def _names_without_writing(cmd: Command) -> bool:
    """``git add CLAUDE.md``, ``git commit -m "... AGENTS.md"``: git reads the files it names
    there (a command with no layers around it and no global option)."""
    argv = cmd.argv
    return (
        len(cmd.layers) <= 1
        and len(argv) > 1
        and argv[0].static
        and argv[0].value == "git"
        and argv[1].static
        and argv[1].value in _GIT_NAMING
    )


def _protected_token(token: str, base: Path, ctx: ToolContext, places: SessionPlaces) -> str | None:
    """Why the path ``token`` names is protected (existing or not), or None."""
    if token.startswith("-") and "=" in token:
        token = token.split("=", 1)[1]  # --output=.git/config
    if not token or token.startswith("-"):
        return None
    path = Path(os.path.expanduser(token))
    path = path if path.is_absolute() else base / path
    why = protected_reason(Path(os.path.normpath(path)), places)
    if why is not None:
        return why
    try:
        resolved = ctx.resolve(str(path)).path
    except ToolError:
        return None
    return protected_reason(resolved, places)
