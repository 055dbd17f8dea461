"""The background shells of a resumed session's earlier run: gone, and said so.

A background shell lives in eddy's process group; eddy's exit kills it (agent/session/shells.py).
A resumed session's history still holds the results that started them ("Command running in
background with ID: bash_1", Ctrl+B's "it runs on with ID: bash_1"), so without a word the
model would go on believing they run and ask BashOutput for them. ``gone_shells`` reads which
shells the history last saw running; the front door then tells the user (a line at start-up),
tells the model (``GoneShells``: a reminder with the next prompt, once), and numbers new shells
after the old ids, so ``bash_1`` never names two shells in one conversation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent.extension import Extension, PromptAddition
from agent.messages import Message, ToolResultBlock, ToolUseBlock

_STARTED = re.compile(r"(?:Command running in background with ID|it runs on with ID): (bash_\d+)")
_KILLED = re.compile(r"Successfully killed shell: (bash_\d+)")
_ENDED_STATUS = re.compile(r"<status>(completed|failed|killed)</status>")
_HEAD = 400
"""Characters of a Bash result that hold its first line (tools/bash.py)."""


@dataclass(frozen=True)
class GoneShell:
    """A shell the history last saw running: its id and command."""

    id: str
    command: str


def _text(block: ToolResultBlock) -> str:
    content = block.content
    if isinstance(content, str):
        return content
    return "".join(str(b.get("text", "")) for b in content if isinstance(b, dict))


def gone_shells(history: list[Message]) -> tuple[list[GoneShell], list[str]]:
    """The shells ``history`` last saw running (oldest first), and every shell id it names."""
    calls: dict[str, ToolUseBlock] = {}
    running: dict[str, GoneShell] = {}
    seen: list[str] = []
    for message in history:
        for block in message.content:
            if isinstance(block, ToolUseBlock):
                calls[block.id] = block
            elif isinstance(block, ToolResultBlock):
                call = calls.get(block.tool_use_id)
                started, ended = _report(call, block)
                if started is not None and call is not None:
                    command = " ".join(str(call.input.get("command", "")).split())
                    running[started] = GoneShell(started, command)
                    seen.append(started)
                elif ended is not None:
                    running.pop(ended, None)
    return list(running.values()), seen


def _report(call: ToolUseBlock | None, block: ToolResultBlock) -> tuple[str | None, str | None]:
    """The shell a result says was started, and the one it says ended (ids, or None).

    Only the results that can say so are read: a Bash result's first line (where both of its
    "runs in the background" forms put the id), KillShell's, BashOutput's. A long session's
    other outputs (megabytes of them) are never searched, and a file or an output that quotes
    these words says nothing about this session's shells."""
    name = call.name if call is not None else None
    if name == "Bash":
        started = _STARTED.search(_text(block)[:_HEAD])
        return (started.group(1) if started else None), None
    if name in (None, "KillShell"):
        killed = _KILLED.search(_text(block))
        return None, (killed.group(1) if killed else None)
    if call is not None and name == "BashOutput" and _ENDED_STATUS.search(_text(block)):
        return None, str(call.input.get("bash_id", ""))
    return None, None


def gone_line(shells: list[GoneShell]) -> str:
    """What the user reads at start-up about ``shells``."""
    names = ", ".join(f"{s.id} ({_short(s.command)})" for s in shells)
    return (
        f"Background shells of the earlier run ended when eddy exited: {names}. "
        "The model is told with your next prompt."
    )


def _short(command: str, width: int = 50) -> str:
    return command if len(command) <= width else command[: width - 1] + "…"


class GoneShells(Extension):
    """Tells the model, with the next prompt (once), that ``shells`` no longer run.

    Args:
        shells: the shells a resumed history last saw running.
    """

    name = "resumed shells"

    def __init__(self, shells: list[GoneShell]) -> None:
        self.shells = shells
        self.told = False

    async def on_prompt(self, text: str) -> PromptAddition | None:
        if self.told or not self.shells:
            return None
        self.told = True
        names = ", ".join(f"{s.id} ({_short(s.command, 100)})" for s in self.shells)
        note = (
            "<system-reminder>This session was resumed in a new eddy process. The background "
            f"shells of its earlier run were stopped when eddy exited: {names}. They no longer "
            "run and their output cannot be read: BashOutput and KillShell do not know them. "
            "Start a command again if it is still needed.</system-reminder>"
        )
        return PromptAddition(None, (note,))
