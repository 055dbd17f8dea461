"""Hooks: Claude Code's hook contract, so a team's policy scripts run unchanged under eddy.

- ``config``: the ``hooks`` key of every settings file, merged and deduplicated; matchers.
- ``runner``: handlers as child processes in their own process group, in parallel.
- ``outcome``: exit codes and JSON output turned into a verdict; several verdicts combined.
- ``engine``: one adapter per event (PreToolUse, PostToolUse, UserPromptSubmit, Stop,
  SubagentStop, SessionStart, SessionEnd, PreCompact, Notification).
"""

from agent.hooks.config import (
    EVENTS,
    HookConfig,
    HookGroup,
    HookHandler,
    load_hooks,
    matcher_matches,
    missing_scripts,
)
from agent.hooks.engine import HookEngine
from agent.hooks.outcome import HookVerdict, combine, interpret
from agent.hooks.runner import HandlerRun, run_handler, run_handlers

__all__ = [
    "EVENTS",
    "HandlerRun",
    "HookConfig",
    "HookEngine",
    "HookGroup",
    "HookHandler",
    "HookVerdict",
    "combine",
    "interpret",
    "load_hooks",
    "matcher_matches",
    "missing_scripts",
    "run_handler",
    "run_handlers",
]
