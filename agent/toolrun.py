"""Running the tool calls of one response: validate, gate, execute, collect results in order.

Read-only calls that follow each other run concurrently; a state-changing call runs alone, in
the order the model wrote it. Every call ends as exactly one ``ToolResultBlock``: a failure,
unknown tool, invalid input or refusal is an ``is_error`` result, never an exception out of
the loop. Results are kept per call id so that an interrupt can fill in only the missing ones.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from agent import events as ev
from agent.messages import ToolResultBlock, ToolUseBlock
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
    """

    allow: bool
    reason: str = ""
    grant: Grant | None = None
    failed: bool = False


Gate = Callable[[ToolUseBlock, "Tool | None"], Awaitable[GateDecision]]
Race = Callable[[Awaitable[Any]], Awaitable[Any]]


def allow_all_gate() -> Gate:
    async def gate(_use: ToolUseBlock, _tool: Tool | None) -> GateDecision:
        return GateDecision(True)

    return gate


def tool_param(tool: Tool) -> dict[str, Any]:
    """The tool as the API's ``tools`` entry."""
    return {"name": tool.name, "description": tool.description, "input_schema": tool.input_schema}


def _text_of(content: str | list[dict[str, Any]]) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content if b.get("type") == "text")


class ToolRunner:
    """Executes calls for the loop. One per session; ``turn_id`` is set by each turn."""

    def __init__(
        self,
        tools: list[Tool],
        ctx: ToolContext,
        gate: Gate,
        emit: Callable[[ev.Event], None],
    ) -> None:
        self.tools = {t.name: t for t in tools}
        self.ctx = ctx
        self.gate = gate
        self.emit = emit
        self.turn_id = 0
        self._results: dict[str, ToolResultBlock] = {}
        self._started: set[str] = set()
        self.after_call: Callable[[], None] | None = None
        """Called after every executed call, however it ended (checkpoints settle here)."""

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
                    approved.append((use, decision.grant))
            if approved:
                jobs = [self._execute(use, grant) for use, grant in approved]
                await race(asyncio.gather(*jobs))
        return [self._results[u.id] for u in uses]

    def _is_read_only(self, use: ToolUseBlock) -> bool:
        tool = self.tools.get(use.name)
        return bool(tool is not None and tool.read_only)

    async def _admit(self, use: ToolUseBlock, race: Race) -> GateDecision | None:
        """Check the input, then ask the gate; the decision of an allowed call, else None.

        A rejected call gets its error result here.
        """
        if use.input_error is not None:  # malformed by the model: say so, so it can retry
            msg = f"{use.name} was not run: {use.input_error}."
            self._finish(use, ToolResult(msg, is_error=True), "failed")
            return None
        tool = self.tools.get(use.name)
        if tool is None:
            known = ", ".join(sorted(self.tools))
            msg = f"No such tool: {use.name}. Available tools: {known}."
            self._finish(use, ToolResult(msg, is_error=True), "failed")
            return None
        problem = validate(tool.input_schema, use.input)
        if problem:
            msg = f"Invalid input for {use.name}: {problem}. Nothing was run."
            self._finish(use, ToolResult(msg, is_error=True), "failed")
            return None
        decision: GateDecision = await race(self.gate(use, tool))
        if not decision.allow:
            msg = decision.reason or f"Permission to use {use.name} was denied."
            status: ev.ToolStatus = "failed" if decision.failed else "refused"
            self._finish(use, ToolResult(msg, is_error=True), status)
            return None
        return decision

    async def _execute(self, use: ToolUseBlock, grant: Grant | None = None) -> None:
        tool = self.tools[use.name]
        self._started.add(use.id)
        self.emit(ev.ToolCallRunning(self.turn_id, use.id))
        turn_id = self.turn_id

        def output(text: str) -> None:
            self.emit(ev.ToolOutputDelta(turn_id, use.id, text))

        try:
            result = await tool.run(use.input, self.ctx.for_call(output, grant, use.id))
        except ToolError as exc:
            result = ToolResult(str(exc) or f"{use.name} failed", is_error=True)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a tool bug must not end the loop
            result = ToolResult(f"{use.name} failed: {type(exc).__name__}: {exc}", is_error=True)
        finally:
            if self.after_call is not None:
                try:
                    self.after_call()
                except Exception:  # a checkpoint problem must not fail the call
                    pass
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
