"""Pure permission policy: mode and rules -> allow / ask / deny.

This is the gate g(name, input) of docs/loop.md before a user is involved: ``decide`` does no
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
    bypassPermissions: everything runs, except what deny rules forbid and writes to the places
        that configure eddy (they ask). A shell command eddy cannot analyse still asks when
        Bash deny rules exist (they could not be checked).
    dontAsk: as default, but whatever would ask is refused (an is_error result saying so):
        only what the mode and the allow rules permit runs. Shift+Tab leaves it for default.

Rules (``Tool`` or ``Tool(specifier)``, deny beats ask beats allow, deny rules hold in every
mode) and what they name are :mod:`agent.permissions.rule`.

A tool allowed by bare name (``Edit``, ``--allowed-tools Write``) is allowed inside the
workspace and the added directories only; a path outside asks unless a rule names it.

The places that configure or extend eddy (:mod:`agent.permissions.places`: ``.eddy/``,
``.claude/``, ``.mcp.json``, memory files, ``.git/``, shell start-up files, the session's hook
scripts and memory imports) always ask before an edit, in every mode (bypassPermissions too;
plan mode refuses), whatever the allow rules say; the question says why.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from agent.permissions.paths import path_rule
from agent.permissions.places import SessionPlaces, protected_reason
from agent.permissions.rule import EDIT_TOOLS, READ_TOOLS, Match, Rule
from tools.base import ResolvedPath, Tool, ToolContext, ToolError
from tools.web_http import url_host

__all__ = [
    "EDIT_TOOLS",
    "HARMLESS_TOOLS",
    "MODES",
    "READ_TOOLS",
    "Decision",
    "Match",
    "Mode",
    "Policy",
    "Rule",
    "Verdict",
    "cycle_mode",
    "dont_ask_refusal",
    "plan_mode_note",
]

Mode = Literal["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"]
Verdict = Literal["allow", "ask", "deny"]
MODES: tuple[Mode, ...] = ("default", "acceptEdits", "plan", "bypassPermissions", "dontAsk")
HARMLESS_TOOLS = frozenset(
    {"TodoWrite", "ExitPlanMode", "AskUserQuestion", "BashOutput", "KillShell", "TaskStop"}
)
"""Tools that change nothing outside the session: they never ask, even in plan mode."""
_DIRECTORY_TOOLS = frozenset({"Glob", "Grep", "LS"})


def call_paths(tool: Tool, args: dict[str, Any], ctx: ToolContext) -> list[ResolvedPath]:
    """The paths a call would touch, resolved now ([] when its input is invalid: the tool
    reports that when it runs)."""
    try:
        return list(tool.paths(args, ctx))
    except (ToolError, KeyError, TypeError, ValueError):
        return []


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
    git_config: bool = False
    """For an allowed Bash command: its only changes are git's own harmless writes to the
    repository's configuration (``git remote add``), so the sandbox lets git write it."""


