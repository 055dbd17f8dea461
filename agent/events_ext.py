"""Events of what extends a turn: hooks running (agent/hooks), a prompt a hook blocked, a
subagent's events wrapped with its id (agent/subagents), and what runs in the background.
Part of ``agent.events.Event`` (import them from there)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal


@dataclass(frozen=True)
class HookStarted:
    """A hook handler started (agent/hooks): stream-json's ``hook_started`` system message.
    Its :class:`HookRan` follows with the same ``hook_id``.

    Attributes:
        hook_event: the event it runs for (PreToolUse, Stop, ...).
        command: its command line; ``source`` the settings file that defined it.
        hook_id: this run's id (its HookRan has it too).
    """

    turn_id: int
    hook_event: str
    command: str
    source: str
    hook_id: str
    type: Literal["hook_started"] = "hook_started"


@dataclass(frozen=True)
class HookRan:
    """A hook handler ran (agent/hooks): shown collapsed in the TUI, as a line in line mode,
    as a ``hook_response`` system message in stream-json, and saved in the transcript.

    Attributes:
        hook_event: the event it ran for (PreToolUse, Stop, ...).
        command: its command line; ``source`` the settings file that defined it.
        exit_code: its exit status, or None (timed out, could not start, killed).
        outcome: ``success``, ``blocked`` (exit 2 or a deny/block decision), ``error``,
            ``cancelled`` (Esc killed it).
        decision: what it decided (allow, deny, ask, block), if anything.
        output: a short excerpt of what it printed (stdout, else stderr) or its error.
        hook_id: this run's id (its HookStarted's).
        suppressed: its JSON said ``suppressOutput: true``: its stdout is not shown or kept
            (``stdout`` and ``output`` leave it out); the views show only that it ran.
    """

    turn_id: int
    hook_event: str
    command: str
    source: str
    exit_code: int | None
    outcome: str
    decision: str | None
    output: str
    stdout: str
    stderr: str
    duration_ms: int
    hook_id: str = ""
    suppressed: bool = False
    type: Literal["hook_ran"] = "hook_ran"


@dataclass(frozen=True)
class PromptBlocked:
    """A UserPromptSubmit hook blocked a prompt: nothing was sent and the history is
    unchanged; front ends put ``prompt`` back in the input so the user can edit it."""

    prompt: str
    reason: str
    turn_id: int
    type: Literal["prompt_blocked"] = "prompt_blocked"


@dataclass(frozen=True)
class SubagentEvent:
    """Something a subagent did, under the Agent call that runs it.

    The child's own event is ``event`` (as ``to_json`` makes it: its ``turn_id`` is the
    child's); it changes nothing in the main conversation, so front ends show it under the
    call ``call_id`` (Claude Code's ``parent_tool_use_id``) and the transcript skips it (the
    child has its own). Text and thinking deltas are not forwarded.

    Attributes:
        turn_id: the main agent's turn.
        call_id: the tool_use id of the Agent call that started the child (for a grandchild,
            its own parent's Agent call).
        agent_id: the child's id (its transcript is ``subagents/agent-<id>.jsonl``).
        agent_type: the definition's name (``Explore``).
        depth: 1 for a child of the main agent, 2 for a grandchild, ...
        event: the child's event as a JSON-ready dict (``from_json`` restores it).
    """

    turn_id: int
    call_id: str
    agent_id: str
    agent_type: str
    depth: int
    event: dict[str, Any]
    type: Literal["subagent_event"] = "subagent_event"


@dataclass(frozen=True)
class BackgroundChanged:
    """A background shell or agent started or ended: what runs beside the conversation now
    (the status lines show it, as Claude Code's footer does).

    Attributes:
        shells: background shells running (Bash ``run_in_background``, Ctrl+B).
        agents: background agents running (Agent ``run_in_background``).
    """

    turn_id: int
    shells: int
    agents: int
    type: Literal["background_changed"] = "background_changed"
