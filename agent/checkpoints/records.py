"""The records of the checkpoint engine and what it reports: summaries, rewind plans, results.

An :class:`Entry` is one item of a session's checkpoint list: a user prompt (``kind="prompt"``,
the state before it is what a rewind to it restores) or a rewind (``kind="rewind"``, undone by
a redo). It maps each path changed while it was current to a :class:`Change`: the state before
the first change and the state eddy left the path in (``after``; None while a tool is still
writing it).
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agent.checkpoints.snapshot import DIR, FILE, LINK, State

PROMPT, REWIND = "prompt", "rewind"


@dataclass
class Change:
    """One path's change within an entry."""

    before: State
    after: State | None = None
    tools: list[str] = field(default_factory=list)
    shell: bool = False
    lines: tuple[int, int] | None = None

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"b": self.before.to_json()}
        d["a"] = self.after.to_json() if self.after is not None else None
        if self.tools:
            d["tools"] = self.tools
        if self.shell:
            d["shell"] = True
        if self.lines is not None:
            d["lines"] = list(self.lines)
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Change:
        after = d.get("a")
        lines = d.get("lines")
        return cls(
            before=State.from_json(d["b"]),
            after=State.from_json(after) if after is not None else None,
            tools=list(d.get("tools", [])),
            shell=bool(d.get("shell", False)),
            lines=(int(lines[0]), int(lines[1])) if lines else None,
        )


@dataclass
class Entry:
    """A checkpoint (a user prompt) or a rewind, with the changes made while it was current."""

    id: str
    kind: str
    created: float
    prompt: str = ""
    target: str | None = None
    """For a rewind: the entry whose earlier state it restored."""
    changes: dict[str, Change] = field(default_factory=dict)
    blocked: dict[str, str] = field(default_factory=dict)
    """Paths changed that cannot be restored, with the reason (ignored, outside, ...)."""
    shell_commands: int = 0
    problems: list[str] = field(default_factory=list)
    """Changes that could not be captured at all (a scan failed)."""

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"id": self.id, "kind": self.kind, "created": self.created}
        if self.problems:
            d["problems"] = self.problems
        if self.prompt:
            d["prompt"] = self.prompt
        if self.target is not None:
            d["target"] = self.target
        if self.shell_commands:
            d["shell_commands"] = self.shell_commands
        d["changes"] = {p: c.to_json() for p, c in self.changes.items()}
        if self.blocked:
            d["blocked"] = self.blocked
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Entry:
        return cls(
            id=str(d["id"]),
            kind=d.get("kind", PROMPT),
            created=float(d.get("created", 0.0)),
            prompt=d.get("prompt", ""),
            target=d.get("target"),
            changes={p: Change.from_json(c) for p, c in d.get("changes", {}).items()},
            blocked=dict(d.get("blocked", {})),
            shell_commands=int(d.get("shell_commands", 0)),
            problems=list(d.get("problems", [])),
        )

    def shas(self) -> set[str]:
        out: set[str] = set()
        for c in self.changes.values():
            for s in (c.before, c.after):
                if s is not None and s.sha is not None:
                    out.add(s.sha)
        return out


# -- what is reported ----------------------------------------------------------------------------


@dataclass(frozen=True)
class FileChange:
    """A file's net change within one entry."""

    path: str
    status: str
    """``created``, ``modified``, ``deleted``, ``mode`` (only the mode bits) or ``replaced``
    (a file became a link, or the reverse)."""
    added: int = 0
    removed: int = 0

    @property
    def text(self) -> str:
        """``calc.py +2 -1``, ``notes.txt created``, ``old.txt deleted``, ``run.sh mode
        changed``: the change by the file's name (an empty new file has no +0 -0)."""
        if self.status == "modified":
            return f"{self.path} +{self.added} -{self.removed}"
        lines = f" +{self.added}" if self.status == "created" and self.added else ""
        word = {"mode": "mode changed"}.get(self.status, self.status)
        return f"{self.path} {word}{lines}"


@dataclass(frozen=True)
class CheckpointSummary:
    """One line of the rewind list."""

    id: str
    kind: str
    prompt: str
    created: float
    files: list[FileChange]
    added: int
    removed: int
    not_restorable: dict[str, str]
    """Paths changed that a rewind cannot put back, with the reason."""
    shell_commands: int
    target: str | None = None
    problems: list[str] = field(default_factory=list)
    """Changes that could not be captured (e.g. a scan failed): a rewind cannot undo them."""

    @property
    def text(self) -> str:
        """``"3 files +12 -4"``, one file by name (``"calc.py +2 -1"``, ``"notes.txt
        created"``), ``"no code changes"``, ``"2 files not restorable"``, or both."""
        parts = []
        if len(self.files) == 1:
            parts.append(self.files[0].text)
        elif self.files:
            parts.append(f"{len(self.files)} files +{self.added} -{self.removed}")
        if self.not_restorable:
            n = len(self.not_restorable)
            parts.append(f"{n} file{'s' if n != 1 else ''} not restorable")
        if self.problems:
            parts.append("some changes not captured")
        return ", ".join(parts) if parts else "no code changes"


