"""Pure permission policy: mode and rules -> allow / ask / deny.

This is the gate g(name, input) of LOOP-MODEL.md before a user is involved: ``decide`` does no
I/O beyond resolving paths (``ctx.resolve``, the real path behind ``..`` and symlinks, and the
expansion of a shell glob), so it is tested table-driven.

Modes:
    default: reads inside the workspace run; edits and shell commands ask, except the built-in
        read-only commands (``ls``, ``cat``, ``git status``, ... see ``shell_readonly.read_only``)
        whose paths all lie inside. A read-only command reads like the Read tool, so it is
        treated like it (Claude Code asks here; eddy does not, to spare pointless prompts).
    acceptEdits: as default, and edits inside the workspace run, including shell output
        redirected to a file inside it. Other shell commands still ask.
    plan: nothing that changes state runs; such a call is refused with a message saying eddy
        is in plan mode (``plan_mode_note`` is the reminder for the model). Reads and
        read-only commands run as in default; a rule cannot make a change run in plan mode.
    bypassPermissions: everything runs, except what deny rules forbid. A shell command eddy
        cannot analyse still asks when Bash deny rules exist (they could not be checked).

Rules are ``Tool`` or ``Tool(specifier)`` in allow, ask and deny lists; deny beats ask beats
allow, and deny rules hold in every mode. A rule naming ``Edit`` covers Edit, MultiEdit, Write
and NotebookEdit; ``Read`` covers Read, Glob, Grep and LS (and files the shell reads with a
read-only command or ``<``); ``Write`` covers Write and shell output redirection.

* ``Bash(git status)`` matches that command exactly; ``Bash(npm run test:*)`` (or
  ``Bash(npm run test *)``) every command whose first words are ``npm run test``. Matching is
  on parsed words, each part of a compound command separately: ``cd x && rm y`` needs both
  parts allowed. Wrappers are seen through (``timeout 5 rm x`` is ``rm x``); deny and ask rules
  also match a program called by path (``/bin/rm``). An exact specifier equal to the whole
  command line (what "don't ask again" saves for a command eddy cannot parse) matches it.
* Path rules use gitignore patterns: ``Edit(src/**)`` or ``Read(.env)`` relative to the
  workspace (a pattern without a slash matches at any depth, like ``.gitignore``),
  ``Read(./.env)`` anchored at the workspace root, ``Write(~/notes/**)`` under the home
  directory, ``Read(//etc/hosts)`` or ``Read(/etc/hosts)`` absolute (unlike Claude Code, a
  single leading slash is absolute too). ``dir/**`` also covers ``dir`` itself. Paths are
  compared as real paths, so ``..`` and symlinks neither escape nor dodge a rule.
* ``WebFetch(domain:example.com)`` matches a ``url`` argument on that host or a subdomain.

A tool allowed by bare name (``Edit``, ``--allowed-tools Write``) is allowed inside the
workspace and the added directories only; a path outside asks unless a rule names it.
"""

from __future__ import annotations

import fnmatch
import functools
import glob
import itertools
import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlparse

from agent import shell_readonly, shellparse
from agent.shell_lexer import Redirect, ShellParseError, Word
from agent.shellparse import Command
from tools.base import ResolvedPath, Tool, ToolContext, ToolError

Mode = Literal["default", "acceptEdits", "plan", "bypassPermissions"]
Verdict = Literal["allow", "ask", "deny"]
Match = Literal["yes", "maybe", "no"]
MODES: tuple[Mode, ...] = ("default", "acceptEdits", "plan", "bypassPermissions")
EDIT_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})
READ_TOOLS = frozenset({"Read", "Glob", "Grep", "LS", "NotebookRead"})
HARMLESS_TOOLS = frozenset({"TodoWrite", "ExitPlanMode"})
"""Tools that change nothing outside the session: they never ask, even in plan mode."""
_FAMILIES = {"Edit": EDIT_TOOLS, "Read": READ_TOOLS, "Write": frozenset({"Write"})}
_DIRECTORY_TOOLS = frozenset({"Glob", "Grep", "LS"})
_SAFE_SINKS = frozenset(
    {"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/fd/1", "/dev/fd/2"}
)
_SAFE_SOURCES = frozenset({"/dev/null", "/dev/stdin", "/dev/fd/0"})
_CD = frozenset({"cd", "pushd", "popd"})
GLOB_LIMIT = 1000
"""A shell glob matching more paths than this is not expanded: the command asks."""

