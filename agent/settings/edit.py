"""Editing the settings files' permission rules: "yes, don't ask again" (``save_rule``) and
``/permissions`` (``add_rule``, ``remove_rule``, ``list_rules``). Loading and merging the
files is ``agent/settings/files.py``; this module writes them, keeping every other key, and never
overwrites a file it cannot read.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.permissions.policy import Rule
from agent.settings.files import (
    LOCAL_SETTINGS,
    RULE_LISTS,
    SettingsError,
    local_settings_path,
    project_settings_path,
    read_settings_file,
    user_settings_path,
)
from tools.textfile import atomic_write

SCOPES: dict[str, tuple[str, str]] = {
    "local": ("Project, local", "yours, git-ignored"),
    "project": ("Project, shared", "commit it to share it"),
    "user": ("User", "every project"),
}
"""The settings files rules can be written to, highest precedence first: title and note."""


def scope_path(scope: str, workspace: Path) -> Path:
    """The settings file of ``scope`` (local, project or user)."""
    if scope == "local":
        return local_settings_path(workspace)
    if scope == "project":
        return project_settings_path(workspace)
    if scope == "user":
        return user_settings_path()
    raise ValueError(f"scope must be one of {', '.join(SCOPES)}, not {scope!r}")


def display_path(path: Path, workspace: Path) -> str:
    """``path`` for the user: relative to the project, or ``~/...`` under the home directory."""
    path, workspace = Path(path), Path(workspace)
    for root, prefix in ((workspace, ""), (Path.home(), "~/")):
        try:
            return prefix + path.relative_to(root).as_posix()
        except ValueError:
            pass
    return str(path)


@dataclass(frozen=True)
class RuleEntry:
    """One rule as written in one place (``list_rules``).

    Attributes:
        kind: allow, ask or deny.
        rule: the parsed rule.
        scope: local, project, user, cli (``--allowed-tools`` / ``--disallowed-tools``), or
            ``claude:<scope>`` / managed for Claude Code's files (eddy never edits those).
        path: the settings file, or None for a command-line rule (which cannot be edited).
    """

    kind: str
    rule: Rule
    scope: str
    path: Path | None = None

    @property
    def claude(self) -> bool:
        """In Claude Code's files (or the managed one): eddy reads them and never writes them."""
        return self.scope == "managed" or self.scope.startswith("claude:")


def list_rules(
    workspace: Path, allowed_tools: Iterable[str] = (), disallowed_tools: Iterable[str] = ()
) -> list[RuleEntry]:
    """Every valid rule with where it comes from: local, project, user files, then the flags.

    Files that cannot be read and rules that do not parse are left out (``load_settings``
    reports them).
    """
    workspace = Path(workspace)
    entries: list[RuleEntry] = []
    for scope in SCOPES:
        entries += _file_rules(scope_path(scope, workspace), scope)
    from agent.settings.files import settings_sources

    for source in settings_sources(workspace):
        if source.claude:
            scope = "managed" if source.scope == "managed" else f"claude:{source.scope}"
            entries += _file_rules(source.path, scope)
    for kind, values in (("allow", allowed_tools), ("deny", disallowed_tools)):
        for value in values:
            rule = _parse_or_none(value)
            if rule is not None:
                entries.append(RuleEntry(kind, rule, "cli"))
    return list(dict.fromkeys(entries))


def _file_rules(path: Path, scope: str) -> list[RuleEntry]:
    """The valid rules of the settings file ``path`` (none when it cannot be read)."""
    data = read_settings_file(path, "", [])
    perms = data.get("permissions") if data else None
    if not isinstance(perms, dict):
        return []
    entries: list[RuleEntry] = []
    for kind in RULE_LISTS:
        items = perms.get(kind)
        for item in items if isinstance(items, list) else ():
            rule = _parse_or_none(item)
            if rule is not None:
                entries.append(RuleEntry(kind, rule, scope, path))
    return entries


def _parse_or_none(item: Any) -> Rule | None:
    try:
        return Rule.parse(item) if isinstance(item, str) else None
    except ValueError:
        return None


