"""docs/loop.md's invariant with hooks in the gate and in exec: whatever the hooks decide
(allow, deny, ask, exit 2, crash, updatedInput valid or not, continue: false, PostToolUse
block, Stop block), every request is valid and every tool_use gets exactly one result."""

# ruff: noqa: E501  (the hook scripts below are one JSON answer per line)
from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent import events as ev
from agent import ops
from agent.hooks.config import load_hooks
from agent.messages import Message, assistant, check_invariant
from agent.permissions.policy import Policy, Rule
from agent.session.config import SessionConfig
from agent.session.core import Session
from agent.turn.outcome import Limits
from tests.fakes.scripted import ScriptedModel, tool_call
from tools.bash import BashTool

PRE = r"""input=$(cat)
case "$input" in
  *pre-deny*) echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no"}}';;
  *pre-ask*) echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask"}}';;
  *pre-exit2*) echo "blocked" >&2; exit 2;;
  *pre-crash*) exit 1;;
  *pre-rewrite*) echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"command": "echo rewritten"}}}';;
  *pre-badrewrite*) echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"command": 3}}}';;
  *pre-halt*) echo '{"continue": false, "stopReason": "halt"}';;
esac
exit 0
"""
POST = r"""input=$(cat)
case "$input" in
  *post-block*) echo '{"decision": "block", "reason": "lint"}';;
  *post-exit2*) echo "post says no" >&2; exit 2;;
esac
exit 0
"""
STOP = r"""input=$(cat)
case "$input" in
  *stop-block*) echo "keep going" >&2; exit 2;;
esac
exit 0
"""
MARKS = [
    "ok",
    "pre-deny",
    "pre-ask",
    "pre-exit2",
    "pre-crash",
    "pre-rewrite",
    "pre-badrewrite",
    "pre-halt",
    "post-block",
    "post-exit2",
    "fail",
]

calls = st.lists(st.sampled_from(MARKS), min_size=1, max_size=3)
finals = st.sampled_from(["done", "stop-block"])
scripts = st.tuples(st.lists(calls, max_size=3), st.lists(finals, min_size=1, max_size=3))


def _write(folder: Path, name: str, body: str) -> str:
    path = folder / name
    path.write_text("#!/bin/bash\n" + body)
    path.chmod(0o755)
    return str(path)


async def _run(workspace: Path, turns: list[list[str]], answers: list[str]) -> None:
    hooks = {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"command": _write(workspace, "pre.sh", PRE)}]}
        ],
        "PostToolUse": [{"hooks": [{"command": _write(workspace, "post.sh", POST)}]}],
        "PostToolUseFailure": [{"hooks": [{"command": _write(workspace, "post.sh", POST)}]}],
        "Stop": [{"hooks": [{"command": _write(workspace, "stop.sh", STOP)}]}],
    }
    config = SessionConfig(
        workspace=workspace,
        model="claude-sonnet-5-5",
        policy=Policy(allow=[Rule.parse("Bash")]),
        headless=True,
        hooks=load_hooks([("s", {"hooks": hooks})], []),
        limits=Limits(max_turns=6),
    )
    items: list = []
    n = 0
    for marks in turns:
        uses = []
        for mark in marks:
            n += 1
            command = "exit 3 # fail" if mark == "fail" else f"echo {mark}"
            uses.append(tool_call(f"toolu_{n}", "Bash", command=command))
        items.append(assistant(*uses))
    items += answers
    model = ScriptedModel(items)
    events: list[ev.Event] = []
    session = Session(config, model, [BashTool()], events.append)
    session.submit(ops.SubmitPrompt("go"))
    await session.wait_idle()
    session.submit(ops.SubmitPrompt("again"))
    await session.wait_idle()
    await session.close()
    for request in model.requests:
        check_invariant(request.messages)
    _one_result_each(session.history)
    started = {e.call_id for e in events if isinstance(e, ev.ToolCallStarted)}
    finished = [e.call_id for e in events if isinstance(e, ev.ToolCallFinished)]
    assert sorted(finished) == sorted(started)
    assert [e for e in events if isinstance(e, ev.Error)] == []  # no engine error either


def _one_result_each(history: list[Message]) -> None:
    for i, message in enumerate(history):
        ids = [u.id for u in message.tool_uses] if message.role == "assistant" else []
        if ids:
            results = [b.tool_use_id for b in history[i + 1].content if hasattr(b, "tool_use_id")]
            assert results == ids


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scripts)
def test_any_hook_decisions_keep_every_request_valid(script) -> None:
    turns, answers = script
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(_run(Path(tmp), turns, answers))
