"""PreToolUse inside the permission gate (agent/session/gate.py).

Claude Code's order: the hooks run first. A hook's deny (or exit 2) refuses the call, whatever
the rules say; its ask asks although a rule or the mode would allow; its allow skips the
question, but deny and ask rules (and protected files) still apply. ``updatedInput`` replaces
the input, checked against the tool's schema first, and the rules judge the new input. The
refusal is an ordinary refused result, in tool_use order (LOOP-MODEL.md).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable

from agent.hooks.engine import HookEngine
from agent.hooks.outcome import HookVerdict
from agent.messages import ToolUseBlock
from agent.permissions.policy import Decision, Policy, Rule
from agent.toolrun import GateDecision
from tools.base import Tool
from tools.schema import validate

Decide = Callable[[ToolUseBlock, Tool, HookVerdict | None], Awaitable[GateDecision]]


async def hook_gate(
    hooks: HookEngine, use: ToolUseBlock, tool: Tool, decide: Decide
) -> GateDecision:
    """Run the PreToolUse hooks for ``use``, then ``decide`` (policy and user) on the result."""
    verdict = await hooks.pre_tool_use(use)
    if verdict.stop:  # continue: false wins over any decision; the turn ends after the batch
        why = verdict.stop_reason or "a PreToolUse hook returned continue: false"
        return GateDecision(False, f"{use.name} was not run: a PreToolUse hook stopped eddy: {why}")
    if verdict.blocked:
        why = verdict.reason.strip() or "no reason given"
        return GateDecision(False, f"A PreToolUse hook refused this {use.name} call: {why}")
    if verdict.updated_input is not None:
        problem = validate(tool.input_schema, verdict.updated_input)
        if problem:
            text = (
                f"A PreToolUse hook rewrote this {use.name} call's input, and the new input is "
                f"invalid: {problem}. Nothing was run."
            )
            return GateDecision(False, text, failed=True)
        use = dataclasses.replace(use, input=verdict.updated_input)
    decision = await decide(use, tool, verdict)
    if decision.allow:
        decision = dataclasses.replace(
            decision, updated_input=verdict.updated_input, context=verdict.context
        )
    return decision


def hook_allowed(policy: Policy, tool: Tool) -> Policy:
    """The policy as a hook's allow leaves it: the tool allowed by name, so only deny rules,
    ask rules and protected files (which beat allow rules) still stop or ask."""
    return dataclasses.replace(policy, allow=[*policy.allow, Rule.parse(tool.name)])


def hook_ask(use: ToolUseBlock, verdict: HookVerdict) -> Decision:
    """A hook's ask on a call the rules would allow: a question, with the hook's reason."""
    why = verdict.reason.strip() or f"A PreToolUse hook asks before this {use.name} call."
    return Decision("ask", why, None, f"PreToolUse hook: {why}")
