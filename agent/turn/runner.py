"""Running the tool calls of one response: validate, gate, execute, collect results in order.

Read-only calls that follow each other run concurrently; a state-changing call runs alone, in
the order the model wrote it. Every call ends as exactly one ``ToolResultBlock``: a failure,
unknown tool, invalid input or refusal is an ``is_error`` result, never an exception out of
the loop. Results are kept per call id so that an interrupt can fill in only the missing ones.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from agent import events as ev
from agent.extension import Extensions, ToolCall
from agent.messages import ToolResultBlock, ToolUseBlock
from agent.turn.toolset import ToolSet
from tools.base import Grant, Tool, ToolContext, ToolError, ToolResult
from tools.schema import validate

MAX_RESULT_CHARS = 100_000
"""A last-resort cap on one result's text (tools cap their own output well below this)."""


@dataclass(frozen=True)
class GateDecision:
    """The gate's answer: run the call, or refuse it (``reason`` goes to the model).

    ``grant`` says why an allowed call may run; the tool sees it as ``ctx.grant`` (Bash picks
    its sandbox profile from it). None is treated like an allow rule.

    ``failed`` marks a call not run because it cannot succeed (the tool's precheck): its
    result is an ordinary failure with ``reason`` as its text, not a refusal.

    ``updated_input`` (an extension's, already checked against the tool's schema) is the
    input the call runs with; ``context`` is extension text added to the call's result.

    ``halt``: an extension stopped the turn (a hook's ``continue: false``); the runner refuses
    the rest of the batch and the loop ends the turn once the results are in.
    """

    allow: bool
    reason: str = ""
    grant: Grant | None = None
    failed: bool = False
    updated_input: dict[str, Any] | None = None
    context: str = ""
    halt: str | None = None


Gate = Callable[[ToolUseBlock, "Tool | None"], Awaitable[GateDecision]]
Race = Callable[[Awaitable[Any]], Awaitable[Any]]


def allow_all_gate() -> Gate:
    async def gate(_use: ToolUseBlock, _tool: Tool | None) -> GateDecision:
        return GateDecision(True)

    return gate