_RULE = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*(?:\((.*)\))?\s*$", re.S)
_GLOB_CHARS = re.compile(r"[*?\[\\]")


def cycle_mode(mode: Mode) -> Mode:
    """The next mode for Shift+Tab: default -> acceptEdits -> plan -> default."""
    order: tuple[Mode, ...] = ("default", "acceptEdits", "plan")
    return order[(order.index(mode) + 1) % 3] if mode in order else "default"


def plan_mode_note() -> str:
    """The reminder the session adds while eddy is in plan mode."""
    return (
        "eddy is in plan mode. Do not change anything: no file edits and no commands that "
        "change state (calls that would are refused). You may read files, search, and run "
        "read-only commands to understand the task. When your plan is ready, present it to the "
        "user and wait: they leave plan mode to let you carry it out."
    )


def _plan_refusal(what: str) -> str:
    return (
        f"{what} was not run: eddy is in plan mode, where nothing that changes state runs. "
        "Present your plan to the user instead."
    )


def _home() -> Path:
    return Path(os.path.realpath(os.path.expanduser("~")))


def _compile_path(spec: str, workspace: Path) -> tuple[Path, str, Any]:
    return _compile(spec, workspace, _home())


@functools.lru_cache(maxsize=512)
def _compile(spec: str, workspace: Path, home: Path) -> tuple[Path, str, Any]:
    """(base directory, gitignore pattern relative to it, matcher); pattern "" = all of base."""
    if spec.startswith("//"):
        base, pat = Path("/"), spec[1:]
    elif spec.startswith("/"):
        base, pat = Path("/"), spec
    elif spec == "~" or spec.startswith("~/"):
        base, pat = home, "/" + spec[2:]
    elif spec == "." or spec.startswith("./"):
        base, pat = workspace, "/" + spec[2:]
    else:
        base, pat = workspace, spec
    if pat.startswith("/"):
        parts = [p for p in pat.split("/") if p]
        literal: list[str] = []
        for part in parts:
            if _GLOB_CHARS.search(part):
                break
            literal.append(part)
        # resolve the literal directories, so a rule names the same real path the tools see
        if len(literal) == len(parts):
            base, pat = Path(os.path.realpath(base.joinpath(*literal))), ""
        elif literal:
            base = Path(os.path.realpath(base.joinpath(*literal)))
            pat = "/" + "/".join(parts[len(literal) :])
    import pathspec

    matcher = pathspec.GitIgnoreSpec.from_lines([pat]) if pat else None
    return base, pat, matcher


def _escape(text: str) -> str:
    text = _GLOB_CHARS.sub(lambda m: "\\" + m.group(), text)
    return "\\" + text if text.startswith(("!", "#")) else text


def path_rule(tool: str, path: Path, workspace: Path, *, directory: bool = False) -> str:
    """The rule "don't ask again" saves for a path: its directory, or the file at a top level.

    ``src/a.py`` -> ``Edit(src/**)``; ``README.md`` -> ``Edit(./README.md)``;
    ``~/notes/x.md`` -> ``Edit(~/notes/**)``; ``/tmp/x`` -> ``Edit(//tmp/**)``.
    """
    target = path if directory else path.parent
    for root, prefix in ((workspace, ""), (_home(), "~/"), (Path("/"), "//")):
        if target == root or root in target.parents:
            rel = target.relative_to(root).as_posix()
            if rel == ".":
                if directory and prefix == "":
                    return f"{tool}(./**)"
                name = _escape(path.name)
                return f"{tool}({prefix or './'}{name})"
            return f"{tool}({prefix}{_escape(rel)}/**)"
    return f"{tool}(/{_escape(path.as_posix())})"  # pragma: no cover - every path is under /


