"""Read deny rules follow the data: Glob and Grep never name nor show a denied file, whether
the search starts above it, the file is reached through a symlink, or rules change."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent.messages import ToolUseBlock
from agent.permissions.policy import Policy, Rule
from agent.session.gate import PathAccess, PermissionGate
from tools.base import ToolContext
from tools.glob import GlobTool
from tools.grep import GrepTool


def workspace(tmp_path: Path) -> Path:
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "key.txt").write_text("TOKEN=CANARY-1\n")
    (tmp_path / ".env").write_text("TOKEN=CANARY-2\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("TOKEN = load()\n")
    (tmp_path / "src" / "env-link").symlink_to(tmp_path / ".env")
    return tmp_path


async def run(tool: Any, args: dict[str, Any], tmp_path: Path, deny: list[str]) -> str:
    """Run ``tool`` as a session would: through the gate, whose path answers (the read
    filter) the tools' context holds."""
    policy = Policy(deny=[Rule.parse(r) for r in deny])
    paths = PathAccess(policy, tmp_path)
    ctx = ToolContext(tmp_path, paths=paths)
    gate = PermissionGate(
        policy, ctx, lambda _e: None, lambda: 1, tmp_path, headless=True, paths=paths
    )
    use = ToolUseBlock("t", tool.name, args)
    decision = await gate(use, tool)
    if not decision.allow:
        return f"REFUSED: {decision.reason}"
    return str((await tool.run(args, ctx.for_call(lambda _t: None, decision.grant))).content)


DENY = ["Read(./.env)", "Read(secrets/**)"]
SEARCHES = [
    (GrepTool("python"), {"pattern": "TOKEN"}),
    (GrepTool("python"), {"pattern": "TOKEN", "output_mode": "content"}),
    (GrepTool("python"), {"pattern": "TOKEN", "output_mode": "count"}),
    (GrepTool(), {"pattern": "CANARY", "output_mode": "content"}),
    (GrepTool(), {"pattern": "TOKEN", "path": "src", "output_mode": "content"}),
    (GlobTool(), {"pattern": "**/*"}),
    (GlobTool(), {"pattern": "**/key.txt"}),
    (GlobTool(), {"pattern": ".env"}),
]


@pytest.mark.parametrize(("tool", "args"), SEARCHES)
async def test_searches_never_show_denied_files(tmp_path: Path, tool: Any, args: Any) -> None:
    ws = workspace(tmp_path)
    out = await run(tool, args, ws, DENY)
    assert (
        "CANARY" not in out and "key.txt" not in out and ".env" not in out.replace("env-link", "")
    )
    assert "env-link" not in out  # a symlink to a denied file is the denied file


@pytest.mark.parametrize(("tool", "args"), SEARCHES[:2] + SEARCHES[5:6])
async def test_without_rules_the_same_searches_show_them(
    tmp_path: Path, tool: Any, args: Any
) -> None:
    out = await run(tool, args, workspace(tmp_path), [])
    assert "secrets" in out and ".env" in out


async def test_a_search_of_the_denied_directory_itself_is_refused(tmp_path: Path) -> None:
    out = await run(GrepTool(), {"pattern": "TOKEN", "path": "secrets"}, workspace(tmp_path), DENY)
    assert out.startswith("REFUSED")


async def test_a_deny_rule_for_grep_alone_hides_from_grep(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    out = await run(GrepTool(), {"pattern": "TOKEN"}, ws, ["Grep(secrets/**)"])
    assert "key.txt" not in out and ".env" in out