@dataclass
class Policy:
    """What may run without asking.

    Attributes:
        mode: default, acceptEdits, plan or bypassPermissions.
        allow: rules that run without asking (a bare tool name: inside the workspace only).
        deny: rules that never run, in every mode.
        ask: rules that always ask (beat allow rules and modes, not bypassPermissions).
        places: the session's own protected places (hook scripts, memory imports, ...), on
            top of :mod:`agent.permissions.places`' list.
    """

    mode: Mode = "default"
    allow: list[Rule] = field(default_factory=list)
    deny: list[Rule] = field(default_factory=list)
    ask: list[Rule] = field(default_factory=list)
    places: SessionPlaces = field(default_factory=SessionPlaces)

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

    def check(
        self,
        tool: Tool,
        args: dict[str, Any],
        ctx: ToolContext,
        paths: list[ResolvedPath] | None = None,
    ) -> Decision:
        """The full decision for one call (in dontAsk mode an ask is a refusal).

        Args:
            tool, args, ctx: the call.
            paths: the call's paths, resolved once by the caller (the gate), so that what
                is judged is what the tool is then held to; None: resolved here.
        """
        decision = self._check(tool, args, ctx, paths)
        if self.mode == "dontAsk" and decision.verdict == "ask":
            return replace(decision, verdict="deny", reason=dont_ask_refusal(tool.name, decision))
        return decision

    def _check(
        self,
        tool: Tool,
        args: dict[str, Any],
        ctx: ToolContext,
        paths: list[ResolvedPath] | None = None,
    ) -> Decision:
        if tool.name == "Bash":
            from agent.permissions.bash import BashCheck  # it imports this module
            from agent.permissions.protected import protected_argument, protected_redirect

            check = BashCheck(self, ctx)
            command = str(args.get("command", ""))
            decision = check.run(command)
            if decision.verdict != "deny":
                protected = protected_redirect(command, ctx, self.places)
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
            if decision.verdict == "allow" and not decision.read_only:
                named = protected_argument(command, ctx, self.places)
                if named is not None:
                    return named
                if check.git_config_only():
                    decision = replace(decision, git_config=True)
            return decision
        return self._check_tool(tool, args, ctx, paths)

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

    def _asks_first(self, tool: Tool, name: str, args: dict[str, Any]) -> Decision | None:
        """A call its tool says asks the first time (a project's skill), unless an allow rule
        names it (``Skill(name)``, or the bare tool)."""
        asks_first = getattr(tool, "asks_first", None)
        why = asks_first(args) if callable(asks_first) else None
        if not why:
            return None
        for rule in self.allow:
            if rule.allows(name) and (rule.specifier is None or rule.matches_args(name, args)):
                return None
        skill = str(args.get("skill", "")).strip().lstrip("/")
        return Decision("ask", why, f"{name}({skill})" if skill else name)

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

    def _check_tool(
        self,
        tool: Tool,
        args: dict[str, Any],
        ctx: ToolContext,
        given: list[ResolvedPath] | None = None,
    ) -> Decision:
        name = tool.name
        paths = given if given is not None else call_paths(tool, args, ctx)
        refused = self._refusal(tool, args, ctx, paths)
        if refused is not None:
            return refused
        if self.mode == "bypassPermissions":
            return Decision("allow")
        first = self._asks_first(tool, name, args)
        if first is not None:
            return first
        for rule in self.ask:
            if self._hits(rule, name, args, paths, ctx):
                return Decision("ask", f"The permission rule {rule} asks before {name}.", by=rule)
        if name in HARMLESS_TOOLS:
            return Decision("allow")
        if name == "WebFetch":
            return self._web_fetch(args)
        return self._by_allow_rules(tool, args, ctx, paths)

    def _refusal(
        self, tool: Tool, args: dict[str, Any], ctx: ToolContext, paths: list[ResolvedPath]
    ) -> Decision | None:
        """What holds in every mode, bypassPermissions included: deny rules, plan mode's
        refusal of changes, and protected files (which always ask)."""
        name = tool.name
        for rule in self.deny:
            if self._hits(rule, name, args, paths, ctx, deny=True):
                return Decision("deny", f"{name} is denied by the permission rule {rule}.", by=rule)
        if self.mode == "plan" and not tool.read_only and name not in HARMLESS_TOOLS:
            return Decision("deny", _plan_refusal(name))
        if name not in EDIT_TOOLS:
            return None
        for p in paths:
            why = protected_reason(p.path, self.places)
            if why is not None:
                text = f"{p.path.name} is a protected file: {why}."
                return Decision("ask", f"{name} of {p.path} always asks: {text}", None, text)
        return None

    def _by_allow_rules(
        self, tool: Tool, args: dict[str, Any], ctx: ToolContext, paths: list[ResolvedPath]
    ) -> Decision:
        """Allow when the tool may run on every path (read-only or acceptEdits inside, or an
        allow rule naming the path), else ask, offering a rule for the first path."""
        name = tool.name
        bare = next((r for r in self.allow if r.specifier is None and r.allows(name)), None)
        base_ok = (
            tool.read_only
            or (self.mode == "acceptEdits" and name in EDIT_TOOLS)
            or bare is not None
        )
        used: list[Rule] = []
        for p in paths:
            if p.inside and base_ok:
                continue
            named = self._path_allowed(name, p, ctx)
            if named is None:
                return self._path_asks(name, p, ctx)
            used.append(named)
        if paths or base_ok:
            by = used[0] if used else None if tool.read_only else bare
            return Decision("allow", by=by)
        named = next(
            (r for r in self.allow if r.specifier is not None and r.matches_args(name, args)), None
        )
        if named is not None:
            return Decision("allow", by=named)
        return Decision("ask", f"{name} needs permission.", name)

    def _path_allowed(self, name: str, p: ResolvedPath, ctx: ToolContext) -> Rule | None:
        """The allow rule naming tool ``name`` on path ``p``, if any."""
        return next(
            (
                r
                for r in self.allow
                if r.specifier is not None
                and r.allows(name)
                and r.matches_path(p.path, ctx.workspace)
            ),
            None,
        )

    def _path_asks(self, name: str, p: ResolvedPath, ctx: ToolContext) -> Decision:
        """Ask for tool ``name`` on path ``p``, offering a rule for it (or its directory)."""
        family = "Edit" if name in EDIT_TOOLS else "Read" if name in READ_TOOLS else name
        where = "" if p.inside else ", outside the workspace"
        saved = path_rule(family, p.path, ctx.workspace, directory=name in _DIRECTORY_TOOLS)
        return Decision("ask", f"{name} of {p.path}{where} needs permission.", saved)