@dataclass(frozen=True)
class Rule:
    """``Tool`` or ``Tool(specifier)``; see the module docstring for the specifiers."""

    tool: str
    specifier: str | None = None

    @classmethod
    def parse(cls, text: str) -> Rule:
        """Parse a rule.

        Raises:
            ValueError: with a message saying what is wrong with ``text``.
        """
        m = _RULE.match(text) if isinstance(text, str) else None
        if not m:
            raise ValueError(f"not a permission rule: {text!r} (expected Tool or Tool(specifier))")
        tool, spec = m.group(1), m.group(2)
        if spec is None:
            return cls(tool)
        spec = spec.strip()
        if not spec:
            raise ValueError(f"empty specifier in {text!r}: write {tool} or {tool}(specifier)")
        if spec in ("*", ":*"):
            return cls(tool)
        rule = cls(tool, spec)
        if tool == "Bash" and rule._bash[1] and rule._bash[0] is None:
            raise ValueError(f"{text!r}: the prefix before :* is not a plain shell command")
        if tool == "WebFetch" and not spec.startswith("domain:"):
            raise ValueError(f"{text!r}: WebFetch rules take domain:HOST")
        return rule

    def __str__(self) -> str:
        return self.tool if self.specifier is None else f"{self.tool}({self.specifier})"

    def applies_to(self, name: str) -> bool:
        """Whether the rule speaks about tool ``name`` (``Edit`` also covers Write, ...)."""
        return name == self.tool or name in _FAMILIES.get(self.tool, ())

    @functools.cached_property
    def _bash(self) -> tuple[tuple[str, ...] | None, bool]:
        """(the words of a Bash specifier, or None if not plain words; whether it is a prefix)."""
        spec = self.specifier or ""
        prefix = spec.endswith((":*", " *"))
        body = spec[:-2].rstrip() if prefix else spec
        words = shellparse.split_words(body)
        return (tuple(w.value for w in words) if words is not None else None), prefix

    def match_argv(
        self, argv: tuple[Word, ...], *, open_args: bool = False, loose: bool = False
    ) -> Match:
        """Match a Bash rule against one command's words.

        Args:
            argv: the words; a word only known at run time can only "maybe" match.
            open_args: more arguments follow at run time (xargs).
            loose: also match a program called by path (``/bin/rm`` for ``rm``): deny, ask.

        Returns:
            "yes", "no", or "maybe" when run-time words could make it match.
        """
        if self.tool != "Bash" or not argv:
            return "no"
        if self.specifier is None:
            return "yes"
        words, prefix = self._bash
        if words is None:
            return "no"
        result: Match = "yes"
        if len(argv) < len(words):
            if not open_args:
                return "no"
            result = "maybe"
        elif not prefix and (len(argv) > len(words) or open_args):
            if len(argv) > len(words):
                return "no"
            result = "maybe"
        for i, (arg, want) in enumerate(zip(argv, words, strict=False)):
            if arg.static and not arg.glob:
                base = os.path.basename(arg.value) if loose and i == 0 else arg.value
                if want not in (arg.value, base):
                    return "no"
            elif arg.static and arg.value != want:
                if not fnmatch.fnmatchcase(want, arg.value):
                    return "no"
                result = "maybe"
            elif not arg.static:
                result = "maybe"
        return result

    def matches_command_line(self, command: str) -> bool:
        """An exact Bash specifier equal to the whole command line."""
        return (
            self.tool == "Bash"
            and self.specifier is not None
            and not self._bash[1]
            and self.specifier == command.strip()
        )

    def matches_path(self, path: Path, workspace: Path) -> bool:
        """Whether a path rule names ``path`` (a real path)."""
        if self.specifier is None or self.tool in ("Bash", "WebFetch"):
            return False
        base, pat, matcher = _compile_path(self.specifier, workspace)
        if path == base:
            return pat == "" or pat.rstrip("/") in ("/**", "**")
        if base not in path.parents:
            return False
        rel = path.relative_to(base).as_posix()
        if matcher is None or pat.rstrip("/") in ("/**", "**"):
            return True
        if pat.endswith("/**") and rel == pat[:-3].lstrip("/"):
            return True
        return bool(matcher.match_file(rel))

    def matches_args(self, name: str, args: dict[str, Any]) -> bool:
        """Specifiers that are neither commands nor paths: ``domain:`` for a url argument."""
        if self.specifier is None or not self.specifier.startswith("domain:"):
            return False
        host = (urlparse(str(args.get("url", ""))).hostname or "").lower()
        domain = self.specifier[len("domain:") :].strip().lower()
        return bool(host) and (host == domain or host.endswith("." + domain))

    def matches(self, name: str, args: dict[str, Any], ctx: ToolContext | None = None) -> bool:
        """Whether this rule names the call (Bash: every part of the command; paths: any)."""
        if not self.applies_to(name):
            return False
        if self.specifier is None:
            return True
        if name == "Bash":
            command = str(args.get("command", ""))
            if self.matches_command_line(command):
                return True
            try:
                parts = shellparse.parse(command).commands
            except ShellParseError:
                return False
            return bool(parts) and all(
                self.match_argv(c.argv, open_args=c.open_args) == "yes" for c in parts if c.argv
            )
        if ctx is not None and isinstance(args.get("file_path"), str):
            try:
                return self.matches_path(ctx.resolve(args["file_path"]).path, ctx.workspace)
            except ToolError:
                return False
        return self.matches_args(name, args)