@dataclass(frozen=True)
class SavedRule:
    """What ``add_rule`` (or ``save_rule``, or ``remove_rule``) wrote.

    Attributes:
        rule: the rule as saved, e.g. ``Bash(git commit:*)``.
        path: the settings file it went to.
        created: the file did not exist before.
        gitignored: ``.eddy/.gitignore`` was written to keep the local file out of git (the
            project's own .gitignore is never edited).
        kind: allow, ask or deny.
        where: the file as the message names it (default: its directory and name).
        removed: the rule was taken out of the file rather than added.
    """

    rule: str
    path: Path
    created: bool
    gitignored: bool
    kind: str = "allow"
    where: str = ""
    removed: bool = False

    @property
    def message(self) -> str:
        """One line for the user: which rule went where."""
        where = self.where or f"{self.path.parent.name}/{self.path.name}"
        if self.removed:
            return f"Removed {self.kind} rule {self.rule} from {where}."
        extra = f" (git-ignored by {LOCAL_IGNORE})" if self.gitignored else ""
        return f"Saved {self.kind} rule {self.rule} to {where}{extra}."


def save_rule(rule: str | Rule, workspace: Path, kind: str = "allow") -> SavedRule:
    """Add a rule to the project-local settings (``.eddy/settings.local.json``); see add_rule."""
    return add_rule(rule, workspace, kind, "local")


def add_rule(
    rule: str | Rule, workspace: Path, kind: str = "allow", scope: str = "local"
) -> SavedRule:
    """Add a rule to the ``kind`` list of one settings file (``SCOPES``).

    Creates the file if needed (the local one is also git-ignored: ``_ensure_gitignored``);
    keeps everything else in it; does nothing more if the rule is already there.

    Raises:
        ValueError: the rule does not parse, or ``kind`` or ``scope`` is unknown.
        SettingsError: the file exists but is not a JSON object with a list there (it is left
            as it is, so nothing of the user's is lost).
        OSError: it cannot be read or written.
    """
    text = str(rule if isinstance(rule, Rule) else Rule.parse(rule))
    workspace = Path(workspace)
    path, where = _check_target(kind, scope, workspace)
    created = not path.exists()
    data = {} if created else _load_for_edit(path, where)
    rules = _rule_list(data, kind, where, create=True)
    if text not in rules:
        rules.append(text)
    _write_settings(path, data, scope, workspace)
    gitignored = _ensure_gitignored(workspace) if created and scope == "local" else False
    return SavedRule(text, path, created, gitignored, kind, where)


def remove_rule(
    rule: str | Rule, workspace: Path, kind: str = "allow", scope: str = "local"
) -> SavedRule | None:
    """Remove a rule (every entry that parses to it) from the ``kind`` list of one file.

    Returns:
        What was removed, or None when the file does not hold that rule (nothing is written).

    Raises:
        ValueError, SettingsError, OSError: as for ``add_rule``; a broken file is left as it is.
    """
    wanted = rule if isinstance(rule, Rule) else Rule.parse(rule)
    workspace = Path(workspace)
    path, where = _check_target(kind, scope, workspace)
    if not path.exists():
        return None
    data = _load_for_edit(path, where)
    rules = _rule_list(data, kind, where, create=False)
    kept = [r for r in rules if not (isinstance(r, str) and _parse_or_none(r) == wanted)]
    if len(kept) == len(rules):
        return None
    rules[:] = kept
    _write_settings(path, data, scope, workspace)
    return SavedRule(str(wanted), path, False, False, kind, where, removed=True)


def edit_settings(scope: str, workspace: Path, change: Callable[[dict[str, Any]], None]) -> Path:
    """Apply ``change`` to the settings object of one of eddy's files (``SCOPES``) and write
    it back whole (created if needed; the local one is git-ignored then); what else the
    file holds is kept; a project's file keeps its approval. Returns the file.

    Raises:
        ValueError: ``scope`` is unknown.
        SettingsError: the file exists but is not a JSON object (it is left as it is).
        OSError: it cannot be read or written.
    """
    workspace = Path(workspace)
    path = scope_path(scope, workspace)
    created = not path.exists()
    data = {} if created else _load_for_edit(path, display_path(path, workspace))
    change(data)
    _write_settings(path, data, scope, workspace)
    if created and scope == "local":
        _ensure_gitignored(workspace)
    return path


