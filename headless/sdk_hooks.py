"""An Agent SDK's hook callbacks, run as eddy's hooks.

``initialize`` carries the SDK's hooks as Claude Code's settings do, with callback ids where a
settings file has commands: ``{"PreToolUse": [{"matcher": "Bash", "hookCallbackIds":
["hook_0"], "timeout": 10, "onFailure": "block"}]}``. Each callback becomes a hook handler whose
"command" is its id, in a :class:`agent.hooks.engine.HookEngine` of its own whose runner sends
``hook_callback`` control requests instead of starting processes: the payload is the one a
command hook reads on stdin (Claude Code's hook input), and the callback's answer is read as
a command's JSON output (Claude Code's hook output: ``continue``, ``decision``,
``hookSpecificOutput.permissionDecision`` / ``updatedInput`` / ``additionalContext``, ...).
So the SDK's hooks judge at every point eddy's own do, with the same verdicts, events and
Esc, and ``onFailure: "block"`` is eddy's ``failClosed``: a callback that fails or times out
blocks instead of letting the action run.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agent.hooks.config import HookConfig, HookHandler, load_hooks
from agent.hooks.engine import HandlersRunner
from agent.hooks.runner import HandlerRun
from headless.control import ControlChannel, ControlError

SOURCE = "Agent SDK"
"""The hooks' source, as ``/hooks`` and the hook events name it."""


class _Source:
    label = SOURCE


def hook_config(hooks: Any, problems: list[str]) -> HookConfig:
    """The hooks of an ``initialize`` request as a hook configuration (each callback id a
    handler); what cannot be used is added to ``problems``."""
    if not isinstance(hooks, dict):
        if hooks is not None:
            problems.append("initialize: hooks: expected an object of events; ignored.")
        return HookConfig()
    settings: dict[str, list[dict[str, Any]]] = {}
    for event, matchers in hooks.items():
        if not isinstance(matchers, list):
            problems.append(f"initialize: hooks.{event}: expected a list of matchers; ignored.")
            continue
        groups = []
        for matcher in matchers:
            if not isinstance(matcher, dict):
                continue
            ids = matcher.get("hookCallbackIds")
            handlers = []
            for callback_id in ids if isinstance(ids, list) else []:
                entry: dict[str, Any] = {"type": "command", "command": str(callback_id)}
                if matcher.get("timeout") is not None:
                    entry["timeout"] = matcher["timeout"]
                # Claude Code reads any onFailure but "continue" as "block"
                if matcher.get("onFailure") not in (None, "continue"):
                    entry["failClosed"] = True
                handlers.append(entry)
            groups.append({"matcher": matcher.get("matcher") or "", "hooks": handlers})
        settings[event] = groups
    return load_hooks([(_Source(), {"hooks": settings})], problems)


def callback_runner(channel: ControlChannel) -> HandlersRunner:
    """A hook runner that asks the SDK to run each handler's callback (``hook_callback``)."""

    async def run_all(
        handlers: Sequence[HookHandler], payload: dict[str, Any], project_dir: Path
    ) -> list[HandlerRun]:
        tasks = [asyncio.ensure_future(_run(channel, h, payload)) for h in handlers]
        try:
            return list(await asyncio.gather(*tasks))
        except asyncio.CancelledError:  # Esc: each request is withdrawn
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise

    return run_all


async def _run(
    channel: ControlChannel, handler: HookHandler, payload: dict[str, Any]
) -> HandlerRun:
    started = time.monotonic()

    def elapsed() -> int:
        return int((time.monotonic() - started) * 1000)

    fields = {
        "callback_id": handler.command,
        "input": payload,
        "tool_use_id": payload.get("tool_use_id"),
    }
    try:
        # not wait_for: on 3.11 it can swallow Esc's cancellation that comes with the answer
        async with asyncio.timeout(handler.timeout):
            answer = await channel.request("hook_callback", fields)
    except TimeoutError:
        why = f"the callback did not answer within {handler.timeout:g} s"
        return HandlerRun(handler, None, "", "", elapsed(), why, timed_out=True)
    except ControlError as exc:
        return HandlerRun(handler, None, "", "", elapsed(), f"the callback failed: {exc}")
    if answer.get("async") is True:  # it goes on in the background: no verdict to wait for
        answer = {}
    return HandlerRun(handler, 0, json.dumps(answer), "", elapsed())
