"""The checks of the paths one part of a Bash command line names: files a read-only command or
``<`` reads, redirections it writes to, the directory a ``cd`` enters, and in acceptEdits the
paths of an ordinary file command (:mod:`agent.shell.fileops`). Each check adds a ``Finding``.

``BashPathChecks`` is the base of :class:`agent.permissions.bash.BashCheck`, which walks the
command line part by part and sets the state these checks read (the current part, its
``Command``, the directories the shell may be in); the rules come from the policy.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.permissions.paths import path_rule
from agent.permissions.places import protected_reason
from agent.permissions.policy import Policy, Rule, Verdict
from agent.shell.fileops import file_command
from agent.shell.parser import Command
from agent.shell.paths import Directories, cd_targets, loop_words, word_paths
from agent.shell.readonly_git import history_content
from agent.shell.words import Redirect, Word
from tools.base import ResolvedPath, ToolContext

_SAFE_SINKS = frozenset(
    {"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/fd/1", "/dev/fd/2"}
)
_SAFE_SOURCES = frozenset({"/dev/null", "/dev/stdin", "/dev/fd/0"})


@dataclass
class Finding:
    """What one check found about one part of the command line: a verdict and why."""

    verdict: Verdict
    reason: str = ""
    rule: str | None = None
    changes: bool = False
    """The part may change state (plan mode refuses it)."""
    strict: bool = False
    """It asks even in bypassPermissions: a deny rule might apply and cannot be checked."""
    overridable: bool = True
    """A verbatim allow rule for the whole command line settles it (not for ask rules)."""
    part: str = ""
    """The part of the command line it is about."""
    by: Rule | None = None
    """The permission rule behind it, if one (``/permissions why``)."""
    warning: str = ""
    """For a strict ask no rule can settle: why, shown in the question."""
    git_config: bool = False
    """An allowed part whose only change is git's own harmless write of its configuration."""


