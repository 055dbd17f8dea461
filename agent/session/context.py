"""What fills the context window (``/context``) and what the session cost (``/cost``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent.messages import Message, ToolResultBlock
from agent.model.pricing import context_window
from agent.model.protocol import estimate_tokens

if TYPE_CHECKING:
    from agent.session.core import Session

MEMORY_HEADING = "# Project instructions (from memory files)"


def estimate_context(
    history: Sequence[Message], system: list[dict[str, Any]], tools: list[dict[str, Any]]
) -> int:
    """Estimate the context a request with this history would fill, before any call says.

    Used where the last call's figure no longer describes the history: after a compaction
    or a rewind, and when resuming a session whose transcript recorded no call since then.
    """
    if not history:
        return 0
    total = estimate_tokens([m.to_param() for m in history])
    if system:
        total += estimate_tokens(system)
    if tools:
        total += estimate_tokens(tools)
    return total


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
    usage = session.spend.total_usage
    prompt = usage.prompt_tokens
    return ContextBreakdown(
        system=estimate_tokens(base) if base else 0,
        memory=estimate_tokens(memory) if memory else 0,
        tools=estimate_tokens(session.tools.params()) if session.tools.params() else 0,
        messages=messages,
        tool_results=results,
        window=context_window(session.config.model),
        cache_hit_rate=usage.cache_read_input_tokens / prompt if prompt else 0.0,
    )


def budget_line(session: Session) -> str:
    """What ``/budget`` says: the spend the cap is checked against, and the cap.

    In an interactive session that is the session's total (what the status line shows,
    including what was spent before a resume); in a headless run, what this run spent.
    """
    cap = session.config.limits.max_budget_usd
    spent = f"${session.spend.budget_spent(session.config.headless):.4f} spent"
    if cap is None:
        return f"Budget: {spent}, no cap."
    scope = "this run" if session.config.headless else "this session"
    return f"Budget: {spent} of ${cap:.2f} ({scope})."


def budget_command(session: Session, arg: str) -> tuple[str, bool]:
    """``/budget [AMOUNT]``: set the cap (0 removes it) or show it; returns what to say and
    whether it is an error (nothing changed)."""
    from agent import ops

    if not arg.strip():
        return f"{budget_line(session)} /budget AMOUNT sets it (in $); /budget 0 removes it.", False
    try:
        value = float(arg.strip().lstrip("$").replace(",", ""))
    except ValueError:
        return f"/budget takes an amount in dollars, e.g. /budget 5 (not {arg!r}).", True
    session.submit(ops.SetLimits(max_budget_usd=value))
    cap = session.config.limits.max_budget_usd
    return (
        "Budget cap removed." if cap is None else f"Budget set to ${cap:.2f} for this session."
    ), False


def turns_command(session: Session, arg: str) -> tuple[str, bool]:
    """``/turns [N]``: set the cap on tool turns per prompt (0 removes it) or show it; returns
    what to say and whether it is an error (nothing changed)."""
    from agent import ops

    if not arg.strip():
        cap = session.config.limits.max_turns
        now = f"{cap} tool turns per prompt" if cap is not None else "none"
        return f"Turn cap: {now}. /turns N sets it; /turns 0 removes it.", False
    try:
        value = int(arg.strip())
    except ValueError:
        return f"/turns takes a whole number, e.g. /turns 20 (not {arg!r}).", True
    session.submit(ops.SetLimits(max_turns=value))
    cap = session.config.limits.max_turns
    return ("Turn cap removed." if cap is None else f"Turn cap set to {cap} per prompt."), False


def cost_lines(session: Session) -> list[str]:
    """The ``/cost`` report."""
    u = session.spend.total_usage
    return [
        f"Total cost:     ${session.total_cost:.4f}",
        f"Input tokens:   {u.input_tokens:,} uncached, {u.cache_creation_input_tokens:,} "
        f"cache writes, {u.cache_read_input_tokens:,} cache reads",
        f"Output tokens:  {u.output_tokens:,}",
        f"Turns:          {session.spend.turns}",
    ]
