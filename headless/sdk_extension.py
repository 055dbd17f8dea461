"""The Agent SDK's callbacks as one session extension (agent/extension.py).

=====================  =============================================================
hook point             what the SDK gets to say
=====================  =============================================================
``ask``                ``can_use_tool`` (``--permission-prompt-tool stdio``): asked only
                       where eddy's rules would ask the user; allow (with an
                       ``updatedInput`` and ``updatedPermissions``) or deny (with a
                       message, and ``interrupt`` to end the turn); a callback that
                       fails, or gives no answer within the deadline, refuses the call
``on_prompt`` ...      the SDK's hook callbacks (headless/sdk_hooks.py), at every point
                       eddy's own hooks judge: PreToolUse, PostToolUse(Failure),
                       UserPromptSubmit, SessionStart, Stop, SubagentStop, PreCompact,
                       Notification, SessionEnd
``after_tool``         a StructuredOutput call that succeeded ends the turn
``on_stop``            a model that answered without StructuredOutput is sent back
=====================  =============================================================
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from typing import Any

from agent import events as ev
from agent.extension import (
    Extension,
    PermissionAnswer,
    PermissionQuestion,
    PromptAddition,
    StopRequest,
    ToolCall,
    ToolVerdict,
)
from agent.hooks.extension import HooksExtension
from headless.control import ControlChannel, ControlError
from headless.sdk_structured import TOOL_NAME, StructuredAnswer
from tools.base import ToolResult

CAN_USE_TOOL_TIMEOUT = 600.0
"""Seconds eddy waits for the SDK's ``can_use_tool`` answer before refusing the call (as long
as a hook callback may take; Claude Code waits without end, eddy never does)."""
TIMEOUT_VARIABLE = "EDDY_CAN_USE_TOOL_TIMEOUT"


def can_use_tool_timeout() -> float:
    """``EDDY_CAN_USE_TOOL_TIMEOUT`` (seconds, > 0), else :data:`CAN_USE_TOOL_TIMEOUT`."""
    try:
        value = float(os.environ.get(TIMEOUT_VARIABLE, ""))
    except ValueError:
        return CAN_USE_TOOL_TIMEOUT
    return value if value > 0 else CAN_USE_TOOL_TIMEOUT


def suggestion_update(rule: str | None) -> list[dict[str, Any]]:
    """Claude Code's ``permission_suggestions`` for eddy's "don't ask again" rule."""
    if not rule:
        return []
    name, _, rest = rule.partition("(")
    value: dict[str, Any] = {"toolName": name}
    if rest.endswith(")"):
        value["ruleContent"] = rest[:-1]
    return [{"type": "addRules", "rules": [value], "behavior": "allow", "destination": "session"}]


def allow_rules(updates: Any) -> tuple[list[str], str | None]:
    """The allow rules and the permission mode an answer's ``updatedPermissions`` asks for.

    eddy keeps them for the session (whatever their ``destination``: it writes no settings
    file for a program); ask and deny rules and directories are not taken from an answer.
    """
    rules: list[str] = []
    mode = None
    for update in updates if isinstance(updates, list) else []:
        if not isinstance(update, dict):
            continue
        kind = update.get("type")
        if kind in ("addRules", "replaceRules") and update.get("behavior") == "allow":
            for value in update.get("rules") or []:
                if isinstance(value, dict) and isinstance(value.get("toolName"), str):
                    content = value.get("ruleContent")
                    name = value["toolName"]
                    rules.append(f"{name}({content})" if content else name)
        elif kind == "setMode" and isinstance(update.get("mode"), str):
            mode = update["mode"]
    return rules, mode


class SdkExtension(Extension):
    """What the Agent SDK on the other end of the control channel decides.

    Args:
        channel: the control channel.
        can_use_tool: ask the SDK's ``can_use_tool`` (``--permission-prompt-tool stdio``).
        hooks: the SDK's hook callbacks (None: it registered none).
        structured: the structured answer (``--json-schema``), or None.
        asking: told True while a ``can_use_tool`` waits for its answer, False after (the
            session state the SDK reads: ``requires_action``).
        set_mode: switches the session's permission mode (an answer's ``setMode``).
    """

    name = "Agent SDK"

    def __init__(
        self,
        channel: ControlChannel,
        *,
        can_use_tool: bool,
        hooks: HooksExtension | None = None,
        structured: StructuredAnswer | None = None,
        asking: Callable[[bool], None] = lambda _waiting: None,
        set_mode: Callable[[str], None] = lambda _mode: None,
    ) -> None:
        self.channel = channel
        self.can_use_tool = can_use_tool
        self.hooks = hooks
        self.structured = structured
        self._asking = asking
        self._set_mode = set_mode

    async def on_prompt(self, text: str) -> PromptAddition | None:
        if self.structured is not None:
            self.structured.begin()
        return await self.hooks.on_prompt(text) if self.hooks is not None else None

    async def before_tool(self, call: ToolCall) -> ToolVerdict | None:
        return await self.hooks.before_tool(call) if self.hooks is not None else None

    async def ask(self, question: PermissionQuestion) -> PermissionAnswer | None:
        """``can_use_tool``: the SDK answers what the rules would ask the user."""
        if not self.can_use_tool:
            return None
        use = question.use
        fields: dict[str, Any] = {
            "tool_name": use.name,
            "display_name": use.name,
            "input": use.input,
            "tool_use_id": use.id,
            "permission_suggestions": suggestion_update(question.suggestion),
        }
        if question.summary:
            fields["description"] = question.summary
        if question.warning:
            fields["decision_reason"] = question.warning
        if question.agent:
            fields["agent_id"] = question.agent
        self._asking(True)
        timeout = can_use_tool_timeout()
        try:
            # past the deadline the request is withdrawn (control_cancel_request); not
            # wait_for: on 3.11 it can swallow Esc's cancellation that comes with the answer
            async with asyncio.timeout(timeout):
                answer = await self.channel.request("can_use_tool", fields)
        except TimeoutError:
            why = (
                f"{use.name} was not run: the SDK's can_use_tool did not answer within "
                f"{timeout:g} s ({TIMEOUT_VARIABLE} sets the deadline)."
            )
            return PermissionAnswer(False, why)
        except ControlError as exc:
            why = f"{use.name} was not run: the SDK's can_use_tool failed ({exc})."
            return PermissionAnswer(False, why)
        finally:
            self._asking(False)
        return self._answer(question, answer)

    def _answer(self, question: PermissionQuestion, answer: dict[str, Any]) -> PermissionAnswer:
        behavior = answer.get("behavior")
        if behavior == "allow":
            updated = answer.get("updatedInput")
            if not isinstance(updated, dict) or updated == question.use.input:
                updated = None
            rules, mode = allow_rules(answer.get("updatedPermissions"))
            if mode is not None:
                self._set_mode(mode)
            return PermissionAnswer(True, updated_input=updated, rules=tuple(rules))
        if behavior == "deny":
            message = answer.get("message")
            reason = message if isinstance(message, str) and message.strip() else ""
            reason = reason or f"The Agent SDK refused this {question.use.name} call."
            return PermissionAnswer(False, reason, interrupt=answer.get("interrupt") is True)
        return PermissionAnswer(
            False,
            f"{question.use.name} was not run: the SDK's can_use_tool answered neither allow "
            f"nor deny ({behavior!r}).",
        )

    async def after_tool(self, call: ToolCall, result: ToolResult) -> ToolResult:
        if self.hooks is not None:
            result = await self.hooks.after_tool(call, result)
        structured = self.structured
        ours = structured is not None and call.use.name == TOOL_NAME and not call.agent
        if structured is not None and ours and not result.is_error:
            call.halt = structured.given(dict(call.input))
        return result

    async def on_stop(self, stop: StopRequest) -> str | None:
        if self.hooks is not None:
            text = await self.hooks.on_stop(stop)
            if text is not None and text.strip():
                return text
        if self.structured is not None and not stop.agent_id:
            return self.structured.reminder()
        return None

    async def before_compact(self, trigger: str, focus: str, turn_id: int) -> str | None:
        if self.hooks is None:
            return None
        return await self.hooks.before_compact(trigger, focus, turn_id)

    async def after_compact(self) -> None:
        if self.hooks is not None:
            await self.hooks.after_compact()

    def on_event(self, event: ev.Event) -> None:
        if self.hooks is not None:
            self.hooks.on_event(event)

    async def aclose(self, reason: str) -> None:
        if self.hooks is not None:
            await self.hooks.aclose(reason)
