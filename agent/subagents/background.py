"""What the host keeps of a background child (``run_in_background``): its record for
``/tasks`` and for stopping it, and the one report it gives when it ends
(agent/session/reports.py delivers it).

The decision on Esc and stopping is in agent/subagents/host.py's docstring.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent.session.reports import Report, notification

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
        stopping: ``SubagentHost.stop`` asked it to stop (its report says so).
        description: the Agent call's short description (the report's name for it).
    """

    child: Child
    prompt: str
    started_at: float
    description: str = ""
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


def completion_report(record: BackgroundAgent, subtype: str, report: str) -> Report:
    """The report of background child ``record`` when it ends: its answer, or (stopped) that
    it was stopped, with the child's footer (turns, tokens, cost), in Claude Code's words
    (``Agent "x" finished``)."""
    child = record.child
    what = f'Agent "{record.description or record.agent_type}"'
    transcript = child.transcript
    output_file = str(transcript.path) if transcript is not None else ""
    fields = {"output_file": output_file, "tool_use_id": child.call_id}
    if record.stopping:
        footer = report.rpartition("\n\n")[2]
        summary = f"{what} was stopped"
        note = (
            "It was stopped before it finished (TaskStop, KillShell or the user's /tasks "
            "kill); it does no more work."
        )
        text = notification(record.id, "stopped", summary, note=f"{note} {footer}", **fields)
        return Report(record.id, "agent", "stopped", summary, text, output_file, wake=False)
    if subtype == "success":
        summary = f"{what} finished"
        text = notification(record.id, "completed", summary, result=report, **fields)
        return Report(record.id, "agent", "completed", summary, text, output_file)
    summary = f"{what} failed ({subtype})"
    text = notification(record.id, "failed", summary, result=report, **fields)
    return Report(record.id, "agent", "failed", summary, text, output_file)


def first_line(text: str, width: int = 60) -> str:
    """The first line of ``text``, shortened to ``width`` characters."""
    stripped = text.strip()
    line = stripped.splitlines()[0] if stripped else ""
    return line if len(line) <= width else line[: width - 1] + "…"
