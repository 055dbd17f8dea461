"""The SubagentStop hook's call site (the hooks themselves are built elsewhere).

``subagent_stop`` is called once when a child's loop ends, before its answer goes to the
parent. It does nothing yet: the hooks code replaces its body (a hook's block would become a
correction for the child and one more model call, counted against its T and the tree's B).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SubagentStopInfo:
    """What a SubagentStop hook is told about the child that stopped."""

    agent_id: str
    agent_type: str
    subtype: str
    transcript_path: str | None
    result: str


async def subagent_stop(info: SubagentStopInfo) -> str | None:
    """Run the SubagentStop hooks for ``info``; a correction for the child, or None (go on).

    A no-op until the hooks are wired here.
    """
    return None
