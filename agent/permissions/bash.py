"""The permission check of one Bash command line, part by part (``BashCheck``), and the
rule "yes, don't ask again" saves for a call (``Finding.rule``, read by ``Policy.suggest``).
The command is parsed by :mod:`agent.shell.parser`; a compound command is allowed only if
every part is. Rules are :mod:`agent.permissions.rule`, the policy
:mod:`agent.permissions.policy`; the rule saved for one command is
:mod:`agent.permissions.program_rule`, for a path :mod:`agent.permissions.paths`.

It fails closed: what the model of bash does not capture (:mod:`agent.shell.unmodelled`:
``let``, ``set -k``, ``find -exec``, ``git grep -O``, ...; unsafe variables; secrets expanded)
asks whatever the allow rules say (only that exact command line, allowed on purpose, runs),
and plan mode refuses it. Relative paths are checked from every directory the shell may be
in (:class:`agent.shell.paths.Directories`: a ``cd`` may fail); the checks of the paths a
part names are :mod:`agent.permissions.bash_paths`. In acceptEdits, ordinary file
commands inside the workspace run (:mod:`agent.shell.fileops`); the decision is then not
read-only, so the gate runs them in the writable sandbox, and read-only ones in the
read-only one.
"""

from __future__ import annotations

import os

from agent.permissions.bash_paths import BashPathChecks, Finding
from agent.permissions.policy import Decision, Policy, Rule
from agent.permissions.program_rule import program_rule
from agent.shell import gitconfig
from agent.shell import parser as shellparse
from agent.shell import readonly as shell_readonly
from agent.shell import unmodelled as shell_unmodelled
from agent.shell import variables as shell_variables
from agent.shell.parser import Command, Script
from agent.shell.paths import Directories, lists_inside, loop_argv
from agent.shell.words import ShellParseError, Word
from tools.base import ToolContext

__all__ = ["BashCheck", "Finding"]

_CD = frozenset({"cd", "pushd", "popd"})


