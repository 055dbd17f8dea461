"""Subagents: agent definitions, the child loop behind the Agent tool, the tree's limits.

``load_agents`` reads the definitions; ``attach_subagents`` gives a session the Agent tool's
launcher (``SubagentHost``).
"""

from agent.subagents.definitions import (
    BUILT_INS,
    AgentCatalog,
    AgentDefinition,
    agents_listing,
    load_agents,
)
from agent.subagents.host import SubagentHost, attach_subagents, attach_workspace_agents

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
