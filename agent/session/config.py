"""How a session runs: ``SessionConfig`` (built by the front door, agent/open.py),
and what a prompt becomes under it."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.hooks.config import HookConfig
from agent.messages import Block, TextBlock
from agent.permissions.policy import Policy
from agent.plugins.plugin import Plugin
from agent.prompt.output_styles import OutputStyle
from agent.sandbox.config import SandboxSettings
from agent.turn.outcome import Limits
from tools.base import AskModel, EditorTools


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
    thinking: dict[str, Any] | None = None
    """The request's ``thinking`` parameter (``--max-thinking-tokens``, ``--thinking``); None:
    the API's default."""
    session_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    autocompact: float | None = 0.85
    """Compact automatically when the next call would pass this share of the window."""
    save_rules: bool = True
    """Save "don't ask again" rules to the project's local settings."""
    refresh_system: Callable[[], str] | None = None
    """Rebuilds the system prompt after compaction (memory files are re-read, not summarised)."""
    sandbox: SandboxSettings = field(default_factory=SandboxSettings)
    """The ``sandbox`` settings: the OS sandbox under Bash (see agent/sandbox)."""
    server_tools: list[dict[str, Any]] = field(default_factory=list)
    """Tools the API runs itself (the web search, agent/model/web_search.py), sent after the
    client tools in every request."""
    output_style: OutputStyle | None = None
    """The output style (agent/prompt/output_styles.py) ``refresh_system`` builds with; None:
    Default."""
    hooks: HookConfig = field(default_factory=HookConfig)
    """The ``hooks`` of every settings file, merged (see agent/hooks)."""
    self_started_turns: int = 5
    """Turns the reports of background work may start in a row with no prompt or correction
    from the user (``maxSelfStartedTurns``; 0: none, reports wait for a prompt)."""
    plugins: list[Plugin] = field(default_factory=list)
    """The plugins loaded (agent/plugins): their commands are the front ends' to read."""


def prompt_blocks(text: str, config: SessionConfig) -> tuple[Block, ...]:
    """The blocks a prompt adds: its text, the files it @-mentions, the images whose paths
    it names, the plan-mode reminder."""
    blocks: tuple[Block, ...] = (TextBlock(text),)
    if "@" in text:
        from agent.prompt.mentions import attachments

        blocks += tuple(TextBlock(a) for a in attachments(text, config.workspace))
    from agent.prompt.images import image_attachments

    blocks += tuple(image_attachments(text, config.workspace))
    if config.policy.mode == "plan":
        from agent.permissions.policy import plan_mode_note

        blocks += (TextBlock(f"<system-reminder>{plan_mode_note()}</system-reminder>"),)
    return blocks


@dataclass(frozen=True)
class ToolSetup:
    """What the front door gives a session's tool context; the session builds the context
    once with these and its own parts (the gate's path answers, the checkpoint hooks, the
    sandbox, the background shells, the dialogs): docs/architecture.md.

    Attributes:
        extra_dirs: further directories the tools treat as inside (``--add-dir``).
        output_dir: where Bash saves a cut command's whole output (None: a temporary
            directory of this process).
        editor: an editor's files and terminal (ACP), or None (the disk, eddy's processes).
        ask_model: WebFetch's one-shot question to the small fast model (None: the
            session's model's).
    """

    extra_dirs: tuple[Path, ...] = ()
    output_dir: Path | None = None
    editor: EditorTools | None = None
    ask_model: AskModel | None = None
