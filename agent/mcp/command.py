"""``/mcp`` and ``/mcp__<server>__<prompt>``: what the commands say and do, UI-free.

``/mcp`` lists the servers (scope, transport, state with its reason, tools, prompts,
resources); ``/mcp reconnect [NAME]`` restarts one (or every server that is down);
``/mcp login|logout NAME`` runs or forgets an OAuth login (:mod:`agent.mcp.oauth`);
``/mcp approve NAME|all`` and ``/mcp deny NAME`` answer for a project's servers, remembered
per project. A server's prompt is a slash command: ``/mcp__server__prompt args`` fills its
arguments in order (the last takes the rest of the line) and sends the result as the prompt.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent.mcp.manager import McpManager

Line = tuple[str, str]
"""(text, kind): kind is "hint", "notice" or "error" (frontend.commands.Kind)."""

DOWN = ("failed", "needs-auth", "stopped")

_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _inert(text: str) -> str:
    """A server's text with no control character left: the listing is printed as it is by
    line mode, and an ESC in a tool name or an error would be a terminal sequence."""
    return _CONTROLS.sub("", text)


def listing(manager: McpManager) -> list[Line]:
    """Every server with its state, tools, prompts and resources."""
    lines = ["MCP servers:"]
    for conn in manager.connections.values():
        c = conn.config
        where = c.command if c.kind == "stdio" else c.url
        state = conn.state + (f" ({_inert(conn.reason)})" if conn.reason else "")
        if c.kind != "stdio":
            from agent.mcp.oauth import has_tokens

            state += ", logged in (/mcp logout)" if has_tokens(c) else ""
        lines.append(f"  {conn.name}  [{c.scope}, {c.kind}: {where}]  {state}")
        if conn.tools:
            names = ", ".join(_inert(t.name) for t in conn.tools)
            lines.append(f"      tools: {names}")
        if conn.prompts:
            names = ", ".join(f"/mcp__{conn.name}__{_inert(p.name)}" for p in conn.prompts)
            lines.append(f"      prompts: {names}")
        if conn.resources:
            lines.append(f"      resources: {len(conn.resources)} (@{conn.name}:URI attaches one)")
    lines.append("/mcp reconnect [NAME] restarts a server; /mcp login|logout NAME for OAuth;")
    lines.append("/mcp approve|deny NAME answers for a project's servers (.mcp.json).")
    return [("\n".join(lines), "hint")]


async def mcp_command(manager: McpManager | None, arg: str, workspace: Any) -> list[Line]:
    """Run ``/mcp arg``; the lines to show."""
    if manager is None:
        return [
            (
                "No MCP servers are configured. Add them to .mcp.json (project), "
                "~/.claude.json, eddy's settings (mcpServers) or pass --mcp-config FILE.",
                "hint",
            )
        ]
    verb, _, rest = arg.strip().partition(" ")
    name = rest.strip()
    if not verb:
        return listing(manager)
    if verb == "reconnect":
        return await _reconnect(manager, name)
    if verb in ("login", "logout"):
        return await _auth(manager, name, verb)
    if verb in ("approve", "deny"):
        return _answer(manager, name, verb == "approve", workspace)
    return [(f"Unknown /mcp {verb}: use /mcp, /mcp reconnect [NAME], /mcp approve NAME.", "error")]


async def _reconnect(manager: McpManager, name: str) -> list[Line]:
    if name and name not in manager.connections:
        return [(f"No MCP server named {name}.", "error")]
    names = [name] if name else [n for n, c in manager.connections.items() if c.state in DOWN]
    names = [n for n in names if manager.may_start(manager.connections[n].config)]
    if not names:
        return [("No MCP server is down (or it waits for /mcp approve).", "hint")]
    out: list[Line] = []
    for n in names:
        conn = await manager.reconnect(n)
        if conn.state == "connected":
            out.append((f"MCP server {n} reconnected: {len(conn.tools)} tools.", "notice"))
        else:
            out.append((f"MCP server {n} is {conn.state}: {conn.reason}", "error"))
    return out


async def _auth(manager: McpManager, name: str, verb: str) -> list[Line]:
    conn = manager.connections.get(name)
    if conn is None or conn.config.kind == "stdio":
        return [(f"/mcp {verb} NAME takes an HTTP or SSE server's name.", "error")]
    if verb == "logout":
        had = await manager.logout(name)
        text = f"Logged out of {name}." if had else f"eddy was not logged in to {name}."
        return [(f"{text} It is {conn.state} now.", "notice")]
    conn = await manager.login(name)
    if conn.state == "connected":
        return [(f"MCP server {name} connected: {len(conn.tools)} tools.", "notice")]
    return [(f"MCP server {name} is {conn.state}: {conn.reason}", "error")]


def _answer(manager: McpManager, name: str, yes: bool, workspace: Any) -> list[Line]:
    from agent.mcp.approval import needs_approval, remember

    if name == "all":
        names = [n for n, c in manager.connections.items() if c.state == "needs-approval"]
    elif name in manager.connections:
        names = [name]
    else:
        return [(f"No MCP server named {name or '(none given)'}.", "error")]
    out: list[Line] = []
    for n in names:
        conn = manager.connections[n]
        if not needs_approval(conn.config):
            out.append((f"{n} is not a project server: it needs no approval.", "hint"))
            continue
        try:
            remember(workspace, n, yes)
        except OSError as exc:
            out.append((f"Could not remember the answer for {n}: {exc}", "error"))
        if yes:
            manager.approve(n)
            out.append((f"MCP server {n} approved for this project; starting it.", "notice"))
        else:
            out.append((f"MCP server {n} will not start in this project.", "notice"))
    return out or [("No server waits for approval.", "hint")]


def split_prompt_command(name: str, manager: McpManager) -> tuple[str, Any] | None:
    """``mcp__server__prompt`` -> (server, the server's prompt), or None."""
    if not name.startswith("mcp__"):
        return None
    server, sep, prompt = name[len("mcp__") :].partition("__")
    conn = manager.connections.get(server)
    if not sep or conn is None:
        return None
    for p in conn.prompts:
        if p.name == prompt:
            return server, p
    return None


def prompt_arguments(prompt: Any, arg: str) -> dict[str, str]:
    """The prompt's arguments from the command line, in order; the last takes the rest."""
    names = [a.name for a in (prompt.arguments or [])]
    if not names:
        return {}
    words = arg.split(None, len(names) - 1)
    return dict(zip(names, words, strict=False))


def prompt_text(result: Any) -> str:
    """A ``GetPromptResult`` as the text of one prompt (its text parts, in order)."""
    parts = []
    for message in result.messages:
        content = message.content
        text = getattr(content, "text", None)
        if isinstance(text, str):
            parts.append(text)
        else:
            embedded = getattr(getattr(content, "resource", None), "text", None)
            if isinstance(embedded, str):
                parts.append(embedded)
    return "\n\n".join(p for p in parts if p.strip())


async def run_prompt(manager: McpManager, server: str, prompt: Any, arg: str) -> str:
    """The text ``/mcp__server__prompt arg`` sends.

    Raises:
        Exception: the server failed to give the prompt (the caller says so).
    """
    result = await manager.get_prompt(server, prompt.name, prompt_arguments(prompt, arg))
    return prompt_text(result)
