"""The tools' context has one writer: it is built once (agent/session/core.py), and after
that only ``for_call`` and ``for_child`` make copies (docs/architecture.md)."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

from tools.base import ToolContext

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("agent", "tools", "frontend", "cli", "headless", "tui", "plain", "acp_agent")
FIELDS = {f.name for f in dataclasses.fields(ToolContext)} - {"output", "grant", "call_id"}
COPIES = {("tools/base.py", "for_call"), ("tools/base.py", "for_child")}
"""Where a copy is made: its per-call (or per-child) fields are set there."""
STILL = {("agent/subagents/attach.py", "subagents")}
"""The subagent host needs the session, so it is given to the context after it is built."""


def _context_like(node: ast.expr) -> bool:
    """``ctx``, ``context``, ``self.ctx``, ``session.ctx``: a tool context, by name."""
    if isinstance(node, ast.Name):
        return node.id in ("ctx", "context", "tool_ctx")
    return isinstance(node, ast.Attribute) and node.attr == "ctx"


def _writes(path: Path) -> list[tuple[str, int, str]]:
    """(function, line, field) of each assignment to a context's field in ``path``."""
    found = []
    tree = ast.parse(path.read_text())
    for func in ast.walk(tree):
        if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(func):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    targets += target.elts if isinstance(target, ast.Tuple) else [target]
            elif isinstance(node, ast.AugAssign | ast.AnnAssign):
                targets = [node.target]
            for target in targets:
                if (
                    isinstance(target, ast.Attribute)
                    and target.attr in FIELDS
                    and _context_like(target.value)
                ):
                    found.append((func.name, node.lineno, target.attr))
    return found


def test_nothing_writes_a_tool_context_after_it_is_built() -> None:
    offending = []
    for package in PRODUCT:
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            for func, line, name in _writes(path):
                if (rel, func) in COPIES or (rel, name) in STILL:
                    continue
                offending.append(f"{rel}:{line} {func} writes ctx.{name}")
    assert not offending, "\n".join(offending)
