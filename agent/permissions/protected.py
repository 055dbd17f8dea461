"""Protected places in shell commands: a command whose output goes to, or whose arguments name,
git's configuration and hooks, eddy's and Claude Code's settings or a shell start-up file asks,
whatever the rules (see :func:`agent.permissions.paths.protected_reason`)."""

from __future__ import annotations

import os
from pathlib import Path

from agent.permissions.paths import protected_reason
from agent.permissions.policy import Decision
from agent.shell import parser as shellparse
from agent.shell.words import ShellParseError
from tools.base import ToolContext, ToolError


def protected_redirect(
    command: str, ctx: ToolContext, hook_scripts: tuple[Path, ...]
) -> Decision | None:
    """An ask when the command's output goes to a protected file (``> .git/config``)."""
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
            why = protected_reason(path, hook_scripts)
            if why is not None:
                text = f"{path.name} is a protected file: {why}."
                return Decision("ask", f"`{cmd.text()}` writes to {path}: {text}", None, text)
    return None


def protected_argument(
    command: str, ctx: ToolContext, hook_scripts: tuple[Path, ...]
) -> Decision | None:
    """An ask when a command that may change files names a protected place as an argument
    (``cp x .eddy/settings.json``, ``mkdir -p .git/hooks``), whatever the rules: the
    writable sandbox keeps existing protected files read-only, but one that does not
    exist yet could be created. Words inside ``sh -c`` scripts are looked at too (split
    on blanks): a false alarm only asks."""
    try:
        script = shellparse.parse(command)
    except ShellParseError:
        return None
    base = Path(ctx.shell.cwd or ctx.workspace)
    for cmd in script.commands:
        for word in (*cmd.argv[1:], *(w for layer in cmd.layers for w in layer[1:])):
            for token in word.value.split():
                why = _protected_token(token, base, ctx, hook_scripts)
                if why is not None:
                    text = f"{token} is protected: {why}."
                    reason = f"`{cmd.text()}` may change {token}: {text}"
                    return Decision("ask", reason, None, text)
    return None


def _protected_token(
    token: str, base: Path, ctx: ToolContext, hook_scripts: tuple[Path, ...]
) -> str | None:
    """Why the path ``token`` names is protected (existing or not), or None."""
    from agent.shell.fileops import protected_name

    if token.startswith("-") and "=" in token:
        token = token.split("=", 1)[1]  # --output=.git/config
    if not token or token.startswith("-"):
        return None
    path = Path(os.path.expanduser(token))
    path = path if path.is_absolute() else base / path
    try:
        relative = Path(os.path.normpath(path)).relative_to(ctx.workspace)
    except ValueError:
        relative = None
    if relative is not None and protected_name(relative):
        return "git's, eddy's or Claude Code's configuration, or a shell start-up file"
    try:
        resolved = ctx.resolve(str(path)).path
    except ToolError:
        return None
    return protected_reason(resolved, hook_scripts)
