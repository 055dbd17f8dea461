"""``/bashes`` (and ``/tasks``, Claude Code 2.1's name): the session's background shells and
background agents, one's output (``/bashes ID``: a shell's, live in the TUI, a snapshot in line
mode; an agent's transcript), and stopping one (``/bashes kill ID``, ``/tasks kill ID``:
``ops.KillShell``, which the session hands to the same path as the TaskStop tool)."""

from __future__ import annotations

import time
from typing import Any

from agent import ops
from tools.textfile import plural

USAGE = (
    "Usage: /bashes (or /tasks) lists the background shells and agents; /bashes ID shows "
    "one's output; /bashes kill ID stops one."
)
VIEW_LINES = 200
"""The last lines of a shell's output that ``/bashes ID`` shows."""
_VIEW_CHARS = 64_000


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


def shell_view(shell: Any, now: float | None = None) -> list[str]:
    """What ``/bashes ID`` shows of a shell: its id, status and command, then the last
    ``VIEW_LINES`` lines of its output (read from its log: what the model has not read yet
    stays unread for BashOutput)."""
    from frontend.sanitize import sanitize

    (head,) = shell_lines([shell], now)
    output = shell.log.tail(_VIEW_CHARS)
    lines = sanitize(output).splitlines()
    cut = len(lines) > VIEW_LINES or len(output) == _VIEW_CHARS
    lines = lines[-VIEW_LINES:]
    where = f" (all of it: {shell.log.path})" if cut and shell.log.path is not None else ""
    out = [head.strip()]
    if cut:
        out.append(f"… the last {len(lines)} lines{where}")
    return [*out, *(f"  {line}" for line in lines)] if lines else [*out, "  (no output yet)"]


def stopping_line(session: Any) -> str | None:
    """What eddy says at exit about the background work its close stops: ``Stopping 2
    background tasks: shell bash_1 (npm run dev), agent Explore a1b2c3 (find the callers).``;
    None when nothing runs."""
    from agent.subagents.background import first_line

    if session is None:
        return None
    parts = [
        f"shell {s.id} ({first_line(' '.join(str(s.command).split()))})"
        for s in session.shells.running()
    ]
    host = getattr(session.ctx, "subagents", None)
    agents = host.background_agents() if host is not None else []
    parts += [
        f"agent {a.agent_type} {a.id[:6]} ({first_line(a.prompt)})"
        for a in agents
        if a.status == "running"
    ]
    if not parts:
        return None
    return f"Stopping {plural(len(parts), 'background task')}: {', '.join(parts)}."


def find_task(session: Any, wanted: str) -> tuple[Any, Any, str]:
    """``/bashes ID``: (the shell, None, "") or (None, the agent, "") whose id is ``wanted``
    (an agent's: or starts with it), else (None, None, why not)."""
    shells = session.shells.shells
    if wanted in shells:
        return shells[wanted], None, ""
    host = getattr(session.ctx, "subagents", None)
    agents = host.background_agents() if host is not None else []
    found = [a for a in agents if a.id.startswith(wanted)]
    if len(found) == 1:
        return None, found[0], ""
    known = ", ".join([*shells, *(a.id for a in agents)]) or "none"
    how = "No" if not found else "More than one"
    return None, None, f"{how} background shell or agent has the id {wanted!r} (ids: {known})."


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
    return [
        *lines,
        "/bashes ID shows one's output; /bashes kill ID (or /tasks kill ID) stops one.",
    ], None
