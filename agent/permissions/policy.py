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
        redirected to a file inside it and ordinary file commands (``mkdir``, ``touch``,
        ``cp``, ``mv``, ``rm``, ``rmdir``, ``sed -i``) whose paths all lie inside and are not
        protected (``agent.shell.fileops``). Other shell commands still ask.
    plan: nothing that changes state runs; such a call is refused with a message saying eddy
        is in plan mode (``plan_mode_note`` is the reminder for the model). Reads and
        read-only commands run as in default; a rule cannot make a change run in plan mode.
    bypassPermissions: everything runs, except what deny rules forbid. A shell command eddy
        cannot analyse still asks when Bash deny rules exist (they could not be checked).
    dontAsk: as default, but whatever would ask is refused (an is_error result saying so):
        only what the mode and the allow rules permit runs. Shift+Tab leaves it for default.

Rules are ``Tool`` or ``Tool(specifier)`` in allow, ask and deny lists; deny beats ask beats
allow, and deny rules hold in every mode. A rule naming ``Edit`` covers Edit, MultiEdit, Write
and NotebookEdit; ``Read`` covers Read, Glob, Grep and LS (and files the shell reads with a
read-only command or ``<``); ``Write`` covers Write and shell output redirection.

* ``Bash(git status)`` matches that command exactly; ``Bash(npm run test:*)`` (or
  ``Bash(npm run test *)``) every command whose first words are ``npm run test``. Matching is
  on parsed words, each part of a compound command separately: ``cd x && rm y`` needs both
  parts allowed. Claude Code's wildcards: ``*`` anywhere matches any characters
  (``Bash(git * main)``, ``Bash(* --version)``, ``Bash(ls*)`` also ``lsof``); a space before a
  trailing ``*`` is a word boundary (``Bash(ls *)`` matches ``ls`` and ``ls -la``, not
  ``lsof``). A wildcard is matched against one part's words, never the whole line, so
  ``Bash(git *)`` does not allow ``git status; rm -rf /`` nor ``git $(rm x)``
  (agent/permissions/wildcard.py).
  Wrappers are seen through (``timeout 5 rm x`` is ``rm x``); deny and ask rules also match
  a program called by path (``/bin/rm``). An exact specifier equal to the whole
  command line (what "don't ask again" saves for a command eddy cannot parse) matches it.