def _write_settings(path: Path, data: dict[str, Any], scope: str, workspace: Path) -> None:
    """Write a settings file; a project's file keeps its approval (the user made this change:
    :func:`agent.settings.trust.keep_approved`)."""
    if scope == "user":
        write_json_file(path, data)
        return
    from agent.settings.trust import keep_approved

    keep_approved(workspace, lambda: write_json_file(path, data))


def _check_target(kind: str, scope: str, workspace: Path) -> tuple[Path, str]:
    if kind not in RULE_LISTS:
        raise ValueError(f"kind must be one of {', '.join(RULE_LISTS)}, not {kind!r}")
    path = scope_path(scope, workspace)
    return path, display_path(path, workspace)


def _load_for_edit(path: Path, where: str) -> dict[str, Any]:
    raw = path.read_text(encoding="utf-8")
    try:
        loaded = json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError as exc:
        raise SettingsError(
            f"{where}: invalid JSON at line {exc.lineno} column {exc.colno}: "
            f"{exc.msg}; fix it to save rules there."
        ) from exc
    if not isinstance(loaded, dict):
        raise SettingsError(f"{where}: expected a JSON object at the top level.")
    return loaded


def _rule_list(data: dict[str, Any], kind: str, where: str, *, create: bool) -> list[Any]:
    perms = data.setdefault("permissions", {}) if create else data.get("permissions", {})
    if not isinstance(perms, dict):
        raise SettingsError(f"{where}: permissions: expected an object.")
    rules = perms.setdefault(kind, []) if create else perms.get(kind, [])
    if not isinstance(rules, list):
        raise SettingsError(f"{where}: permissions.{kind}: expected a list.")
    return rules


def write_json_file(path: Path, data: dict[str, Any]) -> None:
    """Replace a JSON file of eddy's whole (a unique temporary file, then a rename), keeping
    its mode; its directory is made if needed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        old: os.stat_result | None = path.stat()
    except FileNotFoundError:
        old = None
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    atomic_write(path, text.encode("utf-8"), old)


LOCAL_IGNORE = ".eddy/.gitignore"
"""Where eddy git-ignores its local settings: in its own folder, so the project's .gitignore is
never edited behind the user's back (issue 25)."""

LOCAL_IGNORE_TEXT = """# Written by eddy: your personal settings stay out of git.
# (This file ignores itself too, so git status shows nothing new.)
settings.local.json
.gitignore
"""


def _ensure_gitignored(workspace: Path) -> bool:
    """Keep the local settings file out of git without touching the project's files: a
    ``.gitignore`` in ``.eddy/`` (which ignores itself), unless the project's own .gitignore
    ignores it already. True if eddy's ignore file was written; outside git, nothing is."""
    gitignore = workspace / ".gitignore"
    in_git = gitignore.exists() or any(
        (d / ".git").exists() for d in (workspace.resolve(), *workspace.resolve().parents)
    )
    if not in_git:
        return False
    import pathspec

    existing = gitignore.read_text(encoding="utf-8") if gitignore.exists() else ""
    if pathspec.GitIgnoreSpec.from_lines(existing.splitlines()).match_file(LOCAL_SETTINGS):
        return False
    local_ignore = workspace / LOCAL_IGNORE
    ours = local_ignore.read_text(encoding="utf-8") if local_ignore.exists() else ""
    if pathspec.GitIgnoreSpec.from_lines(ours.splitlines()).match_file("settings.local.json"):
        return False
    if ours and not ours.endswith("\n"):
        ours += "\n"
    local_ignore.write_text(ours + LOCAL_IGNORE_TEXT, encoding="utf-8")
    return True