@dataclass(frozen=True)
class Decision:
    """A verdict, why, and (for ask) the rule "yes, don't ask again" would save, if any."""

    verdict: Verdict
    reason: str = ""
    rule: str | None = None


@dataclass
class Policy:
    """What may run without asking.

    Attributes:
        mode: default, acceptEdits, plan or bypassPermissions.
        allow: rules that run without asking (a bare tool name: inside the workspace only).
        deny: rules that never run, in every mode.
        ask: rules that always ask (beat allow rules and modes, not bypassPermissions).
    """

    mode: Mode = "default"
    allow: list[Rule] = field(default_factory=list)
    deny: list[Rule] = field(default_factory=list)
    ask: list[Rule] = field(default_factory=list)

    def decide(self, tool: Tool, args: dict[str, Any], ctx: ToolContext) -> tuple[Verdict, str]:
        """The verdict for one call, with a reason (for deny: the text the model sees)."""
        decision = self.check(tool, args, ctx)
        return decision.verdict, decision.reason

    def suggest(self, tool: Tool, args: dict[str, Any], ctx: ToolContext) -> str | None:
        """The rule "yes, don't ask again" should save for a call that asks, or None."""
        decision = self.check(tool, args, ctx)
        return decision.rule if decision.verdict == "ask" else None

    def check(self, tool: Tool, args: dict[str, Any], ctx: ToolContext) -> Decision:
        """The full decision for one call."""
        if tool.name == "Bash":
            return _BashCheck(self, ctx).run(str(args.get("command", "")))
        return self._check_tool(tool, args, ctx)

    def _hits(
        self,
        rule: Rule,
        name: str,
        args: dict[str, Any],
        paths: list[ResolvedPath],
        ctx: ToolContext,
    ) -> bool:
        if not rule.applies_to(name):
            return False
        if rule.specifier is None:
            return True
        if rule.matches_args(name, args):
            return True
        return any(rule.matches_path(p.path, ctx.workspace) for p in paths)

    def _check_tool(self, tool: Tool, args: dict[str, Any], ctx: ToolContext) -> Decision:
        name = tool.name
        try:
            paths = list(tool.paths(args, ctx))
        except (ToolError, KeyError, TypeError, ValueError):
            paths = []  # the input is invalid: the tool reports that when it runs
        for rule in self.deny:
            if self._hits(rule, name, args, paths, ctx):
                return Decision("deny", f"{name} is denied by the permission rule {rule}.")
        if self.mode == "bypassPermissions":
            return Decision("allow")
        if self.mode == "plan" and not tool.read_only and name not in HARMLESS_TOOLS:
            return Decision("deny", _plan_refusal(name))
        for rule in self.ask:
            if self._hits(rule, name, args, paths, ctx):
                return Decision("ask", f"The permission rule {rule} asks before {name}.")
        if name in HARMLESS_TOOLS:
            return Decision("allow")
        base_ok = (
            tool.read_only
            or (self.mode == "acceptEdits" and name in EDIT_TOOLS)
            or any(r.specifier is None and r.applies_to(name) for r in self.allow)
        )
        family = "Edit" if name in EDIT_TOOLS else "Read" if name in READ_TOOLS else name
        for p in paths:
            if p.inside and base_ok:
                continue
            if any(
                r.specifier is not None
                and r.applies_to(name)
                and r.matches_path(p.path, ctx.workspace)
                for r in self.allow
            ):
                continue
            where = "" if p.inside else ", outside the workspace"
            saved = path_rule(family, p.path, ctx.workspace, directory=name in _DIRECTORY_TOOLS)
            return Decision("ask", f"{name} of {p.path}{where} needs permission.", saved)
        if paths or base_ok:
            return Decision("allow")
        if any(r.specifier is not None and r.matches_args(name, args) for r in self.allow):
            return Decision("allow")
        return Decision("ask", f"{name} needs permission.", name)


