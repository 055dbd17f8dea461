"""``/bashes`` (and ``/tasks``, Claude Code 2.1's name): the session's background shells and
background agents, and stopping one (``/bashes kill ID``, ``/tasks kill ID``: ``ops.KillShell``,
which the session hands to the same path as the TaskStop tool)."""

from __future__ import annotations

import time
from typing import Any

from agent import ops
from tools.textfile import plural

USAGE = (
    "Usage: /bashes (or /tasks) lists the background shells and agents; /bashes kill ID stops one."
)


def _age(seconds: float) -> str:
    seconds = int(max(seconds, 0))
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m {seconds}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes}m"


def shell_lines(shells: list[Any], now: float | None = None) -> list[str]:
    """One line per shell: id, status (with its age or exit code), command."""
    now = time.time() if now is None else now
    lines = []
    for shell in shells:
        if shell.status == "running":
            state = f"running {_age(now - shell.started_at)}"
        elif shell.exit_code is not None:
            state = f"{shell.status} (exit {shell.exit_code})"
        else:
            state = shell.status
        command = " ".join(str(shell.command).split())
        if len(command) > 80:
            command = command[:79] + "…"
        lines.append(f"  {shell.id:<8} {state:<18} {command}")
    return lines


def agent_lines(agents: list[Any], now: float | None = None) -> list[str]:
    """One line per background agent: id, type, status (with its age), turns, cost, and the
    first line of its prompt."""
    from agent.subagents.background import first_line

    now = time.time() if now is None else now
    lines = []
    for agent in agents:
        state = agent.status
        if state == "running":
            state = f"running {_age(now - agent.started_at)}"
        turn = agent.child.turn
        facts = f"{plural(turn.turns, 'turn')}, ${turn.cost:.4f}"
        lines.append(
            f"  {agent.id:<12} {agent.agent_type:<16} {state:<14} {facts:<20} "
            f"{first_line(agent.prompt)}"
        )
    return lines


def bashes_command(session: Any, arg: str) -> tuple[list[str], ops.Op | None]:
    """What ``/bashes ARG`` says, and the operation it submits (a kill), if any."""
    words = arg.split()
    if words and words[0] == "kill":
        if len(words) != 2:
            return [USAGE], None
        return [], ops.KillShell(words[1])
    if words:
        return [USAGE], None
    shells = session.shells.listing()
    host = getattr(session.ctx, "subagents", None)
    agents = host.background_agents() if host is not None else []
    if not shells and not agents:
        return [
            "No background shells or agents. (Bash or Agent with run_in_background starts "
            "one; Ctrl+B sends a running command to the background.)"
        ], None
    lines = []
    if shells:
        running = sum(1 for s in shells if s.status == "running")
        lines += [f"Background shells ({running} running):", *shell_lines(shells)]
    if agents:
        running = sum(1 for a in agents if a.status == "running")
        lines += [f"Background agents ({running} running):", *agent_lines(agents)]
    return [*lines, "/bashes kill ID (or /tasks kill ID) stops one."], None
