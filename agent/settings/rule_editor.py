"""Editing permission rules for /permissions: ``PermissionEditor`` writes the settings files
(through ``agent/settings/edit.py``) and changes the running session's policy in place, so the
next tool call already obeys the new rules; ``text_command`` is the text form
(``/permissions allow|ask|deny RULE [--local|--project|--user]``, ``remove RULE``, ``list``)
and ``summary`` the listing. The dialog that shows them is ``tui/screens/permissions.py``.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from agent.permissions.policy import Policy, Rule
from agent.settings.edit import SCOPES, RuleEntry, add_rule, display_path, list_rules, remove_rule
from agent.settings.files import RULE_LISTS, SettingsError
from tools.base import ToolContext

Kind = Literal["hint", "notice", "error"]
Said = tuple[str, Kind]
"""A line for the conversation and its style."""

FLAGS = {"allow": "--allowed-tools", "deny": "--disallowed-tools"}
USAGE = (
    "Usage: /permissions (opens the editor) · /permissions allow|ask|deny RULE "
    "[--local|--project|--user] · /permissions remove RULE · /permissions list · "
    '/permissions why "Bash(git push origin main)"'
)


class PermissionEditor:
    """Edits rules in the settings files and keeps the session's policy in step.

    Args:
        workspace: the project (its .eddy/ settings files).
        policy: the running session's policy, changed in place.
        allowed_tools, disallowed_tools: the command line's rules (shown, never edited).
        ctx: the session's tool context (its added directories), for ``why``.
    """

    def __init__(
        self,
        workspace: Path,
        policy: Policy,
        allowed_tools: Iterable[str] = (),
        disallowed_tools: Iterable[str] = (),
        ctx: ToolContext | None = None,
    ) -> None:
        self.ctx = ctx or ToolContext(Path(workspace))
        self.workspace = Path(workspace)
        self.policy = policy
        self.allowed_tools = list(allowed_tools)
        self.disallowed_tools = list(disallowed_tools)

    def entries(self) -> list[RuleEntry]:
        """Every rule with its source, read from the files now."""
        return list_rules(self.workspace, self.allowed_tools, self.disallowed_tools)

    def source(self, entry: RuleEntry) -> str:
        """Where a rule comes from, for the list."""
        if entry.path is None:
            return f"{FLAGS.get(entry.kind, 'command line')} (command line, read-only)"
        if entry.claude:
            return f"{display_path(entry.path, self.workspace)} (Claude Code's, read-only)"
        return display_path(entry.path, self.workspace)

    def _rules(self, kind: str) -> list[Rule]:
        rules: list[Rule] = getattr(self.policy, kind)
        return rules

    def add(self, kind: str, text: str, scope: str = "local") -> Said:
        """Add ``text`` to the ``kind`` list of the ``scope`` file, and to the policy."""
        try:
            rule = Rule.parse(text)
        except ValueError as exc:
            return f"Not a valid rule: {exc}. Nothing was saved.", "error"
        try:
            saved = add_rule(rule, self.workspace, kind, scope)
        except (SettingsError, OSError, ValueError) as exc:
            return f"Could not save {rule}: {exc}", "error"
        if rule not in self._rules(kind):
            self._rules(kind).append(rule)
        return f"{saved.message} It applies from the next tool call.", "notice"

    def remove(self, entry: RuleEntry) -> Said:
        """Remove one listed rule from its file, and from the policy unless set elsewhere."""
        if entry.path is None:
            flag = FLAGS.get(entry.kind, "the command line")
            return (
                f"{entry.rule} was given on the command line ({flag}); it cannot be removed "
                "here. Start eddy without it.",
                "error",
            )
        if entry.claude and entry.path is not None:
            where = display_path(entry.path, self.workspace)
            return (
                f"{entry.rule} is in {where}, Claude Code's file: eddy never changes Claude "
                "Code's files. Remove it there, or add a deny rule with /permissions deny.",
                "error",
            )
        try:
            removed = remove_rule(entry.rule, self.workspace, entry.kind, entry.scope)
        except (SettingsError, OSError, ValueError) as exc:
            return f"Could not remove {entry.rule}: {exc}", "error"
        if removed is None:
            where = display_path(entry.path, self.workspace)
            return f"{where} no longer holds the {entry.kind} rule {entry.rule}.", "error"
        others = [e for e in self.entries() if e.kind == entry.kind and e.rule == entry.rule]
        if others:
            still = ", ".join(self.source(e) for e in others)
            return f"{removed.message} It still applies: it is also in {still}.", "notice"
        rules = self._rules(entry.kind)
        rules[:] = [r for r in rules if r != entry.rule]
        return f"{removed.message} It no longer applies.", "notice"


def text_command(editor: PermissionEditor, arg: str) -> list[Said] | None:
    """The text forms of /permissions; None when the dialog should open instead."""
    words = arg.split()
    if not words:
        return None
    verb, rest = words[0].lower(), arg.strip()[len(words[0]) :].strip()
    if verb == "list":
        return [(summary(editor), "hint")]
    if verb == "why":
        return _why(editor, rest)
    if verb in RULE_LISTS or verb == "remove":
        scope, rest = _scope_flag(rest)
        if not rest:
            return [(USAGE, "error")]
        if verb != "remove":
            return [editor.add(verb, rest, scope)]
        return _remove(editor, rest)
    return [(USAGE, "error")]


def _why(editor: PermissionEditor, call: str) -> list[Said]:
    """``/permissions why CALL``: what the rules and the mode decide for ``call``."""
    if not call:
        return [(USAGE, "error")]
    from agent.permissions.why import decide

    try:
        _decision, text = decide(editor.policy, editor.ctx, call)
    except ValueError as exc:
        return [(f"/permissions why: {exc}", "error")]
    return [(text, "hint")]


def _scope_flag(rest: str) -> tuple[str, str]:
    """The scope a ``--local``/``--project``/``--user`` flag names (local by default), and
    ``rest`` without the flag."""
    scope = "local"
    for name in SCOPES:
        flag = f"--{name}"
        if rest == flag:
            scope, rest = name, ""
        elif rest.startswith(f"{flag} "):
            scope, rest = name, rest[len(flag) :].strip()
        elif rest.endswith(f" {flag}"):
            scope, rest = name, rest[: -len(flag)].strip()
    return scope, rest


def _remove(editor: PermissionEditor, text: str) -> list[Said]:
    """``/permissions remove RULE``: out of every list that holds it."""
    try:
        rule = Rule.parse(text)
    except ValueError as exc:
        return [(f"Not a valid rule: {exc}.", "error")]
    found = [e for e in editor.entries() if e.rule == rule]
    if not found:
        return [(f"No list holds the rule {rule}; /permissions shows them.", "error")]
    return [editor.remove(e) for e in found]


def summary(editor: PermissionEditor) -> str:
    """The mode and every rule with its source, as text."""
    entries = editor.entries()
    lines = [
        f"Permission mode: {editor.policy.mode} (shift+tab cycles default → acceptEdits → plan)"
    ]
    for kind in RULE_LISTS:
        mine = [f"{e.rule} ({editor.source(e)})" for e in entries if e.kind == kind]
        lines.append(f"  {kind + ':':<6} {', '.join(mine) or '(none)'}")
    lines.append("Deny beats ask beats allow. /permissions opens the editor.")
    return "\n".join(lines)
