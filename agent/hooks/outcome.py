"""What a hook run means: Claude Code's exit-code and JSON-output contract.

- Exit 0: stdout is parsed as JSON when it starts with ``{``; plain stdout becomes context
  for the model only for UserPromptSubmit and SessionStart.
- Exit 2: a block where the event can block, with stderr as the reason (to the model for
  the tool events and Stop, to the user for UserPromptSubmit and PreCompact); elsewhere
  stderr is shown to the user.
- Anything else (another status, a timeout, a crash, a missing script): a visible
  "hook error" notice, and the action goes on, unless the handler is ``failClosed`` (eddy's
  addition): then it blocks.

JSON fields: ``continue: false`` + ``stopReason``; ``systemMessage``; ``suppressOutput`` (stdout
not shown in the transcript views); ``decision: "block"`` +
``reason``; ``hookSpecificOutput`` with ``permissionDecision`` (allow, deny, ask),
``permissionDecisionReason``, ``updatedInput`` and ``additionalContext``. Several hooks on one
event combine: deny > ask > allow, and a block by any of them blocks.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agent.hooks.runner import HandlerRun
from tools.outbuf import HeadTail

MODEL_TEXT_MAX_CHARS = 30_000
"""Hook text the model reads is capped like Bash's output."""
BLOCKING_EVENTS = frozenset(
    {
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "UserPromptSubmit",
        "Stop",
        "SubagentStop",
        "PreCompact",
    }
)
PLAIN_CONTEXT_EVENTS = frozenset({"UserPromptSubmit", "SessionStart"})
_RANK = {"deny": 3, "block": 3, "ask": 2, "allow": 1}


def cap_for_model(text: str) -> str:
    """``text`` within :data:`MODEL_TEXT_MAX_CHARS` (head and tail kept)."""
    if len(text) <= MODEL_TEXT_MAX_CHARS:
        return text
    buf = HeadTail(MODEL_TEXT_MAX_CHARS)
    buf.feed(text)
    return buf.text()


@dataclass
class HookVerdict:
    """What one handler's run says (or, from :func:`combine`, what all of them say).

    Attributes:
        decision: ``allow``, ``deny``, ``ask`` (PreToolUse), ``block`` (the others), or None.
        reason: why it denied, asked or blocked.
        context: text for the model (additionalContext, plain stdout where it counts).
        updated_input: PreToolUse's replacement tool input.
        stop: ``continue: false`` was returned: the whole turn stops.
        stop_reason: shown to the user when ``stop``.
        system_message: shown to the user.
        notices: "hook error" lines shown to the user.
        suppress_output: ``suppressOutput: true``: its stdout is not shown in the views.
    """

    decision: str | None = None
    reason: str = ""
    context: str = ""
    updated_input: dict[str, Any] | None = None
    stop: bool = False
    stop_reason: str = ""
    system_message: str = ""
    notices: list[str] = field(default_factory=list)
    runs: list[HandlerRun] = field(default_factory=list)
    suppress_output: bool = False

    @property
    def blocked(self) -> bool:
        """Denied or blocked."""
        return self.decision in ("deny", "block")


def _error_text(run: HandlerRun) -> str:
    if run.error:
        return run.error
    first = run.stderr.strip().splitlines()[:1]
    detail = f": {first[0]}" if first else " (no stderr output)"
    return f"exited with status {run.exit_code}{detail}"


def interpret(run: HandlerRun, event: str) -> HookVerdict:
    """The meaning of one handler's run for ``event``."""
    verdict = HookVerdict(runs=[run])
    command = run.handler.command
    block = "deny" if event == "PreToolUse" else "block"
    if run.failed:
        why = _error_text(run)
        if run.handler.fail_closed and event in BLOCKING_EVENTS:
            verdict.decision = block
            verdict.reason = f"The {event} hook `{command}` failed ({why}); it is failClosed."
            verdict.notices.append(f"{event} hook error: `{command}` {why}; failClosed: blocked.")
        else:
            verdict.notices.append(f"{event} hook error: `{command}` {why}; eddy goes on.")
        return verdict
    if run.exit_code == 2:
        reason = run.stderr.strip() or f"Blocked by the {event} hook `{command}`."
        if event in BLOCKING_EVENTS:
            verdict.decision, verdict.reason = block, reason
        elif run.stderr.strip():
            verdict.system_message = run.stderr.strip()
        return verdict
    out = run.stdout.strip()
    if out.startswith("{"):
        try:
            data = json.loads(out)
        except json.JSONDecodeError as exc:
            verdict.notices.append(f"{event} hook `{command}` printed invalid JSON ({exc.msg}).")
            data = None
        if isinstance(data, dict):
            _apply_json(verdict, data, event)
            return verdict
    if out and event in PLAIN_CONTEXT_EVENTS:
        verdict.context = out
    return verdict


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _apply_json(verdict: HookVerdict, data: dict[str, Any], event: str) -> None:
    if data.get("continue") is False:
        verdict.stop = True
        verdict.stop_reason = _str(data.get("stopReason"))
    verdict.system_message = _str(data.get("systemMessage"))
    verdict.suppress_output = data.get("suppressOutput") is True
    decision = data.get("decision")
    if event == "PreToolUse" and decision in ("approve", "block"):  # the older PreToolUse form
        verdict.decision = "allow" if decision == "approve" else "deny"
        verdict.reason = _str(data.get("reason"))
    elif decision == "block" and event in BLOCKING_EVENTS:
        verdict.decision = "deny" if event == "PreToolUse" else "block"
        verdict.reason = _str(data.get("reason")) or f"Blocked by a {event} hook."
    specific = data.get("hookSpecificOutput")
    if not isinstance(specific, dict):
        return
    verdict.context = _str(specific.get("additionalContext"))
    if event != "PreToolUse":
        return
    permission = specific.get("permissionDecision")
    if permission in ("allow", "deny", "ask"):
        verdict.decision = permission
        verdict.reason = _str(specific.get("permissionDecisionReason"))
    updated = specific.get("updatedInput")
    if isinstance(updated, dict):
        verdict.updated_input = updated
    elif updated is not None:
        verdict.notices.append("PreToolUse hook: updatedInput is not a JSON object; ignored.")


def combine(verdicts: Sequence[HookVerdict]) -> HookVerdict:
    """The verdict of several handlers of one event: the strongest decision wins (deny or
    block > ask > allow), its reasons joined; contexts, messages and notices all kept."""
    out = HookVerdict()
    for v in verdicts:
        out.runs.extend(v.runs)
        out.notices.extend(v.notices)
        if v.stop:
            out.stop = True
            out.stop_reason = out.stop_reason or v.stop_reason
        if v.decision is not None:
            rank, best = _RANK[v.decision], _RANK.get(out.decision or "", 0)
            if rank > best:
                out.decision, out.reason = v.decision, v.reason
            elif rank == best and v.reason:
                out.reason = f"{out.reason}\n{v.reason}".strip()
        if v.updated_input is not None and out.updated_input is None:
            out.updated_input = v.updated_input
    out.context = "\n".join(v.context for v in verdicts if v.context.strip())
    out.system_message = "\n".join(v.system_message for v in verdicts if v.system_message)
    if out.blocked:
        out.updated_input = None
    return out
