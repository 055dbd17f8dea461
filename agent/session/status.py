"""``Session.status()``: a read-only snapshot of what front ends show about a session.

Front ends read this instead of reaching into the session's fields (``session.config.*``,
``session.total_cost``, ...): what they may know is this dataclass, and it cannot be written.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agent.permissions.policy import Mode


@dataclass(frozen=True)
class SessionStatus:
    """A session as it is now.

    Attributes:
        session_id: the transcript's id (also for an unsaved session).
        title: the title given by ``/rename`` (or on resume), or None.
        saved: the session has a transcript (it can be resumed and renamed).
        workspace: the directory the agent works in.
        model: the model id of the next calls.
        mode: the permission mode.
        save_rules: "don't ask again" saves the rule to the project's local settings.
        busy: a turn (or ``!command``, ``/compact``) is running.
        queue: the queued corrections.
        total_cost: the session's spend, including what it had when resumed.
        run_cost: what this process spent.
        turns: the prompts the session answered (as the resume picker counts them).
        messages: the history's length.
        context_tokens: the context the next call starts from (0 before any is known).
        context_window: the model's window.
        max_turns: T per prompt, or None.
        max_budget_usd: the cap B (on the session's spend; headless: on the run's), or None.
        mcp: the MCP servers in a few words ("MCP 2/3, 1 failed"), "" without servers.
    """

    session_id: str
    title: str | None
    saved: bool
    workspace: Path
    model: str
    mode: Mode
    save_rules: bool
    busy: bool
    queue: tuple[str, ...]
    total_cost: float
    run_cost: float
    turns: int
    messages: int
    context_tokens: int
    context_window: int
    max_turns: int | None
    max_budget_usd: float | None
    mcp: str = ""
