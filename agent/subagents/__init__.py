"""Subagents: agent definitions, the child loop behind the Agent tool, the tree's limits.

``load_agents`` reads the definitions (definitions.py); ``attach_subagents`` (attach.py) gives
a session the Agent tool's launcher, ``SubagentHost`` (host.py), which runs each ``Child``
(child.py) under the tree's limits; background.py, locks.py and transcripts.py are its parts.
"""
