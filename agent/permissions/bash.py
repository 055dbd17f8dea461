"""The permission check of one Bash command line, part by part (``BashCheck``), and the
rule "yes, don't ask again" saves for a call (``suggested_rule``). The command is parsed by
:mod:`agent.shell.parser`; a compound command is allowed only if every part is. Rules and the
policy are :mod:`agent.permissions.policy`; the rule saved for one command is
:mod:`agent.permissions.program_rule`, for a path :mod:`agent.permissions.paths`.
"""

from __future__ import annotations

import glob
import itertools
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.permissions.paths import path_rule
from agent.permissions.policy import (
    _DIRECTORY_TOOLS,
    EDIT_TOOLS,
    READ_TOOLS,
    Decision,
    Policy,
    Rule,
    Verdict,
)
from agent.permissions.program_rule import program_rule
from agent.shell import parser as shellparse
from agent.shell import readonly as shell_readonly
from agent.shell import variables as shell_variables
from agent.shell.parser import Command
from agent.shell.words import Redirect, ShellParseError, Word
from tools.base import ResolvedPath, ToolContext, ToolError

_SAFE_SINKS = frozenset(
    {"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/fd/1", "/dev/fd/2"}
)
_SAFE_SOURCES = frozenset({"/dev/null", "/dev/stdin", "/dev/fd/0"})
_CD = frozenset({"cd", "pushd", "popd"})
GLOB_LIMIT = 1000
"""A shell glob matching more paths than this is not expanded: the command asks."""


@dataclass
class Finding:
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


