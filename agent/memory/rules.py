"""``.claude/rules/**/*.md``: instructions by topic. A rule without ``paths`` front matter is
part of the memory; a rule with ``paths`` (globs relative to the project root) reaches the
model when a matching file is touched: its text is appended to the result of the Read, Edit,
MultiEdit or Write call that touched it, once per session (and again after a compaction,
which may have summarised it away).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.memory.frontmatter import read_front_matter
from agent.memory.imports import strip_comments
from tools.globpattern import compile_glob

TOUCHING_TOOLS = ("Read", "Edit", "MultiEdit", "Write")
"""The tools whose ``file_path`` makes a path rule load."""


@dataclass(frozen=True)
class Rule:
    """One rules file.

    Attributes:
        path: the file.
        body: its text (front matter and HTML comments removed).
        globs: its ``paths`` (empty: it always loads).
        root: the directory the globs are relative to.
    """

    path: Path
    body: str
    globs: tuple[str, ...] = ()
    root: Path = Path("/")

    def matches(self, file: Path) -> bool:
        """Whether ``file`` (a real path) matches one of the globs."""
        try:
            rel = file.relative_to(self.root).as_posix()
        except ValueError:
            return False
        for pattern in self.globs:
            try:
                glob = compile_glob(pattern.lstrip("/"))
            except Exception:  # a malformed glob was reported when the rule was read
                continue
            if rel.startswith(glob.prefix) and glob.regex.fullmatch(rel[len(glob.prefix) :]):
                return True
        return False


def rule_dirs(workspace: Path, user_dir: Path) -> list[tuple[Path, Path]]:
    """(rules directory, the root its globs are relative to): the user's, then the project's."""
    return [(user_dir / "rules", workspace), (workspace / ".claude" / "rules", workspace)]


def load_rules(workspace: Path, user_dir: Path, problems: list[str]) -> list[Rule]:
    """Every rules file, sorted by path within each directory; problems are appended."""
    rules: list[Rule] = []
    root = Path(os.path.realpath(workspace))
    for folder, _base in rule_dirs(workspace, user_dir):
        try:
            files = sorted(folder.rglob("*.md")) if folder.is_dir() else []
        except OSError:
            continue
        for f in files:
            fm = read_front_matter(f, problems)
            if fm is None:
                continue
            globs = tuple(fm.items("paths") or fm.items("globs"))
            for g in globs:
                try:
                    compile_glob(g.lstrip("/"))
                except Exception as exc:
                    problems.append(f"{f}: the glob {g!r} is not valid ({exc}).")
            body = strip_comments(fm.body).strip()
            if body:
                rules.append(Rule(f, body, globs, root))
    return rules


@dataclass
class PathRules:
    """The rules that load when a file is touched, and which were already delivered."""

    rules: list[Rule] = field(default_factory=list)
    delivered: set[Path] = field(default_factory=set)

    def note_for(self, tool: str, args: dict[str, Any], workspace: Path) -> str:
        """The reminder to append to a ``tool`` call's result, or ""."""
        raw = args.get("file_path") if tool in TOUCHING_TOOLS else None
        if not isinstance(raw, str) or not raw:
            return ""
        p = Path(os.path.expanduser(raw))
        real = Path(os.path.realpath(p if p.is_absolute() else workspace / p))
        fresh = [r for r in self.rules if r.path not in self.delivered and r.matches(real)]
        if not fresh:
            return ""
        self.delivered.update(r.path for r in fresh)
        parts = [f"Instructions from {r.path} (they apply to {raw}):\n{r.body}" for r in fresh]
        return "<system-reminder>\n" + "\n\n".join(parts) + "\n</system-reminder>"

    def forget(self) -> None:
        """After a compaction: deliver the rules again when their files are touched."""
        self.delivered.clear()
