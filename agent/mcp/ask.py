"""The start-up question about a project's new MCP servers, UI-free (the front ends show it).

As Claude Code does, an interactive start in a project whose ``.mcp.json`` (or project
settings) names servers the user has not answered for yet asks once, after the first frame:
use this and all future servers of the project, use these, or continue without them. The
answer is remembered as ``/mcp approve|deny`` remembers it (:mod:`agent.mcp.approval`), and
the approved servers start at once. ``eddy -p`` never asks (it starts them).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal

from agent.mcp.approval import answer_of, needs_approval

if TYPE_CHECKING:
    from agent.mcp.manager import McpManager

Choice = Literal["all", "these", "none"]

CHOICES: tuple[tuple[Choice, str], ...] = (
    ("all", "Use this and all future MCP servers in this project"),
    ("these", "Use this MCP server"),
    ("none", "Continue without using this MCP server"),
)
PLURAL: dict[Choice, str] = {
    "these": "Use these MCP servers",
    "none": "Continue without using these MCP servers",
}
RISK = (
    "MCP servers may execute code or access system resources. "
    "Only use servers from a source you trust."
)


def unanswered(manager: McpManager | None, workspace: Path) -> list[str]:
    """The project servers waiting for an answer never given (not those denied before)."""
    if manager is None:
        return []
    return [
        name
        for name, conn in manager.connections.items()
        if conn.state == "needs-approval"
        and needs_approval(conn.config)
        and answer_of(workspace, name) is None
    ]


def waiting_line(names: list[str]) -> str:
    """What a front end that does not ask (line mode fed from a pipe, an editor over ACP)
    says about the servers :func:`unanswered` lists."""
    return (
        f"MCP: this project's new servers wait for your answer: {', '.join(names)}. "
        "/mcp approve NAME (or /mcp approve all) starts them; the answer is remembered."
    )


def title(names: list[str]) -> str:
    """The question's first line."""
    if len(names) == 1:
        return f"New MCP server found in .mcp.json: {names[0]}"
    return f"New MCP servers found in .mcp.json: {', '.join(names)}"


def options(names: list[str]) -> list[tuple[Choice, str]]:
    """The choices, in order, worded for one server or several."""
    if len(names) == 1:
        return list(CHOICES)
    return [(key, PLURAL.get(key, label)) for key, label in CHOICES]


def answer(manager: McpManager, workspace: Path, names: list[str], choice: Choice) -> list[str]:
    """Remember ``choice`` for ``names`` (as ``/mcp approve|deny``) and start what it approves.

    Returns:
        What to tell the user (one line per server, or why the answer was not kept).
    """
    from agent.mcp.approval import remember, remember_all

    out: list[str] = []
    yes = choice != "none"
    if choice == "all":
        try:
            remember_all(workspace)
        except OSError as exc:
            out.append(f"Could not remember the answer for this project: {exc}")
    for name in names:
        try:
            remember(workspace, name, yes)
        except OSError as exc:
            out.append(f"Could not remember the answer for {name}: {exc}")
        if yes:
            manager.approve(name)
    listed = ", ".join(names)
    if yes:
        out.append(f"MCP: approved for this project, starting: {listed}.")
    else:
        out.append(f"MCP: not using {listed} (/mcp approve NAME starts one later).")
    return out
