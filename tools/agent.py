"""Agent: start a subagent on a task (Claude Code's ``Agent``, once ``Task``).

The child runs eddy's loop with its own context and tools and returns only its final
answer, so a long search or review does not fill the caller's context. The work itself is
the engine's (``agent.subagents``, reached through ``ctx.subagents``): tools cannot import the
engine. Agent calls of one response run concurrently (they are independent; the engine
serialises their changes to one file), hence ``read_only``: the flag means "may run beside
other such calls", and the permission layer lets the children's own calls through the gate.
"""

from __future__ import annotations

from typing import Any

from tools.base import ResolvedPath, ToolContext, ToolError, ToolResult

ALIASES = ("Task",)
"""Older names of this tool (transcripts of Claude Code and older eddy say ``Task``)."""

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "description": {
            "type": "string",
            "description": "A short (3-5 word) description of the task",
        },
        "prompt": {"type": "string", "description": "The task for the agent to perform"},
        "subagent_type": {
            "type": "string",
            "description": "The type of specialized agent to use for this task",
        },
        "model": {
            "type": "string",
            "enum": ["sonnet", "opus", "haiku"],
            "description": "Optional model for this agent; default: the agent type's model "
            "or the caller's",
        },
        "run_in_background": {
            "type": "boolean",
            "description": "Set to true to run this agent in the background; you are told "
            "when it completes",
        },
    },
    "required": ["description", "prompt", "subagent_type"],
    "additionalProperties": False,
}

_INTRO = (
    "Launch a new agent to handle a complex, multi-step task on its own. The agent starts "
    "with no context but your prompt, works with its own tools, and returns one final "
    "report, which only you see: write a complete, self-contained prompt and say what the "
    "report should contain. Launch several agents in one response to run them concurrently. "
    "Use it for open-ended searches and independent investigations that would otherwise "
    "fill your context; for a known file or symbol, use Read, Glob or Grep directly."
)


def describe(agents: list[tuple[str, str, tuple[str, ...] | None]]) -> str:
    """The tool's description with the agent types: (name, description, tools) each, in the
    catalog's order (fixed, so the tools block stays byte-stable for caching)."""
    lines = [_INTRO, "", "Available agent types (subagent_type) and their tools:"]
    for name, description, tools in agents:
        have = "all tools" if tools is None else ", ".join(tools)
        lines.append(f"- {name}: {description} (Tools: {have})")
    return "\n".join(lines)


class AgentTool:
    """The Agent tool; ``agents`` are the types its description lists."""

    name = "Agent"
    input_schema = INPUT_SCHEMA
    read_only = True

    def __init__(self, agents: list[tuple[str, str, tuple[str, ...] | None]] | None = None):
        self.description = describe(agents or [])

    def paths(self, args: dict[str, Any], ctx: ToolContext) -> list[ResolvedPath]:
        return []

    def summary(self, args: dict[str, Any]) -> str:
        kind, what = args.get("subagent_type", ""), args.get("description", "")
        return f"{kind}: {what}" if kind and what else str(kind or what)

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        launcher = ctx.subagents
        if launcher is None:
            raise ToolError("Subagents are not available in this session.")
        if not str(args.get("prompt", "")).strip():
            raise ToolError("The prompt is empty; say what the agent should do.")
        result: ToolResult = await launcher.launch(args, ctx)
        return result


TOOL = AgentTool()
