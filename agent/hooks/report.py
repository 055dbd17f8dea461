"""What ``/hooks`` and ``eddy hooks`` print: the active hooks and where they come from, and a
dry run of one event's hooks on a recorded input (``eddy hooks test``)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.hooks.config import EVENTS, HookConfig, missing_script
from agent.hooks.outcome import HookVerdict, combine, interpret
from agent.hooks.runner import HandlerRun, run_handlers

MATCH_FIELDS = {
    "PreToolUse": "tool_name",
    "PostToolUse": "tool_name",
    "PostToolUseFailure": "tool_name",
    "SessionStart": "source",
    "SessionEnd": "reason",
    "PreCompact": "trigger",
    "Notification": "notification_type",
    "SubagentStop": "agent_type",
}
"""The stdin field each event's matcher is compared with (the others ignore the matcher)."""


def describe(config: HookConfig, project_dir: Path) -> list[str]:
    """The configured hooks, event by event: matcher, command, timeout, file; a missing
    script is flagged on its line."""
    if not config.groups:
        return [
            'No hooks are configured. Add them under "hooks" in .eddy/settings.json, '
            ".claude/settings.json or your user settings (Claude Code's format)."
        ]
    lines = []
    if config.disabled:
        lines.append("disableAllHooks is set: none of these run.")
    for event in EVENTS:
        groups = [g for g in config.groups if g.event == event]
        if not groups:
            continue
        lines.append(f"{event}:")
        for group in groups:
            matcher = group.matcher if group.matcher.strip() not in ("", "*") else "(all)"
            for h in group.handlers:
                extra = f", timeout {h.timeout:g} s" + (", failClosed" if h.fail_closed else "")
                lines.append(f"  [{matcher}] {h.command}  ({h.source}{extra})")
                gone = missing_script(h.command, project_dir)
                if gone is not None:
                    lines.append(f"    ! its script {gone} does not exist")
    return lines


@dataclass
class DryRun:
    """One handler's run in ``eddy hooks test``."""

    run: HandlerRun
    verdict: HookVerdict


async def dry_run(
    config: HookConfig, event: str, payload: dict[str, Any], project_dir: Path
) -> tuple[list[DryRun], HookVerdict]:
    """Run ``event``'s handlers that match ``payload`` (even when hooks are disabled)."""
    field = MATCH_FIELDS.get(event)
    value = payload.get(field) if field else None
    enabled = HookConfig(config.groups, disabled=False)
    handlers = enabled.handlers_for(event, value if isinstance(value, str) else None)
    data = {"hook_event_name": event, "cwd": str(project_dir), **payload}
    runs = await run_handlers(handlers, data, project_dir)
    tested = [DryRun(run, interpret(run, event)) for run in runs]
    return tested, combine([t.verdict for t in tested])


def _decision(verdict: HookVerdict) -> str:
    parts = []
    if verdict.decision:
        parts.append(verdict.decision + (f" ({verdict.reason})" if verdict.reason else ""))
    if verdict.updated_input is not None:
        parts.append("updatedInput " + json.dumps(verdict.updated_input))
    if verdict.context:
        parts.append(f"context {verdict.context!r}")
    if verdict.stop:
        parts.append(f"continue: false ({verdict.stop_reason})")
    if verdict.system_message:
        parts.append(f"systemMessage {verdict.system_message!r}")
    return "; ".join(parts) or "none (the action goes on)"


def dry_run_report(tested: list[DryRun], combined: HookVerdict, event: str) -> list[str]:
    """Each handler's exit code, time, stdout, stderr and parsed decision, then the total."""
    if not tested:
        return [f"No {event} hook matches this input."]
    lines = []
    for t in tested:
        run = t.run
        code = "none" if run.exit_code is None else str(run.exit_code)
        lines.append(f"$ {run.handler.command}  ({run.handler.source})")
        lines.append(f"  exit code: {code}   time: {run.duration_ms} ms")
        if run.error:
            lines.append(f"  error: {run.error}")
        lines.append("  stdout: " + (run.stdout.rstrip() or "(empty)").replace("\n", "\n    "))
        lines.append("  stderr: " + (run.stderr.rstrip() or "(empty)").replace("\n", "\n    "))
        lines.append(f"  decision: {_decision(t.verdict)}")
        lines.extend(f"  {n}" for n in t.verdict.notices)
    lines.append(f"{event} overall: {_decision(combined)}")
    return lines
