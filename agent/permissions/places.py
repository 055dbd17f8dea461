"""The places that configure or extend eddy: one list, read by every guard.

A file here can make eddy (or Claude Code, git, a shell) run a program, grant a permission or
add instructions to every request, so writing it always asks, in every mode, whatever the
allow rules (bypassPermissions included), and the question says why. The guards that read
this list:

- the Edit, Write and NotebookEdit tools (:mod:`agent.permissions.policy`);
- shell output redirections, ordinary file commands and any argument of a command that may
  change files (:mod:`agent.permissions.bash_paths`, :mod:`agent.permissions.protected`);
- the sandbox: what exists of :data:`SANDBOX_PLACES` is bound read-only for commands allowed
  by a rule, and what does not exist yet is watched, and removed if a command creates it
  (:mod:`agent.sandbox.bwrap`, :mod:`agent.sandbox.watch`);
- the trust question, which lists what the project's own files of these places grant
  (:mod:`agent.settings.grants`).

The list, by name wherever it appears (a cloned repository may nest them):

- ``.eddy/`` and ``.claude/``: settings, skills, agents, commands, output styles, rules,
  the scripts hooks run;
- ``.mcp.json``: MCP servers, programs eddy starts;
- ``CLAUDE.md``, ``CLAUDE.local.md``, ``AGENTS.md``: memory, read into every request;
- ``.git/``: git's configuration and hooks run programs (for git's own commands only what
  runs code is protected: :mod:`agent.shell.gitconfig`), ``.gitmodules``;
- ``.envrc`` and shell start-up files (``.bashrc``, ``.profile``, ...), ``~/.gitconfig``;
- eddy's config directory, its MCP approvals, Claude Code's ``~/.claude.json``;

and the session's own (:class:`SessionPlaces`): the scripts configured hooks and the status
line run, the files memory imports, git's ``core.hooksPath``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

SETTINGS_REASON = (
    "it configures eddy or Claude Code (settings, permission rules, hooks, skills, agents, "
    "commands)"
)
GIT_REASON = "git runs programs its configuration and hooks name (core.fsmonitor, aliases, filters)"
MEMORY_REASON = "it is memory: eddy and Claude Code read it into every request as instructions"
MCP_REASON = "it configures MCP servers, programs eddy and Claude Code start"
RC_REASON = "a shell runs this file when it starts"

DIRECTORY_NAMES: dict[str, str] = {".eddy": SETTINGS_REASON, ".claude": SETTINGS_REASON}
"""Directories protected with everything below them, wherever they are."""

FILE_NAMES: dict[str, str] = {
    ".mcp.json": MCP_REASON,
    "CLAUDE.md": MEMORY_REASON,
    "CLAUDE.local.md": MEMORY_REASON,
    "AGENTS.md": MEMORY_REASON,
    ".gitmodules": "git clones and runs commands from the submodules it names",
    ".envrc": "direnv runs this file when a shell enters the directory",
    ".gitconfig": GIT_REASON,
    ".claude.json": "it holds Claude Code's MCP servers and trusted folders",
    **dict.fromkeys(
        (
            ".bashrc",
            ".bash_profile",
            ".bash_login",
            ".bash_logout",
            ".profile",
            ".zshrc",
            ".zshenv",
            ".zprofile",
            ".zlogin",
            ".zlogout",
            ".cshrc",
            ".tcshrc",
            ".kshrc",
            ".inputrc",
        ),
        RC_REASON,
    ),
}
"""Files protected by name, wherever they are."""

SANDBOX_PLACES: tuple[str, ...] = (
    ".eddy",
    ".claude",
    ".mcp.json",
    "CLAUDE.md",
    "CLAUDE.local.md",
    "AGENTS.md",
    ".gitmodules",
    ".envrc",
    ".git/config",
    ".git/config.worktree",
    ".git/hooks",
)
"""The places under each workspace root the sandbox keeps: bound read-only where they exist,
watched where they do not (git must write the rest of ``.git`` for ordinary commands)."""

SANDBOX_GIT_GLOBS: tuple[str, ...] = (
    ".git/modules/*/config",
    ".git/modules/*/hooks",
    ".git/worktrees/*/config.worktree",
)
"""The configuration and hooks of submodules and worktrees, bound read-only where they exist."""


@dataclass(frozen=True)
class SessionPlaces:
    """The places one session adds to the list: found when it opens.

    Attributes:
        paths: real path -> why it is protected (a hook's script, the status line's script,
            a file memory imports, git's ``core.hooksPath``).
    """

    paths: dict[Path, str] = field(default_factory=dict)

    def reason(self, path: Path) -> str | None:
        """Why ``path`` (a real path) is protected by this session, or None."""
        for place, why in self.paths.items():
            if path == place or place in path.parents:
                return why
        return None

    def with_paths(self, paths: Iterable[Path], why: str) -> SessionPlaces:
        """These places and ``paths`` (protected because ``why``)."""
        added = dict(self.paths)
        for path in paths:
            added.setdefault(Path(os.path.realpath(path)), why)
        return SessionPlaces(added)


def protected_reason(path: Path, session: SessionPlaces | None = None) -> str | None:
    """Why writing ``path`` (a real path, existing or not) always asks, or None.

    Args:
        path: the real path a tool or a command would write.
        session: the session's own places (hook scripts, imported memory files, ...).
    """
    parts = path.parts
    for part in parts[:-1]:
        if part in DIRECTORY_NAMES:
            return DIRECTORY_NAMES[part]
        if part == ".git":
            return GIT_REASON
    name = path.name
    if name in DIRECTORY_NAMES:
        return DIRECTORY_NAMES[name]
    if name == ".git":
        return GIT_REASON
    if name in FILE_NAMES:
        return FILE_NAMES[name]
    if len(parts) >= 3 and parts[-3:] in (
        (".config", "fish", "config.fish"),
        (".config", "git", "config"),
    ):
        return RC_REASON if parts[-2] == "fish" else GIT_REASON
    own = _eddys_own_reason(path)
    if own is not None:
        return own
    return session.reason(path) if session is not None else None


def _eddys_own_reason(path: Path) -> str | None:
    """Why ``path`` is one of eddy's own user files (settings, MCP approvals), or None."""
    from agent.paths import config_dir, data_dir

    try:
        eddy_config = Path(os.path.realpath(config_dir()))
        approvals = Path(os.path.realpath(data_dir())) / "mcp-approvals.json"
    except OSError:  # a symlink on the way replaced while it was read: it cannot be told
        return "eddy's own folders changed while it was checking whether this is one of them"
    if path == eddy_config or eddy_config in path.parents:
        return "it holds eddy's user settings, memory and trusted folders"
    if path == approvals:
        return "it holds the MCP servers you approved"
    return None


def hook_script_paths(commands: list[str], cwd: Path) -> tuple[Path, ...]:
    """The real paths of the scripts that hook (or status line) commands run: their first
    word, and a script given to an interpreter (``bash .eddy/hooks/check.sh``,
    ``python3 tools/lint.py``).

    Args:
        commands: the command lines.
        cwd: the directory relative paths are taken from (the workspace).
    """
    import shlex

    out: list[Path] = []
    for command in commands:
        try:
            words = shlex.split(command)
        except ValueError:
            continue
        for word in words[:2]:
            word = word.replace("$CLAUDE_PROJECT_DIR", str(cwd)).replace(
                "${CLAUDE_PROJECT_DIR}", str(cwd)
            )
            if word.startswith("-") or ("/" not in word and not os.path.exists(cwd / word)):
                continue
            path = Path(os.path.realpath(cwd / os.path.expanduser(word)))
            if path.is_file() and path not in out:
                out.append(path)
    return tuple(out)


def git_hooks_path(workspace: Path) -> Path | None:
    """The directory git's ``core.hooksPath`` names in the workspace's repository, if set.

    Read from ``.git/config`` with git's own parser when git is installed; None when unset.
    """
    import subprocess

    from tools.childenv import child_env

    try:
        done = subprocess.run(
            ["git", "config", "--local", "--path", "--get", "core.hooksPath"],
            cwd=workspace,
            capture_output=True,
            text=True,
            timeout=5,
            env=child_env({"GIT_CONFIG_NOSYSTEM": "1"}),
        )
    except (OSError, subprocess.SubprocessError):
        return None
    value = done.stdout.strip()
    if done.returncode != 0 or not value:
        return None
    path = Path(os.path.expanduser(value))
    return Path(os.path.realpath(path if path.is_absolute() else workspace / path))


def session_places(
    workspace: Path,
    hook_commands: list[str],
    status_line: str | None,
    memory_imports: Iterable[Path],
) -> SessionPlaces:
    """The session's own protected places.

    Args:
        workspace: the workspace (relative scripts are taken from it).
        hook_commands: the configured hooks' command lines.
        status_line: the status line's command, if one is configured.
        memory_imports: the files memory imports.
    """
    places = SessionPlaces().with_paths(
        hook_script_paths(hook_commands, workspace), "a configured hook runs this script"
    )
    if status_line:
        places = places.with_paths(
            hook_script_paths([status_line], workspace), "the status line runs this script"
        )
    places = places.with_paths(memory_imports, "memory imports it into every request")
    hooks = git_hooks_path(workspace)
    if hooks is not None:
        places = places.with_paths([hooks], "git runs the hooks in it (core.hooksPath)")
    return places
