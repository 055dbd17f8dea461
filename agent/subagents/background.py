"""What the host keeps of a background child (``run_in_background``): its record for
``/tasks`` and for stopping it, and the one notice the model reads when it ends.

The decision on Esc and stopping is in agent/subagents/host.py's docstring.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent.subagents.child import Child


@dataclass
class BackgroundAgent:
    """One background child, for ``/tasks`` and for stopping it.

    Attributes:
        child: the child (its ``turn`` has its turns and cost so far).
        prompt: its task.
        started_at: when it started (``time.time()``).
        status: running, completed, failed or stopped.
        stopping: ``SubagentHost.stop`` asked it to stop (its notice says so).
    """

    child: Child
    prompt: str
    started_at: float
    status: str = "running"
    stopping: bool = False

    @property
    def id(self) -> str:
        """The agent id."""
        return self.child.frame.agent_id

    @property
    def agent_type(self) -> str:
        """Its agent type's name."""
        return self.child.definition.name


def completion_notice(record: BackgroundAgent, subtype: str, report: str) -> str:
    """The one notice the model reads when background child ``record`` ends: its report, or
    (stopped) that it was stopped, with the child's footer (turns, tokens, cost)."""
    head = f"The background agent {record.id} ({record.agent_type})"
    if record.stopping:
        footer = report.rpartition("\n\n")[2]
        return (
            f"<system-reminder>{head} was stopped before it finished (TaskStop, KillShell or "
            f"the user's /tasks kill); it does no more work.\n{footer}</system-reminder>"
        )
    return f"<system-reminder>{head} finished ({subtype}). Its report:\n{report}</system-reminder>"


def first_line(text: str, width: int = 60) -> str:
    """The first line of ``text``, shortened to ``width`` characters."""
    stripped = text.strip()
    line = stripped.splitlines()[0] if stripped else ""
    return line if len(line) <= width else line[: width - 1] + "…"
