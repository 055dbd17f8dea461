"""Trust: a project's own files steer eddy only once the user said yes to what they grant.

A repository can carry settings that let commands run without asking, hooks, ``env``
variables, sandbox settings, MCP servers, skills with ``allowed-tools``, memory that imports
files from elsewhere (:mod:`agent.settings.grants` collects them all). So an interactive start
asks "Do you trust the files in this folder?" and lists, per kind, everything they grant. "Yes"
is kept in the user's config directory (``trusted-folders.json``): the folder (which covers the
folders below it, as before) and, per kind, a digest of what was listed (``grants``). When a
kind's grants change after the yes (a new hook, a widened rule, an import reaching out), the
next start asks again, naming what changed: trust is for content, not a folder's name. "No"
ends eddy before anything of the project is read.

A folder Claude Code trusts (``~/.claude.json``: ``projects[<path>].hasTrustDialogAccepted``)
answers the folder's question, not the grants': with grants there, eddy still asks about them.

What the user has not approved does not take effect (:func:`approved_kinds`, applied by
:func:`agent.settings.files.load_settings`, the memory, skills and commands): rules, modes,
hooks, ``env``, weakened sandbox settings, the status line, an API key helper, skills' and
commands' ``allowed-tools``, memory imports from outside the project. MCP servers keep their own
per-server question (:mod:`agent.mcp.approval`); agents' modes can only narrow the user's.

Vouched for, without a question (every kind takes effect, as in Claude Code, but memory imports
reaching outside the project, which only an interactive yes sends): ``eddy -p`` and line mode
fed from a pipe (the caller vouches for the folder: :func:`vouch`; what was picked up is said
on stderr once), the folders of ``EDDY_TRUSTED_FOLDERS`` (separated by ``os.pathsep``, for
scripts that drive an interactive eddy, and the tests), and the demo.
bypassPermissions is asked like any mode: it lets the model's calls through, not a
repository's hooks and variables.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.paths import config_dir
from agent.settings.files import Settings
from agent.settings.grants import KINDS, ProjectGrants, collect_grants

TRUST_FILE = "trusted-folders.json"
_vouched: set[Path] = set()
"""Folders a caller vouched for in this process (``eddy -p``)."""
_shown: dict[Path, ProjectGrants] = {}
"""What the last question about a folder listed: a yes approves exactly that."""


def trust_path() -> Path:
    """Where the trusted folders and the approved grants are kept."""
    return config_dir() / TRUST_FILE


def _load() -> dict[str, Any]:
    try:
        data = json.loads(trust_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # missing or unreadable: nothing is trusted (the question comes again)
    return data if isinstance(data, dict) else {}


def _folders(data: dict[str, Any] | None = None) -> list[str]:
    """The folders the user trusted (the file), without those of ``EDDY_TRUSTED_FOLDERS``."""
    folders = (data if data is not None else _load()).get("folders")
    return [f for f in folders if isinstance(f, str)] if isinstance(folders, list) else []


def _given() -> list[Path]:
    return [
        Path(f).resolve() for f in os.environ.get("EDDY_TRUSTED_FOLDERS", "").split(os.pathsep) if f
    ]


def vouch(folder: Path) -> None:
    """The caller vouches for ``folder`` in this process (``eddy -p``): its grants apply."""
    _vouched.add(Path(folder).resolve())


def vouched(folder: Path) -> bool:
    """Whether ``folder`` is vouched for: ``EDDY_TRUSTED_FOLDERS`` or :func:`vouch`."""
    folder = Path(folder).resolve()
    return any(folder.is_relative_to(f) for f in [*_given(), *_vouched])


def claude_trusted(folder: Path) -> bool:
    """Whether Claude Code trusts ``folder`` or a folder above it (``~/.claude.json``)."""
    from agent.paths import claude_json_path

    try:
        data = json.loads(claude_json_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    projects = data.get("projects") if isinstance(data, dict) else None
    if not isinstance(projects, dict):
        return False
    folder = Path(folder).resolve()
    for candidate in (folder, *folder.parents):
        entry = projects.get(str(candidate))
        if isinstance(entry, dict) and entry.get("hasTrustDialogAccepted") is True:
            return True
    return False


def is_trusted(folder: Path) -> bool:
    """Whether ``folder`` or a folder above it was trusted (eddy's file, or vouched for)."""
    folder = Path(folder).resolve()
    trusted = [Path(f) for f in _folders()]
    return vouched(folder) or any(folder.is_relative_to(f) for f in trusted)


def _approved_digests(folder: Path) -> dict[str, str]:
    grants = _load().get("grants")
    entry = grants.get(str(Path(folder).resolve())) if isinstance(grants, dict) else None
    return {k: v for k, v in entry.items() if isinstance(v, str)} if isinstance(entry, dict) else {}


def pending_kinds(folder: Path, grants: ProjectGrants) -> list[str]:
    """The kinds with grants the user has not approved as they are now (in question order).
    A folder vouched for has none pending but memory imports reaching outside the project:
    those only the user's own yes sends (as Claude Code, which asks before them)."""
    approved = _approved_digests(folder)
    pending = [k for k in grants.kinds() if approved.get(k) != grants.digest(k)]
    return [k for k in pending if k == "imports"] if vouched(folder) else pending


def approved_kinds(folder: Path, grants: ProjectGrants) -> frozenset[str]:
    """The kinds that take effect: those with no grants, and those approved as they are now
    (every kind for a folder vouched for)."""
    pending = set(pending_kinds(folder, grants))
    return frozenset(k for k in KINDS if k not in pending)


def needs_asking(folder: Path, *, mode: str, demo: bool = False) -> bool:
    """Whether an interactive start in ``folder`` must ask first: the folder is not trusted
    (by eddy or Claude Code), or some of its grants are not approved as they are now.
    ``mode`` is no exemption: bypassPermissions lets the model's calls through, not a
    repository's hooks and variables. A folder vouched for is not asked (its imports that
    reach outside stay out)."""
    del mode
    if demo or vouched(folder):
        return False
    trusted = is_trusted(folder) or claude_trusted(folder)
    return not trusted or bool(pending_kinds(folder, collect_grants(folder)))


def question(folder: Path) -> list[str]:
    """The question's lines: the title, the folder, the risk, then what its files grant, per
    kind (those that changed since the user's yes marked); a yes approves what is listed."""
    folder = Path(folder).resolve()
    grants = collect_grants(folder)
    _shown[folder] = grants
    approved = _approved_digests(folder)
    trusted = is_trusted(folder) or claude_trusted(folder)
    changed = [k for k in grants.kinds() if k in approved and approved[k] != grants.digest(k)]
    lines = [
        "Do you trust the files in this folder?",
        str(folder),
        "eddy may read, write or run the files here, and this folder's settings and "
        "AGENTS.md / CLAUDE.md steer it. Only trust files from sources you trust.",
    ]
    pending = pending_kinds(folder, grants)
    if trusted and pending:
        lines[0] = "This folder's files grant more than you approved. Use them?"
        lines.append("What changed or was never approved (the rest stays as you approved it):")
        lines.extend(grants.lines(pending, marked=changed))
    elif grants.items:
        lines.append("Its files grant, once you trust them:")
        lines.extend(grants.lines(marked=changed))
    return lines


def trust(folder: Path) -> None:
    """Remember that the user trusts ``folder`` (and what is below it) and approves what its
    files grant, as the last :func:`question` listed it (as they are now if none was asked).

    Raises:
        OSError: the file cannot be written.
    """
    from agent.settings.edit import write_json_file

    folder = Path(folder).resolve()
    grants = _shown.pop(folder, None) or collect_grants(folder)
    data = _load()
    folders = _folders(data)
    if str(folder) not in folders:
        folders.append(str(folder))
    approvals = data.get("grants") if isinstance(data.get("grants"), dict) else {}
    assert isinstance(approvals, dict)
    approvals[str(folder)] = {kind: grants.digest(kind) for kind in grants.kinds()}
    write_json_file(trust_path(), {**data, "folders": folders, "grants": approvals})


def keep_approved(folder: Path, write: Callable[[], None]) -> None:
    """Run ``write``, eddy changing a project settings file at the user's request ("yes,
    don't ask again", ``/permissions``): what was approved before stays approved after (the
    user made the change), what was not stays pending.

    Raises:
        OSError: as ``write`` does; the approvals file cannot be written.
    """
    from agent.settings.edit import write_json_file

    folder = Path(folder).resolve()
    before = collect_grants(folder)
    kept = approved_kinds(folder, before)
    write()
    if vouched(folder):
        return
    data = _load()
    approvals = data.get("grants") if isinstance(data.get("grants"), dict) else {}
    assert isinstance(approvals, dict)
    entry = approvals.get(str(folder))
    if not isinstance(entry, dict):
        if not is_trusted(folder):
            return  # never trusted: the next start asks about everything anyway
        entry = {}
    after = collect_grants(folder)
    for kind in kept:
        if after.of(kind):
            entry[kind] = after.digest(kind)
        else:
            entry.pop(kind, None)
    approvals[str(folder)] = entry
    write_json_file(trust_path(), {**data, "grants": approvals})


@dataclass(frozen=True)
class ProjectTrust:
    """What of a project's own grants takes effect in a session (:func:`project_trust`).

    Attributes:
        grants: everything the project's files grant.
        approved: the kinds that take effect (all of them when vouched for).
        vouched: the caller vouches for the folder (``eddy -p``): no question, everything
            applies, and a project's skill does not ask before its first run.
        notices: what to tell the user at start (``eddy -p``: what it picked up).
    """

    grants: ProjectGrants
    approved: frozenset[str]
    vouched: bool
    notices: tuple[str, ...] = ()

    def import_roots(self, roots: tuple[Path, ...]) -> tuple[Path, ...]:
        """Where the project's memory may import from: ``roots`` (the workspace and the added
        directories), and the files outside them the user approved importing."""
        if "imports" not in self.approved:
            return roots
        return (*roots, *(g.path for g in self.grants.of("imports") if g.path is not None))


def project_trust(
    folder: Path, *, headless: bool, extra_dirs: tuple[Path, ...] = ()
) -> ProjectTrust:
    """What of ``folder``'s own grants a session there may use: those the user approved as
    they are now; all of them when the caller vouches for it (``headless``: ``eddy -p``,
    which then says once what it picked up).

    Args:
        folder: the workspace.
        headless: nobody can answer a question (the caller vouches for the folder).
        extra_dirs: the added directories (memory imports inside them are the project's).
    """
    if headless:
        vouch(folder)
    grants = collect_grants(folder, extra_dirs)
    approved = approved_kinds(folder, grants)
    notices = grant_notices(folder, grants, approved) if headless else []
    return ProjectTrust(grants, approved, vouched(folder), tuple(notices))


def approved_settings(folder: Path) -> tuple[Settings, list[str]]:
    """``folder``'s settings with only what the user approved of its own files (or all of
    them, vouched for): for what a front end runs from them itself (the status line)."""
    from agent.settings.files import load_settings

    return load_settings(folder, approved_kinds(folder, collect_grants(folder)))


def grant_notices(folder: Path, grants: ProjectGrants, approved: frozenset[str]) -> list[str]:
    """For ``eddy -p``: what the folder's files grant (in effect: the caller vouches for the
    folder), and what stays out (imports reaching outside, never approved); [] for none."""
    effective = [k for k in grants.kinds() if k in approved]
    left = [k for k in grants.kinds() if k not in approved]
    out = []
    if effective:
        out.append(
            "this folder's own files grant (in effect: whoever runs eddy -p vouches for "
            f"{folder}): {grants.summary(effective)}"
        )
    if left:
        out.append(
            f"left out until you approve them in an interactive session: {grants.summary(left)}"
        )
    return out
