"""What the ``eddy`` command was asked to do: a frozen ``LaunchOptions``, built once by cli/.

Front ends read it and never change it: switching sessions (``/resume``, ``/clear``) makes a new
one with :meth:`LaunchOptions.opening` instead of writing fields of the old.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.model.pricing import DEFAULT_MODEL

NO_KEY_MESSAGE = """eddy needs an Anthropic API key.
  Set it for this shell:   export ANTHROPIC_API_KEY=sk-ant-...
  (or ANTHROPIC_AUTH_TOKEN for a bearer token; ANTHROPIC_BASE_URL for a compatible gateway)
  Create a key at console.anthropic.com, Settings > API keys."""


def has_api_key() -> bool:
    """Whether the environment holds a key or token the SDK will use (or Claude Code's
    variables and settings select another way in: Bedrock, Vertex, apiKeyHelper ...)."""
    if os.environ.get("ANTHROPIC_API_KEY") or os.environ.get("ANTHROPIC_AUTH_TOKEN"):
        return True
    from agent.model.providers import has_credentials
    from agent.settings.files import load_settings

    settings, _ = load_settings(Path.cwd())  # cheap: it reads the settings files, no more
    return has_credentials(settings.api_key_helper is not None, settings.env)


@dataclass(frozen=True)
class LaunchOptions:
    """The command line, parsed and validated (see ``cli/main.py`` for each flag's help)."""

    prompt: str | None = None
    """The first prompt (with -p: the whole task)."""
    print_mode: bool = False
    output_format: str = "text"
    include_partial_messages: bool = False
    """With stream-json: also Claude Code's ``stream_event`` lines (the raw API events)."""
    max_turns: int | None = None
    max_budget_usd: float | None = None
    model: str = DEFAULT_MODEL
    """The model to use: --model, else $EDDY_MODEL, else the default (settings may override
    when ``model_explicit`` is false)."""
    model_explicit: bool = False
    """Whether --model was given (a resumed session keeps its own model otherwise)."""
    allowed_tools: tuple[str, ...] = ()
    disallowed_tools: tuple[str, ...] = ()
    permission_mode: str = "default"
    cwd: Path | None = None
    """The workspace; None means the current directory."""
    add_dirs: tuple[Path, ...] = ()
    """More directories the tools may read and change (--add-dir)."""
    mcp_config: tuple[str, ...] = ()
    """Files (or JSON texts) of MCP servers to load (--mcp-config), above the configured ones."""
    strict_mcp_config: bool = False
    """Only the servers of ``mcp_config`` (--strict-mcp-config)."""
    plugin_dirs: tuple[Path, ...] = ()
    """Plugin directories to load for this session (--plugin-dir)."""
    demo: bool = False
    plain: bool = False
    continue_: bool = False
    """Continue the latest session in the workspace."""
    resume: str | None = None
    """A session id to resume; "" asks for one (a picker); None resumes nothing."""
    fork_session: bool = False
    session_id: str | None = None
    """The id for a new session (or for the fork)."""
    cleared: bool = False
    """This new session replaces one the user cleared (/clear): SessionStart's source ``clear``."""
    rewind: int | None = None
    code_only: bool = False
    conversation_only: bool = False
    overwrite: bool = False
    checkpoints: bool = False
    acp: bool = False
    """Serve the Agent Client Protocol on stdio (--acp) instead of a screen."""
    input_format: str = "text"
    """``stream-json``: prompts and the Agent SDK's control protocol as JSON lines on stdin
    (headless/sdk.py), one long-lived session."""
    system_prompt: str | None = None
    """The session's own system prompt (--system-prompt, --system-prompt-file); "" means none
    of eddy's; None: eddy's."""
    append_system_prompt: str = ""
    """Text added to the end of the system prompt (--append-system-prompt[-file])."""
    tools: tuple[str, ...] | None = None
    """The built-in tools offered (--tools); None: all."""
    permission_prompt_tool: str | None = None
    """``stdio``: questions the rules would ask go to the Agent SDK (``can_use_tool``)."""
    include_hook_events: bool = False
    """With stream-json input: hook runs as ``hook_started`` / ``hook_response`` lines."""
    replay_user_messages: bool = False
    """With stream-json input: each user message read is written back (with its uuid)."""
    json_schema: dict[str, Any] | None = None
    """--json-schema: the final answer is a StructuredOutput call with this input schema."""
    thinking: dict[str, Any] | None = None
    """The request's ``thinking`` parameter (--max-thinking-tokens, --thinking)."""
    persist: bool = True
    """Save the session (False: --no-session-persistence)."""
    setting_sources: tuple[str, ...] | None = None
    """Read only these scopes' settings files (--setting-sources user,project,local)."""
    settings: str | None = None
    """More settings, a file or JSON text (--settings), above the local files."""

    @property
    def workspace(self) -> Path:
        """The workspace as an absolute path."""
        return Path(self.cwd or Path.cwd()).resolve()

    def opening(
        self,
        *,
        continue_: bool = False,
        resume: str | None = None,
        fork_session: bool = False,
        session_id: str | None = None,
        cleared: bool = False,
    ) -> LaunchOptions:
        """The same options opening another session: a new one by default (``cleared``: the
        one /clear opens)."""
        return dataclasses.replace(
            self,
            continue_=continue_,
            resume=resume,
            fork_session=fork_session,
            session_id=session_id,
            cleared=cleared,
        )

    def replace(self, **changes: object) -> LaunchOptions:
        """A copy with ``changes`` (``dataclasses.replace``)."""
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]
