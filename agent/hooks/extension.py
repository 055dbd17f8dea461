"""Hooks as a session extension: each of Claude Code's hook events at its hook point.

==================  =========================================================
hook point          hook events
==================  =========================================================
``on_prompt``       SessionStart (the first prompt), UserPromptSubmit
``before_tool``     PreToolUse: deny, ask, allow, ``updatedInput``, context
``after_tool``      PostToolUse / PostToolUseFailure: feedback, context
``on_stop``         Stop (the main agent), SubagentStop (a subagent)
``before_compact``  PreCompact (a block keeps the conversation)
``after_compact``   SessionStart with source ``compact``
``on_event``        Notification (a permission question waits; the user idles)
``aclose``          SessionEnd
==================  =========================================================

The engine (agent/hooks/engine.py) runs the handlers and reads their verdicts; this class
only says what a verdict means to the session.
"""

from __future__ import annotations

from collections.abc import Callable

from agent import events as ev
from agent.extension import Extension, PromptAddition, StopRequest, ToolCall, ToolVerdict
from agent.hooks.engine import HookEngine
from tools.base import ToolResult


class HooksExtension(Extension):
    """The configured hooks of one session.

    Args:
        engine: runs the handlers.
        resumed: whether the session continues a saved one (SessionStart's source).
    """

    name = "hooks"

    def __init__(self, engine: HookEngine, resumed: Callable[[], bool]) -> None:
        self.engine = engine
        self._resumed = resumed

    async def on_prompt(self, text: str) -> PromptAddition | None:
        if not self.engine.config.groups:
            return None
        blocked, context = await self.engine.before_prompt(text, self._resumed())
        return PromptAddition(blocked, tuple(context))

    async def before_tool(self, call: ToolCall) -> ToolVerdict | None:
        engine, name = self.engine, call.use.name
        if not engine.has("PreToolUse"):
            return None
        verdict = await engine.pre_tool_use(call.as_run())
        if verdict.stop:  # continue: false wins over any decision
            why = verdict.stop_reason or "a PreToolUse hook returned continue: false"
            return ToolVerdict(halt=f"a PreToolUse hook stopped eddy: {why}")
        if verdict.blocked:
            why = verdict.reason.strip() or "no reason given"
            return ToolVerdict("deny", f"A PreToolUse hook refused this {name} call: {why}")
        context = verdict.context.strip()
        reason = verdict.reason.strip()
        if verdict.decision == "ask":
            reason = f"PreToolUse hook: {reason}" if reason else ""
            reason = reason or f"A PreToolUse hook asks before this {name} call."
        decision = verdict.decision if verdict.decision in ("allow", "ask") else None
        return ToolVerdict(
            decision,  # type: ignore[arg-type]
            reason,
            verdict.updated_input,
            f"PreToolUse hook context: {context}" if context else "",
        )

    async def after_tool(self, call: ToolCall, result: ToolResult) -> ToolResult:
        result, halt = await self.engine.post_tool_use(call.as_run(), call.input, result)
        if halt is not None:
            call.halt = halt
        return result

    async def on_stop(self, stop: StopRequest) -> str | None:
        engine = self.engine
        if not stop.agent_id:
            return await engine.on_stop(list(stop.history), stop.active)
        if not engine.has("SubagentStop"):
            return None
        verdict = await engine.subagent_stop(
            stop.agent_id, stop.agent_type, stop.active, stop.transcript_path
        )
        if verdict.stop or not verdict.blocked or not verdict.reason.strip():
            return None
        return verdict.reason

    async def before_compact(self, trigger: str, focus: str, turn_id: int) -> str | None:
        if not self.engine.has("PreCompact"):
            return None
        verdict = await self.engine.pre_compact(trigger, focus, turn_id)
        if verdict.blocked:
            return f"A PreCompact hook blocked the compaction: {verdict.reason}"
        return None

    async def after_compact(self) -> None:
        if self.engine.has("SessionStart"):  # its output joins the next prompt
            await self.engine.session_start("compact")

    def on_event(self, event: ev.Event) -> None:
        if isinstance(event, ev.PermissionRequested):
            self.engine.notify(
                f"Claude needs your permission to use {event.name}", "permission_prompt"
            )
        elif isinstance(event, ev.TurnStarted):
            self.engine.idle_ended()
        elif isinstance(event, ev.TurnFinished):
            self.engine.idle_started()

    async def aclose(self, reason: str) -> None:
        await self.engine.session_end(reason)
        await self.engine.aclose()
