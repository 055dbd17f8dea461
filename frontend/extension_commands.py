"""The handlers of the slash commands the extensions bring (output styles, background shells,
hooks, MCP servers and their prompts, subagents), for the one table in frontend/commands.py."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

from agent import ops

if TYPE_CHECKING:
    from frontend.command_frontend import FrontEnd


def output_style(fe: FrontEnd, arg: str) -> None:
    from agent.prompt.output_styles import DEFAULT, load_styles

    if arg:
        fe.submit(ops.SetOutputStyle(arg))  # the engine answers: a Notice, or an Error
        return
    problems: list[str] = []
    plugins = fe.session.config.plugins if fe.session is not None else []
    styles = load_styles(fe.workspace, problems, plugins)
    current = fe.session.config.output_style
    name = current.name if current is not None else DEFAULT
    lines = [f"Output style: {name}. /output-style NAME switches (this session only)."]
    lines += [f"  {s.name:<14} {s.description}" for s in styles.values()]
    fe.say("\n".join([*lines, *problems]))


def bashes(fe: FrontEnd, arg: str) -> None:
    from frontend.bashes import bashes_command

    words = arg.split()
    if len(words) == 1 and words[0] != "kill":
        _show_task(fe, words[0])
        return
    lines, op = bashes_command(fe.session, arg)
    if lines:
        fe.say("\n".join(lines))
    if op is not None:
        fe.submit(op)  # the engine answers: a Notice, or an Error for no such shell


def _show_task(fe: FrontEnd, wanted: str) -> None:
    """``/bashes ID``: a shell's output, or a background agent's transcript."""
    from frontend.bashes import find_task
    from frontend.subagent_transcripts import child_path

    shell, agent, why = find_task(fe.session, wanted)
    if shell is not None:
        fe.show_shell(shell)
        return
    if agent is None:
        fe.say(why, "error")
        return
    transcript = getattr(fe.session, "transcript", None)
    if transcript is None:
        fe.say("This session is not saved, so its agents' transcripts are not either.")
        return
    fe.show_subagent(child_path(transcript.path, agent.id), f"{agent.agent_type} {agent.id[:6]}")


def hooks(fe: FrontEnd, arg: str) -> None:
    from agent.hooks.config import load_hooks
    from agent.hooks.report import describe
    from agent.settings.files import load_settings

    session = fe.session
    if session is not None:
        config = session.config.hooks  # what this session runs
    else:
        config = load_hooks(load_settings(fe.workspace)[0].raw, [])
    fe.say("\n".join(describe(config, fe.workspace)))


async def mcp(fe: FrontEnd, arg: str) -> None:
    from agent.mcp.command import mcp_command
    from agent.mcp.manager import McpManager

    manager = fe.session.extension(McpManager) if fe.session is not None else None
    if manager is not None and not arg.strip():
        fe.open_mcp(manager)
        return
    for text, kind in await mcp_command(manager, arg, fe.workspace):
        fe.say(text, kind)  # type: ignore[arg-type]


def mcp_prompt(fe: FrontEnd, name: str, arg: str) -> Awaitable[None] | None:
    """``/mcp__server__prompt args``: the server's prompt, sent to the model; None if
    ``name`` is no such prompt."""
    from agent.mcp.command import run_prompt, split_prompt_command
    from agent.mcp.manager import McpManager

    manager = fe.session.extension(McpManager) if fe.session is not None else None
    if manager is None:
        return None
    found = split_prompt_command(name, manager)
    if found is None:
        return None
    server, prompt = found

    async def send() -> None:
        try:
            text = await run_prompt(manager, server, prompt, arg)
        except Exception as exc:  # a server failure is a line, never a traceback
            fe.say(f"/{name}: the MCP server {server} failed: {exc}", "error")
            return
        if text.strip():
            fe.send(text)
        else:
            fe.say(f"/{name}: the MCP server {server} gave an empty prompt.", "error")

    return send()


async def plugin(fe: FrontEnd, arg: str) -> None:
    import asyncio

    from frontend.plugin_commands import plugin_command

    loaded = fe.session.config.plugins if fe.session is not None else None
    # a clone or a copy takes a while: off the front end's loop, which keeps drawing
    said = await asyncio.to_thread(plugin_command, fe.workspace, arg, loaded)
    for text, kind in said:
        fe.say(text, kind)  # type: ignore[arg-type]


def agents(fe: FrontEnd, arg: str) -> None:
    from agent.subagents.definitions import agents_listing, load_agents

    session = fe.session
    host = getattr(session.ctx, "subagents", None) if session is not None else None
    catalog = host.catalog if host is not None else load_agents(fe.workspace)  # not ready yet
    transcript = getattr(session, "transcript", None) if session is not None else None
    if arg.strip():
        _show_subagent(fe, transcript, arg.strip())
        return
    fe.say(agents_listing(catalog, fe.columns))
    if transcript is None:
        return
    from frontend.subagent_transcripts import child_summaries

    children = child_summaries(transcript.path)
    if children:
        lines = [f"This session's subagents ({len(children)}):"]
        lines += [f"  {child.line()}" for child in children]
        lines.append("/agents ID (the id after the type) shows one's whole transcript.")
        fe.say("\n".join(lines))


def _show_subagent(fe: FrontEnd, transcript: Any, wanted: str) -> None:
    """``/agents ID``: the transcript of this session's subagent whose id starts with ID."""
    if transcript is None:
        fe.say("This session is not saved, so its subagents' transcripts are not either.")
        return
    from frontend.subagent_transcripts import child_summaries

    children = child_summaries(transcript.path)
    found = [c for c in children if c.agent_id.startswith(wanted)]
    if len(found) != 1:
        known = ", ".join(c.agent_id[:6] for c in children) or "none yet"
        how = "No" if not found else "More than one"
        fe.say(f"{how} subagent of this session has an id starting {wanted!r} (ids: {known}).",
               "error")  # fmt: skip
        return
    child = found[0]
    fe.show_subagent(child.path, child.title)
