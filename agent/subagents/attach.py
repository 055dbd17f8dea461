"""Giving a session its subagents: the host (agent/subagents/host.py) with the workspace's
agent types and the ``subagents`` setting, and the Agent tool that lists those types."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from agent.subagents.definitions import AgentCatalog, AgentDefinition
from agent.subagents.host import DEFAULT_CONCURRENCY, MAX_DEPTH, SubagentHost

if TYPE_CHECKING:
    from agent.session.core import Session


def attach_workspace_agents(session: Session, setting: Any, problems: list[str]) -> SubagentHost:
    """``attach_subagents`` with the workspace's definitions and the ``subagents`` setting
    (``{"maxConcurrency": 4}``); what cannot be used is added to ``problems``."""
    from agent.subagents.definitions import load_agents

    catalog = load_agents(session.config.workspace, plugins=session.config.plugins)
    problems.extend(f"agents: {p}" for p in catalog.problems)
    concurrency = DEFAULT_CONCURRENCY
    if isinstance(setting, dict) and "maxConcurrency" in setting:
        value = setting["maxConcurrency"]
        if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
            concurrency = value
        else:
            problems.append("subagents.maxConcurrency: expected a whole number >= 1; ignored.")
    elif setting is not None and not isinstance(setting, dict):
        problems.append('subagents: expected an object such as {"maxConcurrency": 4}; ignored.')
    return attach_subagents(session, catalog, concurrency=concurrency)


def attach_subagents(
    session: Session,
    catalog: AgentCatalog,
    *,
    concurrency: int = DEFAULT_CONCURRENCY,
    max_depth: int = MAX_DEPTH,
) -> SubagentHost:
    """Give ``session`` its subagents: the Agent tool (if it has one) lists ``catalog``'s
    types and launches through the returned host, registered as the session's extension.
    Call it before the first prompt (the tools block must stay byte-stable after it)."""
    host = SubagentHost(session, catalog, concurrency=concurrency, max_depth=max_depth)
    session.ctx.subagents = host
    if "Agent" in session.tools:
        _offer_agent_tool(session, catalog)
        session.tools.alias("Task", "Agent")  # resumed transcripts may call the old name
    session.add_extension(host)
    return host


def add_agents(session: Session, definitions: Sequence[AgentDefinition]) -> None:
    """Add agent types a front end defines (an Agent SDK's ``agents``) to the session's:
    each wins over a file's definition of its name, and the Agent tool lists them. Call it
    before the first prompt (the tools block must stay byte-stable after it)."""
    host = session.ctx.subagents
    if host is None or not definitions:
        return
    for definition in definitions:
        host.catalog.agents.pop(definition.name, None)  # the winner takes its place in order
        host.catalog.agents[definition.name] = definition
    if "Agent" in session.tools:
        _offer_agent_tool(session, host.catalog)


def _offer_agent_tool(session: Session, catalog: AgentCatalog) -> None:
    """Put the Agent tool listing ``catalog``'s types in the Agent tool's place."""
    from tools.agent import AgentTool

    tool = AgentTool([(d.name, d.description, d.tools) for d in catalog.agents.values()])
    session.tools.put(tool)
