"""What ``eddy -p TEXT`` sends: a slash command expanded as the interactive modes expand it.

- ``/name args``: a custom command (``.claude/commands``, ``.eddy/commands``, the user's, a
  skill) or a plugin's (``/plugin:command``): its body with ``$ARGUMENTS`` and ``$1``..
  filled in, its front matter's ``allowed-tools`` granted and ``model`` used for that turn,
  its ``!`cmd` `` run through the Bash rules (agent/prompt/commands.py).
- ``/mcp__server__prompt args``: the server's prompt (the server is waited for first: in
  ``-p`` nothing is connected yet when the prompt is read).
- ``@server:uri`` anywhere: the MCP resource is attached by the engine (the MCP extension's
  ``on_prompt``, which waits in ``-p`` for the servers it names).

Anything else, ``/usr/bin/env`` or a word that names no command included, is sent as it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agent import ops
from agent.prompt.commands import custom_commands, parse

if TYPE_CHECKING:
    from agent.session.core import Session


@dataclass(frozen=True)
class Expanded:
    """What to submit, or why nothing can be.

    Attributes:
        op: the prompt to submit (None when ``error``).
        error: a line for the user: the command exists but cannot be expanded.
    """

    op: ops.SubmitPrompt | None
    error: str | None = None


async def expand_prompt(session: Session, workspace: Path, text: str) -> Expanded:
    """The prompt ``eddy -p text`` submits (see the module docstring); never raises."""
    parsed = parse(text.strip())
    if parsed is None:
        return Expanded(ops.SubmitPrompt(text))
    name, arg = parsed
    if name.startswith("mcp__"):
        expanded = await _mcp_prompt(session, name, arg)
        if expanded is not None:
            return expanded
    try:
        command = custom_commands(workspace, session.config.plugins).get(name)
    except OSError:
        command = None
    if command is None:
        return Expanded(ops.SubmitPrompt(text))
    try:
        return Expanded(command.prompt_op(arg))
    except OSError as exc:
        return Expanded(None, f"/{name}: could not read {command.path}: {exc.strerror or exc}")


async def _mcp_prompt(session: Session, name: str, arg: str) -> Expanded | None:
    from agent.mcp.command import run_prompt, split_prompt_command
    from agent.mcp.manager import McpManager

    manager = session.extension(McpManager)
    server = name[len("mcp__") :].partition("__")[0]
    if manager is None or server not in manager.connections:
        return None
    await manager.wait_started([server])
    found = split_prompt_command(name, manager)
    if found is None:
        conn = manager.connections[server]
        if conn.state != "connected":
            why = f"is {conn.state}" + (f" ({conn.reason})" if conn.reason else "")
            return Expanded(None, f"/{name}: the MCP server {server} {why}.")
        offered = ", ".join(p.name for p in conn.prompts) or "none"
        return Expanded(None, f"/{name}: the MCP server {server} has no such prompt ({offered}).")
    try:
        prompt_text = await run_prompt(manager, found[0], found[1], arg)
    except Exception as exc:  # a server failure is a line, never a traceback
        return Expanded(None, f"/{name}: the MCP server {server} failed: {exc}")
    if not prompt_text.strip():
        return Expanded(None, f"/{name}: the MCP server {server} gave an empty prompt.")
    return Expanded(ops.SubmitPrompt(prompt_text))