class BashCheck:
    """The verdict for one shell command line: every part must be allowed."""

    def __init__(self, policy: Policy, ctx: ToolContext) -> None:
        self.policy, self.ctx = policy, ctx
        self.findings: list[Finding] = []
        self.part = ""

        def bash(rules: list[Rule]) -> list[Rule]:
            return [r for r in rules if r.tool == "Bash" and r.specifier is not None]

        self.deny_rules, self.ask_rules = bash(policy.deny), bash(policy.ask)
        self.allow_rules = bash(policy.allow)
        self.bare_allow = any(r.tool == "Bash" and r.specifier is None for r in policy.allow)

    def add(self, verdict: Verdict, reason: str = "", rule: str | None = None, **kw: Any) -> None:
        self.findings.append(Finding(verdict, reason, rule, part=self.part, **kw))

    def run(self, command: str) -> Decision:
        policy = self.policy
        for rule in policy.deny:
            if rule.tool == "Bash" and (
                rule.specifier is None or rule.matches_command_line(command)
            ):
                return Decision("deny", f"Bash is denied by the permission rule {rule}.")
        verbatim = f"Bash({command.strip()})"
        try:
            script = shellparse.parse(command)
        except ShellParseError as exc:
            self.add(
                "ask",
                f"eddy could not analyse this command ({exc}).",
                verbatim,
                changes=True,
                strict=bool(self.deny_rules),
            )
        else:
            cwd: str | None = str(self.ctx.shell.cwd or self.ctx.workspace)
            if script.loops and any(c.program in _CD for c in script.commands):
                cwd = None  # a cd inside a loop moves later iterations: paths are unknown
            for cmd in script.commands:
                cwd = self.command(cmd, cwd)
        return self.combine(command, verbatim)

    def combine(self, command: str, verbatim: str) -> Decision:
        policy, found = self.policy, self.findings
        denied = next((f for f in found if f.verdict == "deny"), None)
        if denied is not None:
            return Decision("deny", denied.reason)
        change = next((f for f in found if f.changes), None)
        if policy.mode == "plan" and change is not None:
            part = f" (`{change.part}` may change state)" if change.part else ""
            return Decision(
                "deny",
                (
                    "Bash was not run: eddy is in plan mode, where nothing that changes state "
                    f"runs{part}; only read-only commands run. Present your plan to the user "
                    "instead."
                ),
            )
        strict = next((f for f in found if f.strict), None)
        if strict is not None:
            return Decision("ask", strict.reason, None)
        if policy.mode == "bypassPermissions":
            return Decision("allow")
        asks = [f for f in found if f.verdict == "ask"]
        if not asks:
            return Decision("allow")
        if all(f.overridable for f in asks) and any(
            r.matches_command_line(command) for r in policy.allow
        ):
            return Decision("allow")
        first = asks[0]
        rule = (first.rule or verbatim) if first.overridable else None
        return Decision("ask", first.reason, rule)

    # -- one simple command ---------------------------------------------------------------
    def command(self, cmd: Command, cwd: str | None) -> str | None:
        text = self.part = cmd.text()
        for layer in cmd.layers or (cmd.argv,):
            for rule in self.deny_rules:
                hit = rule.match_argv(layer, open_args=cmd.open_args, loose=True)
                if hit == "yes":
                    self.add("deny", f"`{text}` is denied by the permission rule {rule}.")
                elif hit == "maybe":
                    self.add(
                        "ask",
                        f"`{text}` might be denied by the permission rule {rule}; "
                        "eddy cannot tell before it runs.",
                        changes=True,
                        strict=True,
                    )
        for redirect in cmd.redirects:
            self.redirect(redirect, cwd, text)
        for word in cmd.assignments:
            if shell_variables.unsafe_assignment(word):
                name = shell_variables.assignment_name(word)
                self.add("ask", f"setting {name} can change what `{text}` runs.", changes=True)
        if cmd.opaque is not None:
            self.add(
                "ask",
                f"eddy cannot tell what `{text}` runs: {cmd.opaque}.",
                changes=True,
                strict=bool(self.deny_rules),
            )
            return None
        argv = cmd.argv
        if not argv:
            return cwd
        readonly = None
        if all(shell_variables.read_only_assignment(a) for a in cmd.assignments):
            readonly = shell_readonly.read_only(argv)
            if readonly is not None and cmd.open_args and readonly.takes_paths:
                readonly = None  # xargs adds paths eddy cannot see
        for layer in cmd.layers or (argv,):
            for rule in self.ask_rules:
                if rule.match_argv(layer, open_args=cmd.open_args, loose=True) != "no":
                    self.add(
                        "ask",
                        f"the permission rule {rule} asks before `{text}`.",
                        changes=readonly is None,
                        overridable=False,
                    )
        # a rule naming the command allows it wherever it reaches; bare Bash only inside
        named = any(r.match_argv(argv, open_args=cmd.open_args) == "yes" for r in self.allow_rules)
        suggestion = program_rule(argv, open_args=cmd.open_args)
        if argv[0].value in _CD:
            return self.cd(argv, cwd, text, named, suggestion)
        if readonly is not None:
            for word in readonly.paths:
                self.read(word, cwd, text, named, suggestion)
            return cwd
        if named or self.bare_allow:
            self.add("allow", changes=True)
        else:
            self.add("ask", f"`{text}` needs permission.", suggestion, changes=True)
        return cwd

    def targets(self, word: Word, cwd: str | None) -> list[ResolvedPath] | None:
        """The real paths a static word names (a glob expanded), or None if unknown."""
        if not word.static:
            return None
        value = os.path.expanduser(word.value) if word.value.startswith("~") else word.value
        if not os.path.isabs(value):
            if cwd is None:
                return None
            value = os.path.join(cwd, value)
        names = [value]
        if word.glob:
            found = list(itertools.islice(glob.iglob(value), GLOB_LIMIT + 1))
            if len(found) > GLOB_LIMIT:
                return None
            names = found or names
        try:
            return [self.ctx.resolve(name) for name in names]
        except ToolError:
            return None

    def _path_rules(self, rules: list[Rule], family: str, path: Path) -> Rule | None:
        ws = self.ctx.workspace
        return next(
            (
                r
                for r in rules
                if r.applies_to(family)
                and r.tool != "Bash"
                and (r.specifier is None or r.matches_path(path, ws))
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
        denied = self._path_rules(self.policy.deny, family, path)
        if denied is not None:
            self.add("deny", f"`{text}` {verb} {path}, which the permission rule {denied} denies.")
            return True
        asked = self._path_rules(self.policy.ask, family, path)
        if asked is not None:
            self.add(
                "ask",
                f"the permission rule {asked} asks before `{text}`.",
                changes=changes,
                overridable=False,
            )
            return True
        return False

    def read(self, word: Word, cwd: str | None, text: str, allowed: bool, rule: str | None) -> None:
        """A path a read-only command (or ``<``) reads: inside, or named by a Read rule."""
        paths = self.targets(word, cwd)
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
                and r.applies_to("Read")
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

    def redirect(self, redirect: Redirect, cwd: str | None, text: str) -> None:
        kind, target = redirect.kind, redirect.target
        if kind in ("dup", "data") or target is None:
            return
        if kind == "read":
            if not (target.static and target.value in _SAFE_SOURCES):
                self.read(target, cwd, text, False, None)
            return
        if target.static and target.value in _SAFE_SINKS:
            return
        paths = None if target.glob else self.targets(target, cwd)
        if not paths:
            self.add(
                "ask",
                f"`{text}` writes to {target.text}, which is only known at run time.",
                changes=True,
            )
            return
        rp, policy = paths[0], self.policy
        if self._ruled_out("Write", "writes", rp.path, text, changes=True):
            return
        edits_inside = (
            policy.mode == "acceptEdits"
            or self.bare_allow
            or any(r.specifier is None and r.applies_to("Write") for r in policy.allow)
        )
        named = any(
            r.specifier is not None
            and r.applies_to("Write")
            and r.matches_path(rp.path, self.ctx.workspace)
            for r in policy.allow
        )
        if named or (rp.inside and edits_inside):
            self.add("allow", changes=True)
            return
        where = "" if rp.inside else ", outside the workspace"
        self.add(
            "ask",
            f"`{text}` writes to {rp.path}{where}.",
            path_rule("Edit", rp.path, self.ctx.workspace),
            changes=True,
        )

    def cd(
        self, argv: tuple[Word, ...], cwd: str | None, text: str, allowed: bool, rule: str | None
    ) -> str | None:
        """``cd``: allowed within the workspace; later relative paths resolve from there."""
        args = [w for w in argv[1:] if not (w.static and w.value in ("--", "-L", "-P"))]
        if argv[0].value == "popd":
            return None
        paths = self.targets(args[0], cwd) if len(args) == 1 and args[0].value != "-" else None
        if not paths or len(paths) != 1:
            if not (allowed or self.bare_allow):
                self.add(
                    "ask", f"`{text}` changes to a directory eddy cannot tell in advance.", rule
                )
            return None
        rp = paths[0]
        named = any(
            r.specifier is not None
            and r.applies_to("Read")
            and r.matches_path(rp.path, self.ctx.workspace)
            for r in self.policy.allow
        )
        if not (rp.inside or allowed or named):
            self.add(
                "ask",
                f"`{text}` leaves the workspace.",
                path_rule("Read", rp.path, self.ctx.workspace, directory=True),
            )
        return str(rp.path)


def suggested_rule(name: str, args: dict[str, Any], ctx: ToolContext | None = None) -> str:
    """The rule "yes, don't ask again" saves, from the call alone (no policy).

    Prefer ``Policy.suggest``, which knows which part of a compound command asked. Bash:
    the first part that is not read-only, as ``program_rule``; a command eddy cannot parse:
    the exact command line. Edits and reads: their directory (``Edit(src/**)``). Otherwise
    the tool's name.
    """
    ctx = ctx or ToolContext(Path.cwd())
    if name == "Bash":
        command = str(args.get("command", ""))
        decision = BashCheck(Policy(), ctx).run(command)
        return decision.rule or f"Bash({command.strip()})"
    raw = args.get("file_path", args.get("path"))
    family = "Edit" if name in EDIT_TOOLS else "Read" if name in READ_TOOLS else None
    if family is not None and isinstance(raw, str) and raw.strip():
        try:
            rp = ctx.resolve(raw)
        except ToolError:
            return name
        return path_rule(family, rp.path, ctx.workspace, directory=name in _DIRECTORY_TOOLS)
    return name