class BashPathChecks:
    """The path checks of :class:`agent.permissions.bash.BashCheck` (its base class)."""

    policy: Policy
    ctx: ToolContext
    findings: list[Finding]
    part: str
    """The text of the part being checked (a finding is about it)."""
    cmd: Command
    assigned: frozenset[str]
    """Names the command line assigns (a loop variable's values are then unknown)."""
    dirs: Directories
    bare_allow: bool
    """A bare ``Bash`` allow rule exists (it allows reading inside only)."""

    def add(self, verdict: Verdict, reason: str = "", rule: str | None = None, **kw: Any) -> None:
        """Record a finding about the current part."""
        self.findings.append(Finding(verdict, reason, rule, part=self.part, **kw))

    def file_command(self, cmd: Command, cwds: list[str] | None, text: str) -> bool:
        """acceptEdits: an ordinary file command inside the workspace runs (True if added)."""
        if self.policy.mode != "acceptEdits" or cmd.open_args or cmd.assignments:
            return False
        op = file_command(cmd.argv)
        if op is None:
            return False
        checked: list[tuple[Word, list[ResolvedPath]]] = []
        for word in (*op.writes, *op.reads):
            paths = self.targets(word, cwds)
            if not paths:
                return False
            checked.append((word, paths))
        for _word, paths in checked[: len(op.writes)]:
            if not all(self._edits_inside(rp, text, removes=op.removes) for rp in paths):
                return False
        for word, _paths in checked[len(op.writes) :]:
            self.read(word, cwds, text, False, None)
        self.add("allow", changes=True)
        return True

    def _edits_inside(self, rp: ResolvedPath, text: str, *, removes: bool) -> bool:
        """Whether acceptEdits lets a file command write ``rp``: inside the workspace proper,
        below its root, not protected, and no rule against writing it."""
        ws = self.ctx.workspace
        if not rp.inside or self._ruled_out("Write", "writes", rp.path, text, changes=True):
            return False
        if rp.path == ws or rp.path in ws.parents or (removes and rp.path == ws):
            return False  # never the workspace itself or a directory above it
        if ws not in rp.path.parents:
            return False  # inside an added directory: ask
        return protected_reason(rp.path, self.policy.places) is None

    def history(self, argv: tuple[Word, ...], cwds: list[str] | None, text: str) -> bool:
        """While a Read deny rule exists, a git command that can print a denied file's content
        from history, the index or the tree (``git show HEAD:secret``, ``git log -p``, ``git
        diff``, ``git grep``, ...) asks, unless its output is limited to files no rule denies.
        The sandbox masks denied files on disk, not git's objects. True when it asked."""
        rules = self.policy.read_rules()
        if not rules:
            return False
        bounds = history_content(argv)
        if bounds is None:
            return False
        why = None
        if not bounds:
            why = "it can print any file's content from git's history"
        for word in bounds:
            paths = self.targets(word, cwds)
            if paths is None or any(
                os.path.isdir(rp.path)
                or self.policy.read_denied("Read", rp.path, self.ctx.workspace)
                for rp in paths
            ):
                why = f"it can print the content of {word.text} from git's history"
                break
        if why is None:
            return False
        self.add(
            "ask",
            f"`{text}` may show a file a Read deny rule protects: {why}.",
            strict=self.policy.mode == "bypassPermissions",
            warning=f"A Read deny rule exists, and {why}; the sandbox cannot hide git's history.",
        )
        return True

    def targets(self, word: Word, cwds: list[str] | None) -> list[ResolvedPath] | None:
        """The real paths a word names (a glob expanded, a loop variable's values), or None."""
        loop = loop_words(word, self.cmd.loop_vars, self.assigned) if not word.static else None
        return word_paths(self.ctx, word, cwds, loop)

    def _path_rules(
        self, rules: list[Rule], family: str, path: Path, *, deny: bool = False
    ) -> Rule | None:
        """The first deny (``deny``: a Read deny also covers writes) or ask rule of ``family``
        naming ``path``."""
        ws = self.ctx.workspace
        return next(
            (
                r
                for r in rules
                if (
                    r.denies(family) or (family == "Write" and r.tool == "Read")
                    if deny
                    else r.applies_to(family)
                )
                and r.tool != "Bash"
                and (r.specifier is None or r.matches_path(path, ws, broad=True))
            ),
            None,
        )

    def _ruled_out(self, family: str, verb: str, path: Path, text: str, *, changes: bool) -> bool:
        """A deny or ask rule of ``family`` names ``path``: add its finding and return True.

        Args:
            family: "Read" or "Write".
            verb: how ``text`` uses the path, for the message ("reads", "writes").
            path: the real path.
            text: the command, for messages.
            changes: whether the command may change state (an ask rule's finding says so).
        """
        denied = self._path_rules(self.policy.deny, family, path, deny=True)
        if denied is not None:
            self.add(
                "deny",
                f"`{text}` {verb} {path}, which the permission rule {denied} denies.",
                by=denied,
            )
            return True
        asked = self._path_rules(self.policy.ask, family, path)
        if asked is not None:
            self.add(
                "ask",
                f"the permission rule {asked} asks before `{text}`.",
                changes=changes,
                overridable=False,
                by=asked,
            )
            return True
        return False

    def read(
        self, word: Word, cwds: list[str] | None, text: str, allowed: bool, rule: str | None
    ) -> None:
        """A path a read-only command (or ``<``) reads: inside, or named by a Read rule."""
        paths = self.targets(word, cwds)
        if paths is None:
            if not (allowed or self.bare_allow):
                what = "the working directory" if word.value == "." else word.text
                self.add("ask", f"`{text}` reads {what}, which eddy cannot tell in advance.", rule)
            return
        policy = self.policy
        for rp in paths:
            if self._ruled_out("Read", "reads", rp.path, text, changes=False):
                continue
            if rp.inside or allowed:
                continue
            if any(
                r.specifier is not None
                and r.allows("Read")
                and r.matches_path(rp.path, self.ctx.workspace)
                for r in policy.allow
            ):
                continue
            directory = os.path.isdir(rp.path)
            self.add(
                "ask",
                f"`{text}` reads {rp.path}, outside the workspace.",
                path_rule("Read", rp.path, self.ctx.workspace, directory=directory),
            )

    def redirect(self, redirect: Redirect, cwds: list[str] | None, text: str) -> None:
        kind, target = redirect.kind, redirect.target
        if kind in ("dup", "data") or target is None:
            return
        if kind == "read":
            if not (target.static and target.value in _SAFE_SOURCES):
                self.read(target, cwds, text, False, None)
            return
        if target.static and target.value in _SAFE_SINKS:
            return
        paths = None if target.glob else self.targets(target, cwds)
        if not paths:
            self.add(
                "ask",
                f"`{text}` writes to {target.text}, which is only known at run time.",
                changes=True,
            )
            return
        policy = self.policy
        edits_inside = (
            policy.mode == "acceptEdits"
            or self.bare_allow
            or any(r.specifier is None and r.applies_to("Write") for r in policy.allow)
        )
        for rp in paths:  # one per directory the shell may be in
            if self._ruled_out("Write", "writes", rp.path, text, changes=True):
                return
            protected = protected_reason(rp.path, self.policy.places) is not None
            named = any(
                r.specifier is not None
                and r.applies_to("Write")
                and r.matches_path(rp.path, self.ctx.workspace)
                for r in policy.allow
            )
            if named or (rp.inside and edits_inside and not protected):
                continue
            where = ", outside the workspace" if not rp.inside else ", a protected file" * protected
            self.add(
                "ask",
                f"`{text}` writes to {rp.path}{where}.",
                path_rule("Edit", rp.path, self.ctx.workspace),
                changes=True,
            )
            return
        self.add("allow", changes=True)

    def cd(
        self,
        argv: tuple[Word, ...],
        cwds: list[str] | None,
        text: str,
        allowed: bool,
        rule: str | None,
    ) -> None:
        """``cd``: allowed within the workspace; later relative paths resolve from there."""
        paths = cd_targets(self.ctx, argv[1:], cwds)
        if paths is None:
            if not (allowed or self.bare_allow):
                self.add(
                    "ask", f"`{text}` changes to a directory eddy cannot tell in advance.", rule
                )
            self.dirs.unknown()
            return
        for rp in paths:
            named = any(
                r.specifier is not None
                and r.allows("Read")
                and r.matches_path(rp.path, self.ctx.workspace)
                for r in self.policy.allow
            )
            if not (rp.inside or allowed or named):
                self.add(
                    "ask",
                    f"`{text}` leaves the workspace.",
                    path_rule("Read", rp.path, self.ctx.workspace, directory=True),
                )
        self.dirs.moved([str(rp.path) for rp in paths], subshell=self.cmd.subshell)
