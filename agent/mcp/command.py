"""``/mcp`` and ``/mcp__<server>__<prompt>``: what the commands say and do, UI-free.

``/mcp`` lists the servers (scope, transport, state with its reason, tools, prompts,
resources); ``/mcp reconnect [NAME]`` restarts one (or every server that is down);
``/mcp login|logout NAME`` runs or forgets an OAuth login (:mod:`agent.mcp.oauth`);
``/mcp approve NAME|all`` and ``/mcp deny NAME`` answer for a project's servers, remembered
per project; ``/mcp disable|enable NAME|all`` switches a server off or on for the project
(kept where Claude Code keeps it, :mod:`agent.mcp.disabled`). A server's prompt is a slash
command: ``/mcp__server__prompt args`` fills its arguments in order (the last takes the rest
of the line) and sends the result as the prompt.
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
    lines.append("/mcp disable|enable NAME|all switches a server off or on for this project;")
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
    if verb in ("enable", "disable"):
        return await _switch(manager, name, verb == "enable")
    return [
        (
            f"Unknown /mcp {verb}: use /mcp, /mcp reconnect [NAME], /mcp enable|disable NAME, "
            "/mcp login|logout NAME, /mcp approve|deny NAME.",
            "error",
        )
    ]


async def _switch(manager: McpManager, name: str, on: bool) -> list[Line]:
    verb = "enable" if on else "disable"
    if name == "all":
        names = [n for n in manager.connections if manager.is_disabled(n) == on]
        if not names:
            return [(f"Every MCP server is {verb}d already.", "hint")]
    elif name in manager.connections:
        names = [name]
    else:
        return [(f"/mcp {verb} NAME|all: no MCP server named {name or '(none given)'}.", "error")]
    return [line for n in names for line in await switch_server(manager, n, on)]


async def switch_server(manager: McpManager, name: str, on: bool) -> list[Line]:
    """Switch server ``name`` on or off for this project; what to say about it."""
    if manager.is_disabled(name) != on:
        return [(f"MCP server {name} is {'enabled' if on else 'disabled'} already.", "hint")]
    try:
        conn = await (manager.enable(name) if on else manager.disable(name))
    except OSError as exc:
        return [(f"MCP server {name}: done for this session, but not kept: {exc}", "error")]
    if not on:
        return [(f"MCP server {name} disabled for this project: its tools are gone.", "notice")]
    if conn.state == "connected":
        return [(f"MCP server {name} enabled: {len(conn.tools)} tools.", "notice")]
    if conn.state == "needs-approval":
        return [(f"MCP server {name} enabled; it waits for /mcp approve {name}.", "notice")]
    return [(f"MCP server {name} enabled, but it is {conn.state}: {conn.reason}", "error")]


async def _reconnect(manager: McpManager, name: str) -> list[Line]:
    if name and name not in manager.connections:
        return [(f"No MCP server named {name}.", "error")]
    names = [name] if name else [n for n, c in manager.connections.items() if c.state in DOWN]
    names = [n for n in names if manager.may_start(manager.connections[n].config)]
    if not names:
        return [("No MCP server is down (or it waits for /mcp approve or /mcp enable).", "hint")]
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


# -- the menu's words (the TUI's /mcp screen shows them) ---------------------------------
STATE_WORDS = {
    "connected": "✔ connected",
    "connecting": "… starting",
    "stopped": "… starting",
    "failed": "✘ failed",
    "needs-auth": "△ needs authentication",
    "needs-approval": "? waits for your approval",
    "disabled": "○ disabled",
}


def state_label(conn: Any) -> str:
    """A server's state in a few words, with the reason of a failure."""
    words = STATE_WORDS.get(conn.state, conn.state)
    if conn.state == "failed" and conn.reason:
        words += f": {_inert(conn.reason).splitlines()[0]}"
    return words


def server_detail(conn: Any) -> str:
    """What the menu shows of one server: where it runs, its state, its tools, its prompts
    and resources counted."""
    c = conn.config
    where = " ".join((c.command, *c.args)) if c.kind == "stdio" else c.url
    lines = [
        f"{conn.name}  [{c.scope}, {c.kind}]",
        f"  {_inert(where or '')}",
        f"  {STATE_WORDS.get(conn.state, conn.state)}",
    ]
    if conn.reason:
        lines.append(f"  {_inert(conn.reason)}")
    tools = [_inert(t.name) for t in conn.tools]
    lines.append(f"Tools ({len(tools)}):" if tools else "Tools: none known")
    lines.extend(f"  {name}" for name in tools)
    lines.append(f"Prompts: {len(conn.prompts)} · Resources: {len(conn.resources)}")
    return "\n".join(lines)


def actions(manager: McpManager, name: str) -> list[tuple[str, str]]:
    """The menu's actions for server ``name``: (action, label), for :func:`run_action`."""
    conn = manager.connections[name]
    out: list[tuple[str, str]] = []
    off = manager.is_disabled(name)
    if not off and manager.may_start(conn.config):
        out.append(("reconnect", "Reconnect"))
    if conn.config.kind in ("http", "sse") and not off:
        from agent.mcp.oauth import has_tokens

        if has_tokens(conn.config):
            out += [("login", "Re-authenticate"), ("logout", "Clear authentication")]
        else:
            out.append(("login", "Authenticate"))
    out.append(("enable", "Enable") if off else ("disable", "Disable"))
    return out


async def run_action(manager: McpManager, name: str, action: str) -> list[Line]:
    """Run one of :func:`actions` on server ``name``; the lines to show."""
    if action == "reconnect":
        return await _reconnect(manager, name)
    if action in ("login", "logout"):
        return await _auth(manager, name, action)
    if action in ("enable", "disable"):
        return await switch_server(manager, name, action == "enable")
    return [(f"Unknown MCP action {action}.", "error")]
