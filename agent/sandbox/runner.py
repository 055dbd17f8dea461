"""The session's sandbox: which calls run inside, under which profile, and how.

The gate tells the Bash tool why a call may run (its :data:`tools.base.Grant`), and
:meth:`Sandbox.wrap` picks the profile from it:

- ``read_only`` (eddy judged the command read-only and asked no one): the whole filesystem
  read-only. With no sandbox there is no read-only auto-allow at all: the gate asks instead
  (:meth:`Sandbox.unavailable_reason`), and ``wrap`` refuses, should a call get here anyway.
- ``rule`` (an allow rule, acceptEdits): the workspace roots writable, the rest read-only,
  the places that configure eddy read-only where they exist and watched where they do not
  (:meth:`Sandbox.watch`). ``git_config``: the same, with ``.git/config`` writable.
  With no sandbox such a command runs as it would without one: the user wrote the rule.
- ``user`` (the user said yes, or typed ``!``): outside the sandbox, unless
  ``allowUnsandboxedCommands`` is false (then as ``rule``). ``bypass`` (bypassPermissions):
  the same, and watched as ``rule`` is, inside the sandbox or not: no one saw the command, so
  the missing places that configure eddy it creates do not stay.

Network off and secrets hidden in both profiles, and what Read deny rules name masked
(:mod:`agent.sandbox.masks`); see :mod:`agent.sandbox.config`.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING

from agent.sandbox import detect
from agent.sandbox.bwrap import Profile, bwrap_argv
from agent.sandbox.config import SandboxSettings
from agent.sandbox.hidden import hidden_paths
from agent.sandbox.masks import DeniedPaths
from agent.sandbox.seatbelt import seatbelt_argv, seatbelt_profile
from agent.sandbox.watch import PlacesWatch
from tools.base import Grant, ToolError

if TYPE_CHECKING:
    from agent.permissions.policy import Rule


class Sandbox:
    """Implements :class:`tools.base.ShellSandbox` for a session.

    Args:
        settings: the ``sandbox`` settings.
    """

    def __init__(self, settings: SandboxSettings | None = None) -> None:
        self.settings = settings or SandboxSettings()
        self._read_rules: tuple[Rule, ...] = ()
        self._workspace: Path | None = None
        self._denied = DeniedPaths()
        self.approved: set[Path] = set()
        """Protected paths eddy's tools wrote with the user's yes (a watch leaves them)."""

    def mask_reads(self, rules: list[Rule], workspace: Path) -> None:
        """Mask what these Read deny rules name in the commands that run from now on."""
        self._read_rules, self._workspace = tuple(rules), workspace

    def approve(self, paths: list[Path]) -> None:
        """The user let eddy's tools write these protected paths (a watch leaves them)."""
        self.approved.update(paths)

    def watch(
        self, grant: Grant | None, command: str, roots: tuple[Path, ...]
    ) -> PlacesWatch | None:
        """For a command that runs with a writable workspace inside the sandbox, or in
        bypassPermissions (in the sandbox or not): the watch over the places missing under
        ``roots`` now (see :class:`PlacesWatch`); else None."""
        if grant == "bypass":
            return PlacesWatch.start(roots, self.approved)
        try:
            if self.profile_for(grant, command) != "workspace":
                return None
        except ToolError:
            return None
        return PlacesWatch.start(roots, self.approved)

    def availability(self) -> detect.Availability:
        """What the (cached) probe found."""
        return detect.availability()

    def unavailable_reason(self, command: str) -> str | None:
        """Why ``command`` would run outside the sandbox without being asked, or None.

        The gate turns a read-only auto-allow into a question when this is not None.
        """
        if not self.settings.enabled:
            return "the sandbox is turned off (sandbox.enabled is false)"
        if self.excluded(command):
            return "the command is in sandbox.excludedCommands, so it runs outside the sandbox"
        found = self.availability()
        if found.backend is None:
            return f"no sandbox is available: {found.why}"
        return None

    def excluded(self, command: str) -> bool:
        """Whether every part of ``command`` matches ``sandbox.excludedCommands``."""
        return any(rule.matches("Bash", {"command": command}) for rule in self._excluded_rules)

    @functools.cached_property
    def _excluded_rules(self) -> list[Rule]:
        from agent.permissions.policy import Rule

        rules = []
        for spec in self.settings.excluded_commands:
            try:
                rules.append(Rule.parse(f"Bash({spec})"))
            except ValueError:
                continue
        return rules

    def profile_for(self, grant: Grant | None, command: str) -> Profile | None:
        """The profile for a call, or None to run it outside the sandbox.

        Raises:
            ToolError: a read-only auto-allowed command with no sandbox to run it in.
        """
        if grant in ("user", "bypass") and self.settings.allow_unsandboxed_commands:
            return None
        reason = self.unavailable_reason(command)
        if reason is not None:
            if grant == "read_only":
                raise ToolError(
                    f"Not run: this command was allowed only because it is read-only, and "
                    f"{reason}. Ask the user to approve it, or to enable the sandbox."
                )
            return None
        return "read_only" if grant == "read_only" else "workspace"

    def wrap(
        self,
        argv: list[str],
        *,
        cwd: Path,
        grant: Grant | None,
        command: str,
        roots: tuple[Path, ...],
        writable_files: tuple[Path, ...] = (),
        own_session: bool = False,
    ) -> list[str]:
        """The argv to execute for ``argv`` (see :class:`tools.base.ShellSandbox`)."""
        profile = self.profile_for(grant, command)
        if profile is None:
            return argv
        found = self.availability()
        hidden = hidden_paths()
        masked = self._denied.find(self._read_rules, self._workspace) if self._workspace else ()
        if found.backend == "seatbelt":
            text = seatbelt_profile(
                profile=profile,
                roots=roots,
                writable_files=writable_files,
                hidden=[*hidden, *masked],
                network=self.settings.network,
                git_config=grant == "git_config",
            )
            return seatbelt_argv(found.binary, argv, text)
        return bwrap_argv(
            found.binary,
            argv,
            cwd=cwd,
            profile=profile,
            roots=roots,
            writable_files=writable_files,
            hidden=hidden,
            network=self.settings.network,
            masked=masked,
            git_config=grant == "git_config",
            own_session=own_session,
        )
