"""``/bashes``: the session's background shells, and killing one (``/bashes kill ID``)."""

from __future__ import annotations

import time
from typing import Any

from agent import ops

USAGE = "Usage: /bashes lists the background shells; /bashes kill ID stops one."


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
    if not shells:
        return [
            "No background shells. (Bash with run_in_background starts one; Ctrl+B "
            "sends a running command to the background.)"
        ], None
    running = sum(1 for s in shells if s.status == "running")
    head = f"Background shells ({running} running):"
    return [head, *shell_lines(shells), "/bashes kill ID stops one."], None
