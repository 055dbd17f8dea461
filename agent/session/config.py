"""How a session runs: ``SessionConfig`` (built from the command line by frontend/session_open.py),
and what a prompt becomes under it."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from agent.loop import Limits
from agent.messages import TextBlock
from agent.permissions.policy import Policy
from agent.sandbox import SandboxSettings


@dataclass
class SessionConfig:
    """How a session runs.

    Attributes:
        workspace: the directory the agent works in.
        model: the model id used for pricing and requests.
        system: the system prompt text (kept stable for caching).
        limits: T and B for each run of the loop.
        policy: the permission policy.
        headless: no one can answer a permission question: "ask" becomes a refusal.
        max_tokens: max output tokens per response.
    """

    workspace: Path
    model: str
    system: str = ""
    limits: Limits = field(default_factory=Limits)
    policy: Policy = field(default_factory=Policy)
    headless: bool = False
    max_tokens: int = 32_000
    session_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    autocompact: float | None = 0.85
    """Compact automatically when the next call would pass this share of the window."""
    save_rules: bool = True
    """Save "don't ask again" rules to the project's local settings."""
    refresh_system: Callable[[], str] | None = None
    """Rebuilds the system prompt after compaction (memory files are re-read, not summarised)."""
    sandbox: SandboxSettings = field(default_factory=SandboxSettings)
    """The ``sandbox`` settings: the OS sandbox under Bash (see agent/sandbox)."""
    picked_up: list[str] = field(default_factory=list)
    """What was read from Claude Code's files, one item each (frontend/pickup.py joins them
    into the start-up line; memory, commands and skills append theirs)."""


def prompt_blocks(text: str, config: SessionConfig) -> tuple[TextBlock, ...]:
    """The blocks a prompt adds: its text, the files it @-mentions, the plan-mode reminder."""
    blocks: tuple[TextBlock, ...] = (TextBlock(text),)
    if "@" in text:
        from agent.mentions import attachments

        blocks += tuple(TextBlock(a) for a in attachments(text, config.workspace))
    if config.policy.mode == "plan":
        from agent.permissions.policy import plan_mode_note

        blocks += (TextBlock(f"<system-reminder>{plan_mode_note()}</system-reminder>"),)
    return blocks
