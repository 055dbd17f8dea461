"""Memory: the instruction files Claude Code users keep (CLAUDE.md and friends, AGENTS.md,
``.claude/rules``), read as Claude Code reads them, for the system prompt.

``read_memory`` gives the text (re-read after every compaction, never summarised), the
problems to show the user, and the path-scoped rules that load when a file is touched.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from agent.memory.files import claude_user_dir, memory_paths, user_files
from agent.memory.imports import Expander, MemoryFile
from agent.memory.rules import PathRules, Rule, load_rules


def _real(roots: tuple[Path, ...] | None) -> tuple[Path, ...] | None:
    return None if roots is None else tuple(Path(os.path.realpath(r)) for r in roots)


def external_imports(cwd: Path, roots: tuple[Path, ...]) -> list[tuple[Path, Path]]:
    """The imports of the project's memory files that reach outside ``roots``: (importer,
    real path) each, for the trust question (nothing outside is read)."""
    expander = Expander([], roots=_real(roots), survey=True)
    users = {os.path.realpath(p) for p in user_files(None)}
    for path in memory_paths(cwd, None):
        expander.read(path, users=os.path.realpath(path) in users)
    return expander.external


@dataclass
class Memory:
    """What the memory files say.

    Attributes:
        files: every file read, in prompt order (imports after their importer).
        rules: the rules files without ``paths`` (always in the prompt).
        path_rules: the rules with ``paths`` (delivered when a matching file is touched).
        problems: what could not be read, for the user.
    """

    files: list[MemoryFile] = field(default_factory=list)
    rules: list[Rule] = field(default_factory=list)
    path_rules: PathRules = field(default_factory=PathRules)
    problems: list[str] = field(default_factory=list)
    external: list[tuple[Path, Path]] = field(default_factory=list)
    """(importer, real path) of the imports left out because they reach outside the project."""

    def text(self) -> str:
        """The memory as the system prompt carries it: one section per file."""
        parts = []
        for f in self.files:
            if not f.text.strip():
                continue
            note = f" (imported by {f.imported_by})" if f.imported_by is not None else ""
            parts.append(f"## {f.path}{note}\n{f.text.strip()}")
        parts += [f"## {rule.path}\n{rule.body}" for rule in self.rules]
        return "\n\n".join(parts)

    def imported(self) -> list[Path]:
        """The files memory imports (real paths): protected places while they are imported."""
        return [f.path for f in self.files if f.imported_by is not None]

    def claude_md_count(self) -> int:
        """How many of the files are Claude Code's (for the start-up line)."""
        return sum(1 for f in self.files if "CLAUDE" in f.path.name)


def read_memory(
    cwd: Path, eddy_user_dir: Path | None = None, roots: tuple[Path, ...] | None = None
) -> Memory:
    """Read every memory file for a session in ``cwd``; never raises.

    Args:
        cwd: the workspace.
        eddy_user_dir: eddy's config directory (its AGENTS.md / CLAUDE.md), or None.
        roots: where the project's memory files may import from (the workspace and the added
            directories); None: anywhere (the user approved the imports that reach out).
    """
    memory = Memory()
    expander = Expander(memory.problems, roots=_real(roots))
    users = {os.path.realpath(p) for p in user_files(eddy_user_dir)}
    for path in memory_paths(cwd, eddy_user_dir):
        memory.files += expander.read(path, users=os.path.realpath(path) in users)
    memory.external = expander.external
    for rule in load_rules(cwd, claude_user_dir(), memory.problems):
        if rule.globs:
            memory.path_rules.rules.append(rule)
        else:
            memory.rules.append(rule)
    return memory