class ToolRunner:
    """Executes calls for the loop. One per session (and one per subagent); ``turn_id`` is
    set by each turn.

    Args:
        tools: the tools a call's name finds (a list is made a ToolSet).
        ctx: the tools' context.
        gate: decides each call (agent/session/gate.py).
        emit: the event sink.
        extensions: told after each executed call (``tool_ended``, ``after_tool``); None:
            none (tests of the runner alone).
    """

    def __init__(
        self,
        tools: ToolSet | list[Tool],
        ctx: ToolContext,
        gate: Gate,
        emit: Callable[[ev.Event], None],
        extensions: Extensions | None = None,
    ) -> None:
        self.tools = tools if isinstance(tools, ToolSet) else ToolSet(tools)
        self.ctx = ctx
        self.gate = gate
        self.emit = emit
        self.extensions = extensions
        self.turn_id = 0
        self._results: dict[str, ToolResultBlock] = {}
        self._started: set[str] = set()
        self.halt_reason: str | None = None
        """Set by :meth:`halt` (an extension's halt, a hook's ``continue: false``): the
        batch's remaining calls are refused and the loop ends the turn once the results are
        in."""

    def _finish(
        self, use: ToolUseBlock, result: ToolResult, status: ev.ToolStatus
    ) -> ToolResultBlock:
        content = result.content
        if not isinstance(content, str):  # the API refuses blank text inside a result too
            content = [b for b in content if b.get("type") != "text" or b.get("text", "").strip()]
            content = content or "(no output)"
        if isinstance(content, str):
            if not content.strip():
                content = "(no output)"
            elif len(content) > MAX_RESULT_CHARS:
                cut = len(content) - MAX_RESULT_CHARS
                content = content[:MAX_RESULT_CHARS] + f"\n[... {cut} more characters cut]"
        block = ToolResultBlock(
            use.id, content if isinstance(content, str) else tuple(content), result.is_error
        )
        self._results[use.id] = block
        self.emit(
            ev.ToolCallFinished(
                self.turn_id, use.id, use.name, status, content, result.is_error, result.display
            )
        )
        if result.display and result.display.get("kind") == "todos":
            self.emit(ev.TodosUpdated(self.turn_id, tuple(result.display.get("todos", ()))))
        return block

    def _summary(self, use: ToolUseBlock) -> str:
        tool = self.tools.get(use.name)
        if tool is None:
            return ""
        try:
            return tool.summary(use.input)
        except Exception:
            return ""

    async def run_all(self, uses: list[ToolUseBlock], race: Race) -> list[ToolResultBlock]:
        """Gate and run ``uses``; return their results in tool_use order.

        Args:
            uses: the response's tool calls, in the model's order.
            race: awaits something unless the user interrupts (then raises ``TurnInterrupted``).
        """
        self._results = {}
        self._started = set()
        self.halt_reason = None
        for use in uses:
            self.emit(
                ev.ToolCallStarted(self.turn_id, use.id, use.name, use.input, self._summary(use))
            )
        i = 0
        while i < len(uses):
            batch = [uses[i]]
            if self._is_read_only(uses[i]):
                while i + len(batch) < len(uses) and self._is_read_only(uses[i + len(batch)]):
                    batch.append(uses[i + len(batch)])
            i += len(batch)
            approved = []
            for use in batch:
                decision = await self._admit(use, race)
                if decision is not None:
                    approved.append((use, decision))
            if approved:  # a coroutine: if Esc came as the gate answered, it never starts
                await race(self._execute_batch(approved))
        return [self._results[u.id] for u in uses]

    async def _execute_batch(self, approved: list[tuple[ToolUseBlock, GateDecision]]) -> None:
        """Run the calls of a batch together (read-only ones; a batch of one otherwise)."""
        await asyncio.gather(*(self._execute(use, d) for use, d in approved))

    def halt(self, reason: str) -> None:
        """Stop the turn after this batch (see ``halt_reason``)."""
        self.halt_reason = reason

    def _is_read_only(self, use: ToolUseBlock) -> bool:
        tool = self.tools.get(use.name)
        # ``concurrent``: a tool that may run in parallel without counting as read-only for
        # the permission policy (an MCP tool its server annotates read-only)
        return bool(tool is not None and (tool.read_only or getattr(tool, "concurrent", False)))

    async def _admit(self, use: ToolUseBlock, race: Race) -> GateDecision | None:
        """Check the input, then ask the gate; the decision of an allowed call, else None.

        A rejected call gets its error result here.
        """
        if self.halt_reason is not None:
            msg = f"{use.name} was not run: {self.halt_reason}"
            self._finish(use, ToolResult(msg, is_error=True), "refused")
            return None
        if use.input_error is not None:  # malformed by the model: say so, so it can retry
            msg = f"{use.name} was not run: {use.input_error}."
            self._finish(use, ToolResult(msg, is_error=True), "failed")
            return None
        tool = self.tools.get(use.name)
        if tool is None:
            known = ", ".join(self.tools.names())
            msg = f"No such tool: {use.name}. Available tools: {known}."
            self._finish(use, ToolResult(msg, is_error=True), "failed")
            return None
        problem = validate(tool.input_schema, use.input)
        if problem:
            msg = f"Invalid input for {use.name}: {problem}. Nothing was run."
            self._finish(use, ToolResult(msg, is_error=True), "failed")
            return None
        decision: GateDecision = await race(self.gate(use, tool))
        if decision.halt is not None:
            self.halt(decision.halt)
        if not decision.allow:
            msg = decision.reason or f"Permission to use {use.name} was denied."
            status: ev.ToolStatus = "failed" if decision.failed else "refused"
            self._finish(use, ToolResult(msg, is_error=True), status)
            return None
        return decision

    async def _execute(self, use: ToolUseBlock, decision: GateDecision) -> None:
        tool = self.tools.get(use.name)
        assert tool is not None  # admitted calls name a tool
        grant, updated_input = decision.grant, decision.updated_input
        run = use if updated_input is None else dataclasses.replace(use, input=updated_input)
        call = ToolCall(
            use, tool, run.input, context=[decision.context] if decision.context else []
        )
        self._started.add(use.id)
        self.emit(ev.ToolCallRunning(self.turn_id, use.id))
        turn_id = self.turn_id

        def output(text: str) -> None:
            self.emit(ev.ToolOutputDelta(turn_id, use.id, text))

        try:
            result = await tool.run(run.input, self.ctx.for_call(output, grant, use.id))
        except ToolError as exc:
            result = ToolResult(str(exc) or f"{use.name} failed", is_error=True)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a tool bug must not end the loop
            result = ToolResult(f"{use.name} failed: {type(exc).__name__}: {exc}", is_error=True)
        finally:
            if self.extensions is not None:  # checkpoints settle, however the call ended
                self.extensions.tool_ended(call)
        if self.extensions is not None:  # notes, PostToolUse feedback; then the verdicts' context
            result = await self.extensions.after_tool(call, result)
            if call.halt is not None:
                self.halt(call.halt)
        for note in call.context:
            result = result.with_note(note)
        self._finish(use, result, "failed" if result.is_error else "done")

    def interrupted_results(self, uses: list[ToolUseBlock]) -> list[ToolResultBlock]:
        """Results for ``uses`` after an interrupt: real ones where finished, errors elsewhere."""
        out = []
        for use in uses:
            block = self._results.get(use.id)
            if block is None:
                text = (
                    "The user interrupted this tool call; it did not finish."
                    if use.id in self._started
                    else "The user interrupted before this tool call started; it did not run."
                )
                block = self._finish(use, ToolResult(text, is_error=True), "interrupted")
            out.append(block)
        return out
