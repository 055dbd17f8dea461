"""What front ends show of running subagents, from ``SubagentEvent`` alone (UI-free).

``SubagentTracker`` keeps, per agent, the live figures the TUI's block under an Agent call
shows (its current tool, turns, cost, how it ended); ``subagent_line`` is the line mode's
one line per child event, prefixed by the agent.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent import events as ev
from frontend.sanitize import sanitize
from tools.textfile import plural

LINE_CHARS = 160
"""A child's text is cut to this in line mode (the child's answer is its parent's result)."""


@dataclass
class AgentLive:
    """One subagent as the user sees it while it runs and after.

    Attributes:
        agent_id: its id.
        agent_type: its definition's name.
        depth: 1 for a child of the main agent.
        call_id: the main agent's Agent call it runs under.
        activity: what it does now (``Read a.py``, ``thinking``), empty when finished.
        turns: its tool turns so far.
        cost_usd: its spend so far (its own children included).
        outcome: its end (``success``, ``interrupted``, ...), empty while it runs.
    """

    agent_id: str
    agent_type: str
    depth: int
    call_id: str
    activity: str = "starting"
    turns: int = 0
    cost_usd: float = 0.0
    outcome: str = ""

    def line(self) -> str:
        """``Explore a1b2c3: Read a.py · 2 turns · $0.0123``."""
        state = self.outcome or self.activity
        indent = "  " * (self.depth - 1)
        facts = f"{plural(self.turns, 'turn')} · ${self.cost_usd:.4f}"
        return f"{indent}{self.agent_type} {self.agent_id[:6]}: {state} · {facts}"


class SubagentTracker:
    """Follows ``SubagentEvent`` s; ``under(call_id)`` lists the agents of one Agent call."""

    def __init__(self) -> None:
        self.agents: dict[str, AgentLive] = {}

    def follow(self, event: ev.SubagentEvent) -> AgentLive:
        """Update the agent ``event`` is about; return it."""
        live = self.agents.get(event.agent_id)
        if live is None:
            live = AgentLive(event.agent_id, event.agent_type, event.depth, event.call_id)
            self.agents[event.agent_id] = live
        inner = event.event
        kind = inner.get("type")
        if kind == "model_call_started":
            live.activity = "thinking"
        elif kind == "tool_call_started":
            name, summary = str(inner.get("name", "")), str(inner.get("summary", ""))
            live.activity = f"{name} {_cut(summary)}".strip()
        elif kind == "usage_updated":
            live.cost_usd = float(inner.get("total_cost_usd", live.cost_usd))
        elif kind == "turn_finished":
            live.turns = int(inner.get("num_turns", live.turns))
            live.cost_usd = float(inner.get("cost_usd", live.cost_usd))
            live.outcome = str(inner.get("subtype", "done"))
            live.activity = ""
        if kind == "assistant_message" and inner.get("stop_reason") == "tool_use":
            live.turns += 1
        return live

    def under(self, call_id: str) -> list[AgentLive]:
        """The agents running (or run) under the main agent's Agent call ``call_id``."""
        return [a for a in self.agents.values() if a.call_id == call_id]

    def running(self) -> list[AgentLive]:
        """The agents that have not finished."""
        return [a for a in self.agents.values() if not a.outcome]


def subagent_line(event: ev.SubagentEvent) -> str | None:
    """The line mode's line for a child's event (None: it prints nothing for it)."""
    inner = event.event
    kind = inner.get("type")
    who = f"{'  ' * (event.depth - 1)}[{event.agent_type} {event.agent_id[:6]}]"
    if kind == "turn_started":
        return f"{who} started: {_cut(str(inner.get('prompt', '')))}"
    if kind == "tool_call_started":
        summary = str(inner.get("summary", ""))
        return f"{who} {inner.get('name')} {_cut(summary)}".rstrip()
    if kind == "tool_call_finished" and inner.get("is_error"):
        content = inner.get("content")
        text = content if isinstance(content, str) else "failed"
        return f"{who} {inner.get('name')} {inner.get('status')}: {_cut(text)}"
    if kind == "assistant_message":
        text = " ".join(
            str(b.get("text", ""))
            for b in inner.get("message", {}).get("content", [])
            if b.get("type") == "text"
        )
        return f"{who} {_cut(text)}" if text.strip() else None
    if kind in ("notice", "error"):
        return f"{who} {_cut(str(inner.get('text') or inner.get('message') or ''))}"
    if kind == "turn_finished":
        cost = float(inner.get("cost_usd", 0.0))
        turns = inner.get("num_turns", 0)
        return f"{who} {inner.get('subtype')}: {plural(int(turns), 'turn')}, ${cost:.4f}"
    return None


def _cut(text: str) -> str:
    one = " ".join(sanitize(text).split())
    return one if len(one) <= LINE_CHARS else one[: LINE_CHARS - 1] + "…"