@dataclass(frozen=True)
class Conflict:
    """A file changed outside eddy since eddy last changed it."""

    path: str
    reason: str


@dataclass
class RewindPlan:
    """What a rewind would do; nothing has been changed yet."""

    target: str
    restore: list[str] = field(default_factory=list)
    """Files and links written back (modified, or recreated after a deletion)."""
    delete: list[str] = field(default_factory=list)
    """Files and links the session created, deleted."""
    make_dirs: list[str] = field(default_factory=list)
    remove_dirs: list[str] = field(default_factory=list)
    """Directories the session created, removed when empty."""
    chmod_dirs: list[str] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    not_restorable: dict[str, str] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not (self.restore or self.delete or self.make_dirs or self.remove_dirs)


@dataclass
class RewindResult:
    """What a rewind (or redo) did. ``rewind_id`` names it for a later redo."""

    rewind_id: str
    target: str
    restored: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    dirs_made: list[str] = field(default_factory=list)
    dirs_removed: list[str] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    """Conflicting files: left alone, unless ``overwritten``."""
    overwritten: bool = False
    not_restorable: dict[str, str] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    """Paths that could not be restored (e.g. permission denied, a directory not empty)."""


# -- summaries -----------------------------------------------------------------------------------


def file_status(before: State, after: State) -> str | None:
    """The status of a net change of a file or link, None when nothing changed (or a dir)."""
    if after.kind == DIR:
        return "deleted" if before.kind in (FILE, LINK) else None
    if before.kind == DIR:
        return "created" if after.kind in (FILE, LINK) else None
    if before.same(after):
        return None
    if before.kind == "absent":
        return "created"
    if after.kind == "absent":
        return "deleted"
    if before.kind != after.kind:
        return "replaced"
    if before.kind == FILE and before.sha == after.sha and before.sha is not None:
        return "mode"
    return "modified"


def count_lines(old: bytes | None, new: bytes | None) -> tuple[int, int]:
    """(added, removed) lines from ``old`` to ``new``; binary content counts no lines."""
    if (old is not None and b"\0" in old[:8192]) or (new is not None and b"\0" in new[:8192]):
        return 0, 0
    a = old.splitlines() if old else []
    b = new.splitlines() if new else []
    start = 0
    while start < len(a) and start < len(b) and a[start] == b[start]:
        start += 1
    end_a, end_b = len(a), len(b)
    while end_a > start and end_b > start and a[end_a - 1] == b[end_b - 1]:
        end_a -= 1
        end_b -= 1
    a, b = a[start:end_a], b[start:end_b]
    if not a or not b:
        return len(b), len(a)
    if len(a) * len(b) <= 4_000_000:
        sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
        same = sum(block.size for block in sm.get_matching_blocks())
    else:  # too large to align: count the lines each side has that the other lacks
        same = sum((Counter(a) & Counter(b)).values())
    return len(b) - same, len(a) - same


def summarize(entry: Entry, read: Callable[[str], bytes | None]) -> CheckpointSummary:
    """The summary of ``entry``; line counts are computed once and kept in its changes."""
    files: list[FileChange] = []
    not_restorable = dict(entry.blocked)
    added = removed = 0
    for path, change in sorted(entry.changes.items()):
        after = change.after if change.after is not None else change.before
        status = file_status(change.before, after)
        if status is None:
            continue
        if not change.before.restorable:
            not_restorable[path] = change.before.why or "its earlier content was not kept"
            continue
        if change.lines is None:
            old = read(change.before.sha) if change.before.sha else None
            new = read(after.sha) if after.sha else None
            if (change.before.sha and old is None) or (after.sha and new is None):
                change.lines = (0, 0)
            else:
                change.lines = count_lines(old, new)
        a, r = change.lines
        added += a
        removed += r
        files.append(FileChange(path, status, a, r))
    return CheckpointSummary(
        id=entry.id,
        kind=entry.kind,
        prompt=entry.prompt,
        created=entry.created,
        files=files,
        added=added,
        removed=removed,
        not_restorable=not_restorable,
        shell_commands=entry.shell_commands,
        target=entry.target,
        problems=list(entry.problems),
    )
