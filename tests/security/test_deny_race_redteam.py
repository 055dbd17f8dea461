"""Red team: a Read deny rule holds against shell commands that never name the file, and a
write lands exactly where the gate judged it would.

- The sandbox masks what Read deny rules name (an empty tmpfs over a directory, /dev/null over
  a file): ``grep -r`` and a script that builds the name at run time read nothing.
- git commands that can print a denied file from history (``git show HEAD:secret``, ``git log
  -p``, ``git diff``, ``git grep``, ``git cat-file``, ``git archive``) ask while such a rule
  exists, in every mode, also inside ``sh -c``; limited to other files they run as before.
- The gate resolves a call's paths once: a directory swapped for a symlink between the
  decision and the write is an is_error result, never a file outside.

Each attack got through eddy before (checked against it): the sandbox hid only the user's
secrets, git's history commands were plain read-only commands, and the gate resolved the path
a second time after judging it and approved the new, outside one.
"""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agent.messages import ToolUseBlock
from agent.permissions.policy import Mode, Policy, Rule
from agent.sandbox.runner import Sandbox
from agent.session.gate import PermissionGate
from tests.helpers.sandbox import needs_bwrap
from tools.base import ResolvedPath, ToolContext, ToolError
from tools.bash import TOOL as BASH
from tools.write import WriteTool

DENY = ["Read(./secret/**)", "Read(.env)"]


def project(root: Path) -> Path:
    """A git repository whose history holds the secrets the deny rules protect."""
    (root / "secret").mkdir(parents=True)
    (root / "secret" / "key.txt").write_text("CANARY-KEY\n")
    (root / "sub").mkdir()
    (root / "sub" / ".env").write_text("CANARY-ENV\n")
    (root / "a.txt").write_text("alpha\n")
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "one"], check=True)
    (root / "a.txt").write_text("beta\n")
    return root


async def gated_run(ws: Path, command: str, policy: Policy) -> str:
    """``command`` through a headless gate with the session's sandbox, run if allowed."""
    sandbox = Sandbox()
    ctx = ToolContext(ws, sandbox=sandbox)
    gate = PermissionGate(
        policy,
        ctx,
        lambda _e: None,
        lambda: 1,
        ws,
        headless=True,
        save_rules=False,
        sandbox=sandbox,
    )
    use = ToolUseBlock("toolu_1", "Bash", {"command": command})
    decision = await gate(use, BASH)
    if not decision.allow:
        return f"REFUSED: {decision.reason}"
    result = await BASH.run(use.input, ctx.for_call(lambda _t: None, decision.grant, use.id))
    return str(result.content)


READS = [
    ("grep -r CANARY .", Policy("default")),
    ("grep -r CANARY sub", Policy("default")),
    ("cat sub/.env", Policy("default", [Rule.parse("Bash(cat:*)")])),
    (
        "python3 -c \"print(open('se'+'cret/key.txt').read(), open('sub/.'+'env').read())\"",
        Policy("default", [Rule.parse("Bash(python3:*)")]),
    ),
    ("sh -c 'grep -r CANARY .'", Policy("acceptEdits", [Rule.parse("Bash(sh:*)")])),
]


@needs_bwrap
@pytest.mark.parametrize(("command", "policy"), READS)
async def test_denied_files_are_masked_inside_the_sandbox(
    tmp_path: Path, command: str, policy: Policy
) -> None:
    ws = project(tmp_path / "ws")
    policy.deny = [Rule.parse(r) for r in DENY]
    out = await gated_run(ws, command, policy)
    assert "CANARY-" not in out, out
    policy.deny = []
    shown = await gated_run(ws, command, policy)  # the same command without the rules
    assert "CANARY" in shown or shown.startswith("REFUSED"), shown


HISTORY = [
    "git show HEAD:secret/key.txt",
    "git show HEAD",
    "git log -p",
    "git log --patch -n 1",
    "git diff HEAD~0",
    "git diff --cached",
    "git grep CANARY HEAD",
    "git cat-file -p HEAD:sub/.env",
    "git archive HEAD | tar -xO",
    "git blame secret/key.txt",
    "git log -p -- secret",
    "git log -p -- .",
    "sh -c 'git show HEAD:secret/key.txt'",
    "git --no-pager show HEAD:secret/key.txt",
]


@pytest.mark.parametrize("mode", ["default", "acceptEdits", "plan", "bypassPermissions"])
async def test_git_history_commands_ask_while_a_read_deny_rule_exists(
    tmp_path: Path, mode: Mode
) -> None:
    ws = project(tmp_path / "ws")
    allow = [Rule.parse("Bash(git:*)"), Rule.parse("Bash(sh:*)"), Rule.parse("Bash(tar:*)")]
    for command in HISTORY:
        policy = Policy(mode, list(allow), [Rule.parse(r) for r in DENY])
        out = await gated_run(ws, command, policy)
        assert "CANARY-" not in out, (mode, command, out)
        why = "Read deny rule" in out or (mode == "plan" and "plan mode" in out)
        assert out.startswith("REFUSED") and why, (mode, command, out)