* Path rules use gitignore patterns: ``Edit(src/**)`` or ``Read(.env)`` relative to the
  workspace (a pattern without a slash matches at any depth, like ``.gitignore``),
  ``Read(./.env)`` anchored at the workspace root, ``Write(~/notes/**)`` under the home
  directory, ``Read(//etc/hosts)`` absolute, ``Edit(/src/**)`` from the project root (as in
  Claude Code; a deny or ask rule ``/x`` also covers the absolute ``/x``, which older eddy rules
  meant). ``dir/**`` also covers ``dir`` itself. An ``Edit`` allow rule also allows reading what
  it names; a ``Read`` deny rule also refuses editing and writing it. Paths are
  compared as real paths, so ``..`` and symlinks neither escape nor dodge a rule.
* ``WebFetch(domain:example.com)`` matches a ``url`` argument on that host or a subdomain.
* ``mcp__server`` and ``mcp__server__*`` name every tool of that MCP server,
  ``mcp__server__tool`` one tool.

A tool allowed by bare name (``Edit``, ``--allowed-tools Write``) is allowed inside the
workspace and the added directories only; a path outside asks unless a rule names it.

Protected files (``permission_paths.protected_reason``: git's config and hooks, eddy's and
Claude Code's settings, shell start-up files, hook scripts) always ask before an edit, in every
mode but bypassPermissions, whatever the allow rules say; the question says why.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from agent.permissions.paths import path_rule, protected_reason, spec_matches_path
from agent.permissions.wildcard import is_wildcard, match_words
from agent.shell import parser as shellparse
from agent.shell.words import ShellParseError, Word
from tools.base import ResolvedPath, Tool, ToolContext, ToolError
from tools.web_http import canonical_host, url_host

Mode = Literal["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"]
Verdict = Literal["allow", "ask", "deny"]
Match = Literal["yes", "maybe", "no"]
MODES: tuple[Mode, ...] = ("default", "acceptEdits", "plan", "bypassPermissions", "dontAsk")
EDIT_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})
READ_TOOLS = frozenset({"Read", "Glob", "Grep", "LS", "NotebookRead"})
HARMLESS_TOOLS = frozenset(
    {"TodoWrite", "ExitPlanMode", "AskUserQuestion", "BashOutput", "KillShell", "TaskStop"}
)
"""Tools that change nothing outside the session: they never ask, even in plan mode."""
_FAMILIES = {"Edit": EDIT_TOOLS, "Read": READ_TOOLS, "Write": frozenset({"Write"})}
_DIRECTORY_TOOLS = frozenset({"Glob", "Grep", "LS"})

_RULE = re.compile(r"^\s*([A-Za-z_][\w-]*(?:__\*)?)\s*(?:\((.*)\))?\s*$", re.S)


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


def dont_ask_refusal(name: str, decision: Decision) -> str:
    """What the model reads when dontAsk mode refuses a call that would have asked."""
    why = decision.reason.strip() or f"{name} needs permission."
    return (
        f"{name} was not run: eddy is in dontAsk mode, where whatever would ask is refused. "
        f"{why} Only calls that allow rules or the mode permit run."
    )


def _plan_refusal(what: str) -> str:
    return (
        f"{what} was not run: eddy is in plan mode, where nothing that changes state runs. "
        "Present your plan to the user instead."
    )


@dataclass(frozen=True)
class Rule:
    """``Tool`` or ``Tool(specifier)``; see the module docstring for the specifiers."""

    tool: str
    specifier: str | None = None
    source: str | None = field(default=None, compare=False)
    """The settings file (label) the rule was read from, or None (command line, session)."""
    line: int | None = field(default=None, compare=False)
    """The line of ``source`` where the rule's string is."""

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
        if tool == "Bash" and rule.wildcard:
            return rule
        if tool == "Bash" and rule._bash[1] and rule._bash[0] is None:
            raise ValueError(f"{text!r}: the prefix before :* is not a plain shell command")
        if tool == "WebFetch" and not spec.startswith("domain:"):
            raise ValueError(f"{text!r}: WebFetch rules take domain:HOST")
        return rule

    def __str__(self) -> str:
        return self.tool if self.specifier is None else f"{self.tool}({self.specifier})"

    def applies_to(self, name: str) -> bool:
        """Whether the rule speaks about tool ``name`` (``Edit`` also covers Write, ...;
        ``mcp__server`` and ``mcp__server__*`` every tool of that MCP server)."""
        if name == self.tool or name in _FAMILIES.get(self.tool, ()):
            return True
        if self.tool.startswith("mcp__") and name.startswith("mcp__"):
            server = self.tool.removesuffix("__*")
            return "__" not in server[len("mcp__") :] and name.startswith(server + "__")
        return False

    def denies(self, name: str) -> bool:
        """Whether, as a deny rule, it speaks about ``name``: a Read deny also blocks the edit
        tools (what may not be read may not be changed either)."""
        return self.applies_to(name) or (self.tool == "Read" and name in EDIT_TOOLS)

    def allows(self, name: str) -> bool:
        """Whether, as an allow rule, it speaks about ``name``: an Edit allow implies Read."""
        return self.applies_to(name) or (self.tool == "Edit" and name in READ_TOOLS)

    @functools.cached_property
    def wildcard(self) -> bool:
        """A Bash specifier with a star inside (``git * main``): see agent.permissions.wildcard."""
        return self.tool == "Bash" and self.specifier is not None and is_wildcard(self.specifier)

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
        if self.wildcard:
            return match_words(self.specifier, argv, open_args=open_args, loose=loose)
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
            and not self.wildcard
            and not self._bash[1]
            and self.specifier == command.strip()
        )

    def matches_path(self, path: Path, workspace: Path, *, broad: bool = False) -> bool:
        """Whether a path rule names ``path`` (a real path); ``broad`` for deny and ask rules
        (see ``spec_matches_path``)."""
        if self.specifier is None or self.tool in ("Bash", "WebFetch"):
            return False
        return spec_matches_path(self.specifier, path, workspace, broad=broad)

    def matches_args(self, name: str, args: dict[str, Any]) -> bool:
        """Specifiers that are neither commands nor paths: ``domain:`` for a url argument."""
        if self.specifier is None or not self.specifier.startswith("domain:"):
            return False
        # both sides in the one spelling the fetch uses (tools/web_http.py canonical_host)
        host = url_host(str(args.get("url", "")))
        raw = self.specifier[len("domain:") :].strip().lower()
        domain = canonical_host(raw) or raw
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
    warning: str = ""
    """For an ask that no rule can settle (a protected file): why, shown in the question."""
    read_only: bool = False
    """For an allowed Bash command: it was allowed only because eddy judged it read-only."""
    by: Rule | None = None
    """The rule that made the decision, if one did (``/permissions why`` names it)."""


@dataclass
class Policy:
    """What may run without asking.

    Attributes:
        mode: default, acceptEdits, plan or bypassPermissions.
        allow: rules that run without asking (a bare tool name: inside the workspace only).
        deny: rules that never run, in every mode.
        ask: rules that always ask (beat allow rules and modes, not bypassPermissions).
        hook_scripts: the scripts configured hooks run: protected like settings files.
    """

    mode: Mode = "default"
    allow: list[Rule] = field(default_factory=list)
    deny: list[Rule] = field(default_factory=list)
    ask: list[Rule] = field(default_factory=list)
    hook_scripts: tuple[Path, ...] = ()

    def read_rules(self) -> list[Rule]:
        """The deny rules that forbid reading paths (``Read(...)``, ``Grep(...)``, ...)."""
        return [
            r
            for r in self.deny
            if r.specifier is not None and any(r.applies_to(name) for name in READ_TOOLS)
        ]

    def read_denied(self, tool: str, path: Path, workspace: Path) -> bool:
        """Whether a deny rule forbids ``tool`` (a read tool) to read or name ``path``."""
        return any(
            (r.applies_to(tool) or r.applies_to("Read"))
            and r.matches_path(path, workspace, broad=True)
            for r in self.read_rules()
        )

    def decide(self, tool: Tool, args: dict[str, Any], ctx: ToolContext) -> tuple[Verdict, str]:
        """The verdict for one call, with a reason (for deny: the text the model sees)."""
        decision = self.check(tool, args, ctx)
        return decision.verdict, decision.reason

    def suggest(self, tool: Tool, args: dict[str, Any], ctx: ToolContext) -> str | None:
        """The rule "yes, don't ask again" should save for a call that asks, or None."""
        decision = self.check(tool, args, ctx)
        return decision.rule if decision.verdict == "ask" else None

    def check(self, tool: Tool, args: dict[str, Any], ctx: ToolContext) -> Decision:
        """The full decision for one call (in dontAsk mode an ask is a refusal)."""
        decision = self._check(tool, args, ctx)
        if self.mode == "dontAsk" and decision.verdict == "ask":
            return replace(decision, verdict="deny", reason=dont_ask_refusal(tool.name, decision))
        return decision

    def _check(self, tool: Tool, args: dict[str, Any], ctx: ToolContext) -> Decision:
        if tool.name == "Bash":
            from agent.permissions.bash import BashCheck  # it imports this module
            from agent.permissions.protected import protected_argument, protected_redirect

            check = BashCheck(self, ctx)
            decision = check.run(str(args.get("command", "")))
            if decision.verdict != "deny" and self.mode != "bypassPermissions":
                protected = protected_redirect(str(args.get("command", "")), ctx, self.hook_scripts)
                if protected is not None:
                    return protected
            if (
                decision.verdict == "allow"
                and self.mode != "bypassPermissions"
                and not any(f.changes or f.verdict != "allow" for f in check.findings)
                and not any(r.matches("Bash", args) for r in self.allow)
            ):
                # nothing but read-only parts: the gate runs it in the read-only sandbox
                decision = replace(decision, read_only=True)
            if (
                decision.verdict == "allow"
                and not decision.read_only
                and self.mode != "bypassPermissions"
            ):
                named = protected_argument(str(args.get("command", "")), ctx, self.hook_scripts)
                if named is not None:
                    return named
            return decision
        return self._check_tool(tool, args, ctx)

    def _hits(
        self,
        rule: Rule,
        name: str,
        args: dict[str, Any],
        paths: list[ResolvedPath],
        ctx: ToolContext,
        *,
        deny: bool = False,
    ) -> bool:
        """Whether a deny (``deny``) or ask rule names the call."""
        if not (rule.denies(name) if deny else rule.applies_to(name)):
            return False
        if rule.specifier is None:
            return True
        if rule.matches_args(name, args):
            return True
        return any(rule.matches_path(p.path, ctx.workspace, broad=True) for p in paths)

    def _web_fetch(self, args: dict[str, Any]) -> Decision:
        """WebFetch reads the network, not files: it runs when an allow rule names the URL's
        domain (or the bare tool), else it asks, offering that domain's rule."""
        if any(r.applies_to("WebFetch") and r.specifier is None for r in self.allow) or any(
            r.specifier is not None and r.matches_args("WebFetch", args) for r in self.allow
        ):
            return Decision("allow")
        host = url_host(str(args.get("url", "")))
        if not host:
            return Decision("allow")  # not a URL: the tool says so, fetching nothing
        return Decision("ask", f"WebFetch of {host} needs permission.", f"WebFetch(domain:{host})")

    def _check_tool(self, tool: Tool, args: dict[str, Any], ctx: ToolContext) -> Decision:
        name = tool.name
        try:
            paths = list(tool.paths(args, ctx))
        except (ToolError, KeyError, TypeError, ValueError):
            paths = []  # the input is invalid: the tool reports that when it runs
        for rule in self.deny:
            if self._hits(rule, name, args, paths, ctx, deny=True):
                return Decision("deny", f"{name} is denied by the permission rule {rule}.", by=rule)
        if self.mode == "bypassPermissions":
            return Decision("allow")
        if self.mode == "plan" and not tool.read_only and name not in HARMLESS_TOOLS:
            return Decision("deny", _plan_refusal(name))
        if name in EDIT_TOOLS:
            for p in paths:
                why = protected_reason(p.path, self.hook_scripts)
                if why is not None:
                    text = f"{p.path.name} is a protected file: {why}."
                    return Decision("ask", f"{name} of {p.path} always asks: {text}", None, text)
        for rule in self.ask:
            if self._hits(rule, name, args, paths, ctx):
                return Decision("ask", f"The permission rule {rule} asks before {name}.", by=rule)
        if name in HARMLESS_TOOLS:
            return Decision("allow")
        if name == "WebFetch":
            return self._web_fetch(args)
        bare = next((r for r in self.allow if r.specifier is None and r.allows(name)), None)
        base_ok = (
            tool.read_only
            or (self.mode == "acceptEdits" and name in EDIT_TOOLS)
            or bare is not None
        )
        family = "Edit" if name in EDIT_TOOLS else "Read" if name in READ_TOOLS else name
        used: list[Rule] = []
        for p in paths:
            if p.inside and base_ok:
                continue
            named = next(
                (
                    r
                    for r in self.allow
                    if r.specifier is not None
                    and r.allows(name)
                    and r.matches_path(p.path, ctx.workspace)
                ),
                None,
            )
            if named is not None:
                used.append(named)
                continue
            where = "" if p.inside else ", outside the workspace"
            saved = path_rule(family, p.path, ctx.workspace, directory=name in _DIRECTORY_TOOLS)
            return Decision("ask", f"{name} of {p.path}{where} needs permission.", saved)
        if paths or base_ok:
            by = used[0] if used else None if tool.read_only else bare
            return Decision("allow", by=by)
        named = next(
            (r for r in self.allow if r.specifier is not None and r.matches_args(name, args)), None
        )
        if named is not None:
            return Decision("allow", by=named)
        return Decision("ask", f"{name} needs permission.", name)