@dataclass
class _Finding:
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


class _BashCheck:
    """The verdict for one shell command line: every part must be allowed."""

    def __init__(self, policy: Policy, ctx: ToolContext) -> None:
        self.policy, self.ctx = policy, ctx
        self.findings: list[_Finding] = []
        self.part = ""

        def bash(rules: list[Rule]) -> list[Rule]:
            return [r for r in rules if r.tool == "Bash" and r.specifier is not None]

        self.deny_rules, self.ask_rules = bash(policy.deny), bash(policy.ask)
        self.allow_rules = bash(policy.allow)
        self.bare_allow = any(r.tool == "Bash" and r.specifier is None for r in policy.allow)

    def add(self, verdict: Verdict, reason: str = "", rule: str | None = None, **kw: Any) -> None:
        self.findings.append(_Finding(verdict, reason, rule, part=self.part, **kw))

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
            if shell_readonly.unsafe_assignment(word):
                name = shell_readonly.assignment_name(word)
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
        if all(shell_readonly.read_only_assignment(a) for a in cmd.assignments):
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
            denied = self._path_rules(policy.deny, "Read", rp.path)
            if denied is not None:
                self.add(
                    "deny", f"`{text}` reads {rp.path}, which the permission rule {denied} denies."
                )
                continue
            asked = self._path_rules(policy.ask, "Read", rp.path)
            if asked is not None:
                self.add(
                    "ask", f"the permission rule {asked} asks before `{text}`.", overridable=False
                )
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
        denied = self._path_rules(policy.deny, "Write", rp.path)
        if denied is not None:
            self.add(
                "deny", f"`{text}` writes {rp.path}, which the permission rule {denied} denies."
            )
            return
        asked = self._path_rules(policy.ask, "Write", rp.path)
        if asked is not None:
            self.add(
                "ask",
                f"the permission rule {asked} asks before `{text}`.",
                changes=True,
                overridable=False,
            )
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


_SUBCOMMAND = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:@+-]*")
_RISKY = frozenset(
    {
        "rm",
        "rmdir",
        "dd",
        "mkfs",
        "shred",
        "chmod",
        "chown",
        "chgrp",
        "kill",
        "pkill",
        "killall",
        "curl",
        "wget",
        "ssh",
        "scp",
        "sh",
        "bash",
        "zsh",
        "dash",
        "python",
        "python3",
        "node",
        "perl",
        "ruby",
        "sudo",
        "doas",
        "mv",
        "cp",
        "ln",
        "truncate",
        "eval",
        "source",
        ".",
    }
)
"""Programs whose "don't ask again" rule is the exact command unless a subcommand follows."""


def _join(words: list[str]) -> str:
    return " ".join(shlex.quote(w) for w in words)


def program_rule(argv: tuple[Word, ...], *, open_args: bool = False) -> str | None:
    """The Bash rule for one command: program and subcommand with ``:*``.

    ``git commit -m x`` -> ``Bash(git commit:*)``; ``npm run test -- -x`` ->
    ``Bash(npm run test:*)``; ``python -m pytest -x`` -> ``Bash(python -m pytest:*)``;
    ``rm -rf build`` -> ``Bash(rm -rf build)`` (exact: rm is too dangerous to allow wholesale).
    Never broader than program and subcommand.
    """
    words: list[str] = []
    for w in argv:
        if not w.static or w.glob:
            break
        words.append(w.value)
    if not words:
        return None
    base = os.path.basename(words[0])
    take = 1
    if len(words) > 1:
        second = words[1]
        scripts = base in ("npm", "pnpm", "yarn", "bun") and second in ("run", "run-script", "exec")
        module = base.startswith("python") and second == "-m"
        if (scripts or module) and len(words) > 2 and _SUBCOMMAND.fullmatch(words[2]):
            take = 3
        elif base in _RISKY and len(words) == len(argv) and not open_args:
            return f"Bash({_join(words)})"
        elif _SUBCOMMAND.fullmatch(second):
            take = 2
    elif base in _RISKY and len(argv) == 1 and not open_args:
        return f"Bash({_join(words)})"
    return f"Bash({_join(words[:take])}:*)"


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
        decision = _BashCheck(Policy(), ctx).run(command)
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
