"""Subagents: agent definitions, the child loop behind the Agent tool, the tree's limits.

``load_agents`` reads the definitions (definitions.py); ``attach_subagents`` (attach.py) gives
a session the Agent tool's launcher, ``SubagentHost`` (host.py), which runs each ``Child``
(child.py) under the tree's limits; background.py, locks.py and transcripts.py are its parts.
"""

from agent.subagents.attach import attach_subagents, attach_workspace_agents
from agent.subagents.definitions import (
    BUILT_INS,
    AgentCatalog,
    AgentDefinition,
    agents_listing,
    load_agents,
)
from agent.subagents.host import SubagentHost

__all__ = [
    "BUILT_INS",
    "AgentCatalog",
    "AgentDefinition",
    "SubagentHost",
    "agents_listing",
    "attach_subagents",
    "attach_workspace_agents",
    "load_agents",
]
