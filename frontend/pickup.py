"""The one start-up line saying what eddy picked up from Claude Code's files.

``build_session`` collects items in ``SessionConfig.picked_up`` (settings files here; memory,
commands and skills are appended by their features) and every front end shows
``pickup_line(items)`` once: the TUI and line mode as a notice, headless on stderr for the
text and json formats, and not at all in stream-json (its stdout is the event stream and
stderr is left to real problems).
"""

from __future__ import annotations

from agent.settings.files import Settings


def pickup_line(items: list[str]) -> str | None:
    """``Claude Code: a, b, c``, or None when nothing was picked up."""
    items = [i for i in items if i.strip()]
    return f"Claude Code: {', '.join(items)}" if items else None


def settings_items(settings: Settings) -> list[str]:
    """One item per Claude Code settings file read: ``.claude/settings.json (5 rules, env 2)``."""
    out: list[str] = []
    for source, data in settings.raw:
        if not source.claude:
            continue
        perms = data.get("permissions")
        rules = 0
        if isinstance(perms, dict):
            rules = sum(
                len(perms[k]) for k in ("allow", "ask", "deny") if isinstance(perms.get(k), list)
            )
        env = data.get("env")
        parts = [f"{rules} rule{'s' * (rules != 1)}"] if rules else []
        if isinstance(env, dict) and env:
            parts.append(f"env {len(env)}")
        parts += [key for key in ("model", "hooks", "statusLine", "outputStyle") if key in data]
        out.append(f"{source.label} ({', '.join(parts)})" if parts else source.label)
    return out
