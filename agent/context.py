"""What fills the context window (``/context``) and what the session cost (``/cost``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent.messages import ToolResultBlock
from agent.model import estimate_tokens
from agent.pricing import context_window

if TYPE_CHECKING:
    from agent.session import Session

MEMORY_HEADING = "# Project instructions (from memory files)"


@dataclass(frozen=True)
class ContextBreakdown:
    """Estimated tokens per part of the next request, and the session's cache hit rate."""

    system: int
    memory: int
    tools: int
    messages: int
    tool_results: int
    window: int
    cache_hit_rate: float

    @property
    def total(self) -> int:
        return self.system + self.memory + self.tools + self.messages + self.tool_results

    def lines(self) -> list[str]:
        def row(name: str, n: int) -> str:
            return f"{name:<14}{n:>10,} tokens  {n / self.window:6.1%}"

        return [
            row("system prompt", self.system),
            row("memory files", self.memory),
            row("tools", self.tools),
            row("messages", self.messages),
            row("tool results", self.tool_results),
            row("total", self.total) + f" of {self.window:,}",
            f"cache hit rate {self.cache_hit_rate:.0%} of input tokens this session",
        ]


def breakdown(session: Session) -> ContextBreakdown:
    """Estimate each part of what the next request would send."""
    system = session.config.system
    base, _, memory = system.partition(MEMORY_HEADING)
    results = 0
    messages = 0
    for msg in session.history:
        for block in msg.content:
            n = estimate_tokens(block.to_param())
            if isinstance(block, ToolResultBlock):
                results += n
            else:
                messages += n
    usage = session.total_usage
    prompt = usage.prompt_tokens
    return ContextBreakdown(
        system=estimate_tokens(base) if base else 0,
        memory=estimate_tokens(memory) if memory else 0,
        tools=estimate_tokens(session.spec.tools) if session.spec.tools else 0,
        messages=messages,
        tool_results=results,
        window=context_window(session.config.model),
        cache_hit_rate=usage.cache_read_input_tokens / prompt if prompt else 0.0,
    )


def cost_lines(session: Session) -> list[str]:
    """The ``/cost`` report."""
    u = session.total_usage
    return [
        f"Total cost:     ${session.total_cost:.4f}",
        f"Input tokens:   {u.input_tokens:,} uncached, {u.cache_creation_input_tokens:,} "
        f"cache writes, {u.cache_read_input_tokens:,} cache reads",
        f"Output tokens:  {u.output_tokens:,}",
        f"Turns:          {session.turn_count}",
    ]
