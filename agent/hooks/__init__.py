"""Hooks: Claude Code's hook contract, so a team's policy scripts run unchanged under eddy.

- ``config``: the ``hooks`` key of every settings file, merged and deduplicated; matchers.
- ``runner``: handlers as child processes in their own process group, in parallel.
- ``outcome``: exit codes and JSON output turned into a verdict; several verdicts combined.
- ``engine``: one adapter per event (PreToolUse, PostToolUse, UserPromptSubmit, Stop,
  SubagentStop, SessionStart, SessionEnd, PreCompact, Notification).
"""