async def test_limited_to_other_files_they_run_and_without_rules_as_before(tmp_path: Path) -> None:
    ws = project(tmp_path / "ws")
    denied = Policy("default", deny=[Rule.parse(r) for r in DENY])
    for command in ("git log -p -- a.txt", "git show HEAD:a.txt", "git diff --stat", "git log"):
        assert not (await gated_run(ws, command, denied)).startswith("REFUSED"), command
    out = await gated_run(ws, "git show HEAD:secret/key.txt", Policy("default"))
    assert "CANARY-KEY" in out  # no rule: an ordinary read-only command


def test_a_denied_file_that_appears_later_is_masked_from_the_next_command(tmp_path: Path) -> None:
    from agent.sandbox.masks import DeniedPaths

    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / ".env").write_text("x")
    denied = DeniedPaths()
    rules = [Rule.parse("Read(.env)")]
    assert denied.find(rules, tmp_path) == (tmp_path / "a" / ".env",)
    assert denied.find(rules, tmp_path) == (tmp_path / "a" / ".env",)  # unchanged: no walk
    (tmp_path / "a" / "b" / ".env").write_text("y")  # its folder changed: walked again
    assert set(denied.find(rules, tmp_path)) == {
        tmp_path / "a" / ".env",
        tmp_path / "a" / "b" / ".env",
    }
    assert denied.find([Rule.parse("Read(./secret/**)")], tmp_path) == ()
    (tmp_path / "secret").mkdir()  # a literal base that appears later
    assert denied.find([Rule.parse("Read(./secret/**)")], tmp_path) == (tmp_path / "secret",)


class SwappingWrite(WriteTool):
    """Write whose second path resolution finds ``d`` swapped for a symlink to ``outside``
    (the race, made deterministic: a thread could do it at that very moment)."""

    def __init__(self, ws: Path, outside: Path) -> None:
        self.ws, self.outside, self.calls = ws, outside, 0

    def paths(self, args: dict[str, Any], ctx: ToolContext) -> list[ResolvedPath]:
        found = super().paths(args, ctx)
        self.calls += 1
        if self.calls == 1:
            (self.ws / "d").rename(self.ws / "d.moved")
            (self.ws / "d").symlink_to(self.outside)
        return found


@pytest.mark.parametrize("mode", ["acceptEdits", "bypassPermissions"])
async def test_a_path_swapped_after_the_decision_is_refused_not_written_outside(
    tmp_path: Path, mode: Mode
) -> None:
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    (ws / "d").mkdir(parents=True)
    outside.mkdir()
    tool = SwappingWrite(ws, outside)
    ctx = ToolContext(ws)
    gate = PermissionGate(Policy(mode), ctx, lambda _e: None, lambda: 1, ws, headless=True)
    use = ToolUseBlock("toolu_1", "Write", {"file_path": "d/f.txt", "content": "x"})
    decision = await gate(use, tool)
    assert decision.allow
    with pytest.raises(ToolError, match="not to what the permission check judged"):
        await tool.run(use.input, ctx.for_call(lambda _t: None, decision.grant, use.id))
    assert list(outside.iterdir()) == []


async def test_a_write_whose_path_did_not_change_runs(tmp_path: Path) -> None:
    ctx = ToolContext(tmp_path)
    gate = PermissionGate(
        Policy("acceptEdits"), ctx, lambda _e: None, lambda: 1, tmp_path, headless=True
    )
    use = ToolUseBlock("toolu_1", "Write", {"file_path": "d/f.txt", "content": "x"})
    decision = await gate(use, WriteTool())
    result = await WriteTool().run(use.input, ctx.for_call(lambda _t: None, decision.grant, use.id))
    assert not result.is_error and (tmp_path / "d" / "f.txt").read_text() == "x"


def test_the_judged_paths_kept_are_bounded(tmp_path: Path) -> None:
    ctx = ToolContext(tmp_path)
    gate = PermissionGate(
        Policy("acceptEdits"), ctx, lambda _e: None, lambda: 1, tmp_path, headless=True
    )

    async def many() -> None:
        for i in range(400):
            use = ToolUseBlock(f"t{i}", "Write", {"file_path": f"f{i}", "content": ""})
            await gate(use, WriteTool())

    asyncio.run(many())
    assert len(ctx.judged) <= 256 and "t399" in ctx.judged
