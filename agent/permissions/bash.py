"""The permission check of one Bash command line, part by part (``BashCheck``), and the
rule "yes, don't ask again" saves for a call (``Finding.rule``, read by ``Policy.suggest``).
The command is parsed by :mod:`agent.shell.parser`; a compound command is allowed only if
every part is. Rules and the policy are :mod:`agent.permissions.policy`; the rule saved for
one command is :mod:`agent.permissions.program_rule`, for a path
:mod:`agent.permissions.paths`.

It fails closed: what the model of bash does not capture (:mod:`agent.shell.unmodelled`:
``let``, ``set -k``, ``find -exec``, ``git grep -O``, ...; unsafe variables; secrets expanded)
asks whatever the allow rules say (only that exact command line, allowed on purpose, runs),
and plan mode refuses it. Relative paths are checked from every directory the shell may be
in (:class:`agent.shell.paths.Directories`: a ``cd`` may fail). In acceptEdits, ordinary file
commands inside the workspace run (:mod:`agent.shell.fileops`); the decision is then not
read-only, so the gate runs them in the writable sandbox, and read-only ones in the
read-only one.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.permissions.paths import path_rule
from agent.permissions.policy import (
    Decision,
    Policy,
    Rule,
    Verdict,
)
from agent.permissions.program_rule import program_rule
from agent.shell import parser as shellparse
from agent.shell import readonly as shell_readonly
from agent.shell import unmodelled as shell_unmodelled
from agent.shell import variables as shell_variables
from agent.shell.fileops import file_command, protected_name
from agent.shell.parser import Command, Script
from agent.shell.paths import (
    Directories,
    cd_targets,
    lists_inside,
    loop_argv,
    loop_words,
    word_paths,
)
from agent.shell.words import Redirect, ShellParseError, Word
from tools.base import ResolvedPath, ToolContext

_SAFE_SINKS = frozenset(
    {"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/fd/1", "/dev/fd/2"}
)
_SAFE_SOURCES = frozenset({"/dev/null", "/dev/stdin", "/dev/fd/0"})
_CD = frozenset({"cd", "pushd", "popd"})


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
    by: Rule | None = None
    """The permission rule behind it, if one (``/permissions why``)."""


class BashCheck:
    """The verdict for one shell command line: every part must be allowed."""

    def __init__(self, policy: Policy, ctx: ToolContext) -> None:
        self.policy, self.ctx = policy, ctx
        self.findings: list[Finding] = []
        self.part = ""
        self.cmd = Command(())
        self.assigned: frozenset[str] = frozenset()
        self.dirs = Directories(None)

        def bash(rules: list[Rule]) -> list[Rule]:
            return [r for r in rules if r.tool == "Bash" and r.specifier is not None]

        self.deny_rules, self.ask_rules = bash(policy.deny), bash(policy.ask)
        self.allow_rules = bash(policy.allow)
        self.bare_rule = next(
            (r for r in policy.allow if r.tool == "Bash" and r.specifier is None), None
        )
        self.bare_allow = self.bare_rule is not None

    def add(self, verdict: Verdict, reason: str = "", rule: str | None = None, **kw: Any) -> None:
        self.findings.append(Finding(verdict, reason, rule, part=self.part, **kw))

    def run(self, command: str) -> Decision:
        policy = self.policy
        for rule in policy.deny:
            if rule.tool == "Bash" and (
                rule.specifier is None or rule.matches_command_line(command)
            ):
                return Decision("deny", f"Bash is denied by the permission rule {rule}.", by=rule)
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
            self.script(script)
        for name in shell_variables.secret_expansions(command):
            self.part = f"${name}"
            self.add(
                "ask",
                f"`${name}` expands a variable that may hold a secret.",
                verbatim,
                changes=True,
            )
        return self.combine(command, verbatim)

    def script(self, script: Script) -> None:
        """Check every command of a parsed command line, following its ``cd``."""
        self.assigned = shell_variables.assigned_names(script.commands)
        self.dirs = Directories(str(self.ctx.shell.cwd or self.ctx.workspace))
        if script.loops and any(c.program in _CD for c in script.commands):
            self.dirs.unknown()  # a cd inside a loop moves later iterations: paths are unknown
        for cmd in script.commands:
            self.command(cmd, self.dirs.before(cmd.sep))

    def combine(self, command: str, verbatim: str) -> Decision:
        policy, found = self.policy, self.findings
        denied = next((f for f in found if f.verdict == "deny"), None)
        if denied is not None:
            return Decision("deny", denied.reason, by=denied.by)
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
            return Decision("ask", strict.reason, None, by=strict.by)
        if policy.mode == "bypassPermissions":
            return Decision("allow")
        asks = [f for f in found if f.verdict == "ask"]
        if not asks:
            return Decision("allow", by=next((f.by for f in found if f.by), None))
        verbatim_rule = next((r for r in policy.allow if r.matches_command_line(command)), None)
        if all(f.overridable for f in asks) and verbatim_rule is not None:
            return Decision("allow", by=verbatim_rule)
        first = asks[0]
        rule = (first.rule or verbatim) if first.overridable else None
        return Decision("ask", first.reason, rule, by=first.by)

    # -- one simple command ---------------------------------------------------------------
    def command(self, cmd: Command, cwds: list[str] | None) -> None:
        """Check one simple command that starts in one of ``cwds`` (None: unknown)."""
        self.cmd = cmd
        text = self.part = cmd.text()
        for layer in cmd.layers or (cmd.argv,):
            for rule in self.deny_rules:
                hit = rule.match_argv(layer, open_args=cmd.open_args, loose=True)
                if hit == "yes":
                    self.add("deny", f"`{text}` is denied by the permission rule {rule}.", by=rule)
                elif hit == "maybe":
                    self.add(
                        "ask",
                        f"`{text}` might be denied by the permission rule {rule}; "
                        "eddy cannot tell before it runs.",
                        changes=True,
                        strict=True,
                        by=rule,
                    )
        for redirect in cmd.redirects:
            self.redirect(redirect, cwds, text)
        for word in (*cmd.assignments, *shell_variables.declared_assignments(cmd.argv)):
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
            self.dirs.unknown()
            return
        argv = cmd.argv
        if not argv:
            return
        for layer in cmd.layers or (argv,):
            why = shell_unmodelled.unmodelled(layer)
            if why is not None:
                # not read-only, and no rule naming the program covers it: only this exact
                # command line, allowed on purpose, does
                self.add(
                    "ask",
                    f"eddy does not model `{text}`: {why}.",
                    None,
                    changes=True,
                    strict=bool(self.deny_rules),  # find -exec rm hides rm from Bash(rm:*)
                )
                if argv[0].value in _CD:
                    self.dirs.unknown()
                return
        readonly = None
        checked, originals = loop_argv(argv, cmd.loop_vars, self.assigned, cwds)
        if checked is not None and all(
            shell_variables.read_only_assignment(a) for a in cmd.assignments
        ):
            readonly = shell_readonly.read_only(checked)
            listed = shell_readonly.xargs_reads_listed(
                cmd.program, cmd.stdin_words
            ) and lists_inside(self.ctx, cmd.stdin_words, cwds)
            if readonly is not None and cmd.open_args and readonly.takes_paths and not listed:
                self.add(
                    "ask",
                    f"`{text}` reads the paths piped into xargs, which eddy cannot check "
                    "(only what find lists under directories with no symlink leading out).",
                    program_rule(argv, open_args=True),
                    changes=True,
                )
                return
        for layer in cmd.layers or (argv,):
            for rule in self.ask_rules:
                if rule.match_argv(layer, open_args=cmd.open_args, loose=True) != "no":
                    self.add(
                        "ask",
                        f"the permission rule {rule} asks before `{text}`.",
                        changes=readonly is None,
                        overridable=False,
                        by=rule,
                    )
        # a rule naming the command allows it wherever it reaches; bare Bash only inside
        naming = next(
            (r for r in self.allow_rules if r.match_argv(argv, open_args=cmd.open_args) == "yes"),
            None,
        )
        named = naming is not None
        suggestion = program_rule(argv, open_args=cmd.open_args)
        if argv[0].value in _CD:
            self.cd(argv, cwds, text, named, suggestion)
            return
        if readonly is not None:
            # a glob lists a directory whatever the program: echo ../outside/* reads names
            globs = () if readonly.takes_paths else tuple(w for w in argv[1:] if w.glob)
            for word in (*readonly.paths, *globs):
                self.read(originals.get(id(word), word), cwds, text, named, suggestion)
            return
        if named or self.bare_allow:
            self.add("allow", changes=True, by=naming or self.bare_rule)
        elif not self.file_command(cmd, cwds, text):
            self.add("ask", f"`{text}` needs permission.", suggestion, changes=True)

    def file_command(self, cmd: Command, cwds: list[str] | None, text: str) -> bool:
        """acceptEdits: an ordinary file command inside the workspace runs (True if added)."""
        if self.policy.mode != "acceptEdits" or cmd.open_args or cmd.assignments:
            return False
        op = file_command(cmd.argv)
        if op is None:
            return False
        ws = self.ctx.workspace
        checked: list[tuple[Word, list[ResolvedPath]]] = []
        for word in (*op.writes, *op.reads):
            paths = self.targets(word, cwds)
            if not paths:
                return False
            checked.append((word, paths))
        for _word, paths in checked[: len(op.writes)]:
            for rp in paths:
                if not rp.inside or self._ruled_out("Write", "writes", rp.path, text, changes=True):
                    return False
                if rp.path == ws or rp.path in ws.parents or (op.removes and rp.path == ws):
                    return False  # never the workspace itself or a directory above it
                try:
                    relative = rp.path.relative_to(ws)
                except ValueError:
                    return False  # inside an added directory: ask
                if protected_name(relative):
                    return False
        for word, _paths in checked[len(op.writes) :]:
            self.read(word, cwds, text, False, None)
        self.add("allow", changes=True)
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
            protected = rp.inside and _protected(rp.path, self.ctx.workspace)
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


def _protected(path: Path, workspace: Path) -> bool:
    try:
        return protected_name(path.relative_to(workspace))
    except ValueError:
        return False