class BashCheck(BashPathChecks):
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
        unsure = shell_variables.numeric_names(script.arith_names, script.commands, os.environ)
        if unsure is not None:
            self.part = f"${unsure}"
            self.add(
                "ask",
                f"bash evaluates the value of {unsure} as arithmetic, and eddy cannot tell it "
                "holds a number (a value such as a[$(cmd)] would run cmd).",
                changes=True,
                strict=bool(self.deny_rules),
            )
        self.dirs = Directories(str(self.ctx.shell.cwd or self.ctx.workspace))
        if script.loops and any(c.program in _CD for c in script.commands):
            self.dirs.unknown()  # a cd inside a loop moves later iterations: paths are unknown
        for cmd in script.commands:
            self.command(cmd, self.dirs.before(cmd.sep))

    def named_on_purpose(self, argv: tuple[Word, ...], cmd: Command) -> bool:
        """An allow rule names a program whose only action is what eddy does not model
        (``Bash(printenv:*)``): the user's own rule wins over the question."""
        if not argv or os.path.basename(argv[0].value) not in shell_unmodelled.ONLY_PRINTS:
            return False
        return any(r.match_argv(argv, open_args=cmd.open_args) == "yes" for r in self.allow_rules)

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
            return Decision("ask", strict.reason, None, strict.warning, by=strict.by)
        if policy.mode == "bypassPermissions":
            return Decision("allow")
        asks = [f for f in found if f.verdict == "ask"]
        if not asks:
            return Decision("allow", by=next((f.by for f in found if f.by), None))
        verbatim_rule = next((r for r in policy.allow if r.matches_command_line(command)), None)
        if all(f.overridable for f in asks) and verbatim_rule is not None:
            return Decision("allow", by=verbatim_rule)
        first = asks[0]
        # the rule "always" saves must cover this whole command: one part's rule when only
        # that part asks, else the command itself (a prefix rule of one part would ask again)
        rules = dict.fromkeys(f.rule or verbatim for f in asks)
        rule = next(iter(rules)) if len(rules) == 1 else verbatim
        return Decision("ask", first.reason, rule if first.overridable else None, by=first.by)

    def git_config_only(self) -> bool:
        """Whether the command's only changes are git's harmless writes of its configuration
        (``git remote add``, ``git config user.name``): the sandbox may let git write it."""
        changing = [f for f in self.findings if f.changes]
        return bool(changing) and all(f.git_config for f in changing)

    def git_config(self, argv: tuple[Word, ...], text: str) -> bool | None:
        """A git command that writes git's configuration: True when every key it sets is
        harmless; None when it is no such command. A key that makes git run a program
        (``core.fsmonitor``, ``alias.x = !sh``, filters, ...) asks, whatever the rules and the
        mode (an added finding; False)."""
        writes = gitconfig.config_writes(argv)
        if writes is None:
            return None
        danger = next((d for w in writes if (d := w.danger()) is not None), None)
        if danger is None:
            return True
        text_warning = f"git's configuration is protected where it runs programs: {danger}."
        self.add(
            "ask",
            f"`{text}` changes git's configuration: {danger}.",
            changes=True,
            strict=True,
            overridable=False,
            warning=text_warning,
        )
        return False

    # -- one simple command ---------------------------------------------------------------
    def command(self, cmd: Command, cwds: list[str] | None) -> None:
        """Check one simple command that starts in one of ``cwds`` (None: unknown)."""
        self.cmd = cmd
        text = self.part = cmd.text()
        self._deny_rules(cmd, text)
        for redirect in cmd.redirects:
            self.redirect(redirect, cwds, text)
        self._assignments(cmd, text)
        if cmd.opaque is not None:
            self._opaque(cmd, text)
            return
        if not cmd.argv or self._unmodelled(cmd, text):
            return
        if any(self.history(layer, cwds, text) for layer in cmd.layers or (cmd.argv,)):
            return
        readonly, originals = self._read_only(cmd, cwds)
        if readonly is not None and self._xargs_unchecked(cmd, readonly, cwds, text):
            return
        self._ask_rules(cmd, text, changes=readonly is None)
        config_write = self.git_config(cmd.argv, text)
        if config_write is False:
            return
        self._decide(cmd, cwds, text, readonly, originals, git_config=bool(config_write))

    def _deny_rules(self, cmd: Command, text: str) -> None:
        """Deny rules, against every layer of the command (``timeout 5 rm x`` and ``rm x``)."""
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

    def _assignments(self, cmd: Command, text: str) -> None:
        """Assignments that can change what the command runs (``PATH=``, ``LD_PRELOAD=``)."""
        for word in (*cmd.assignments, *shell_variables.declared_assignments(cmd.argv)):
            if shell_variables.unsafe_assignment(word):
                name = shell_variables.assignment_name(word)
                self.add("ask", f"setting {name} can change what `{text}` runs.", changes=True)

    def _opaque(self, cmd: Command, text: str) -> None:
        self.add(
            "ask",
            f"eddy cannot tell what `{text}` runs: {cmd.opaque}.",
            changes=True,
            strict=bool(self.deny_rules),
        )
        self.dirs.unknown()

    def _unmodelled(self, cmd: Command, text: str) -> bool:
        """Whether a layer of the command does what eddy does not model (then it asks)."""
        for layer in cmd.layers or (cmd.argv,):
            why = shell_unmodelled.unmodelled(layer)
            if why is not None and not self.named_on_purpose(layer, cmd):
                # not read-only, and no rule naming the program covers it: only this exact
                # command line, allowed on purpose, does
                self.add(
                    "ask",
                    f"eddy does not model `{text}`: {why}.",
                    None,
                    changes=True,
                    strict=bool(self.deny_rules),  # find -exec rm hides rm from Bash(rm:*)
                )
                if cmd.argv[0].value in _CD:
                    self.dirs.unknown()
                return True
        return False

    def _read_only(
        self, cmd: Command, cwds: list[str] | None
    ) -> tuple[shell_readonly.ReadOnly | None, dict[int, Word]]:
        """Whether the command only reads (its loop variables replaced by their values), and
        the words those values stand for (by the id of the value's word)."""
        checked, originals = loop_argv(cmd.argv, cmd.loop_vars, self.assigned, cwds)
        if checked is None or not all(
            shell_variables.read_only_assignment(a) for a in cmd.assignments
        ):
            return None, originals
        return shell_readonly.read_only(checked), originals

    def _xargs_unchecked(
        self, cmd: Command, readonly: shell_readonly.ReadOnly, cwds: list[str] | None, text: str
    ) -> bool:
        """A reader fed paths by xargs asks, unless a lister found them where no symlink leads
        out (``find . | xargs cat``)."""
        if not (cmd.open_args and readonly.takes_paths):
            return False
        if shell_readonly.xargs_reads_listed(cmd.program, cmd.stdin_words) and lists_inside(
            self.ctx, cmd.stdin_words, cwds
        ):
            return False
        self.add(
            "ask",
            f"`{text}` reads the paths piped into xargs, which eddy cannot check "
            "(only what find lists under directories with no symlink leading out).",
            program_rule(cmd.argv, open_args=True),
            changes=True,
        )
        return True

    def _ask_rules(self, cmd: Command, text: str, *, changes: bool) -> None:
        for layer in cmd.layers or (cmd.argv,):
            for rule in self.ask_rules:
                if rule.match_argv(layer, open_args=cmd.open_args, loose=True) != "no":
                    self.add(
                        "ask",
                        f"the permission rule {rule} asks before `{text}`.",
                        changes=changes,
                        overridable=False,
                        by=rule,
                    )

    def _decide(
        self,
        cmd: Command,
        cwds: list[str] | None,
        text: str,
        readonly: shell_readonly.ReadOnly | None,
        originals: dict[int, Word],
        *,
        git_config: bool,
    ) -> None:
        """Allow, check the paths it reads or moves to, or ask: by the allow rules."""
        argv = cmd.argv
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
            self.add("allow", changes=True, by=naming or self.bare_rule, git_config=git_config)
        elif not self.file_command(cmd, cwds, text):
            self.add("ask", f"`{text}` needs permission.", suggestion, changes=True)
