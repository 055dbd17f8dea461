"""``/permissions why "Bash(git push origin main)"``: the decision for one imagined call and
the rule, file and line that made it.

The argument is written like a rule (``Tool(what)``) but names one call: ``Bash(command)``,
``Read(path)`` / ``Edit(path)`` / ``Write(path)``, ``Glob(pattern)``, ``Grep(pattern)``,
``WebFetch(url)``, or a bare tool name (``mcp__github__create_issue``). The decision comes from
the same ``Policy.check`` the gate uses, so it cannot drift from what would happen. Claude Code
users cannot see this (anthropics/claude-code#6850, #18160); eddy says it.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, field
from typing import Any

from agent.permissions.policy import Decision, Policy, Rule
from tools.base import ResolvedPath, Tool, ToolContext, ToolResult

_CALL = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*(?:\((.*)\))?\s*$", re.S)
_VERDICT = {"allow": "runs without asking", "ask": "asks first", "deny": "is refused"}


@dataclass
class _NamedTool:
    """A tool eddy does not have built in (MCP, WebFetch): only its name matters to rules."""

    name: str
    read_only: bool = False
    description: str = ""
    input_schema: dict[str, Any] = field(default_factory=dict)

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        raise AssertionError("never run")

    def paths(self, args: dict[str, Any], ctx: ToolContext) -> list[ResolvedPath]:
        return []

    def summary(self, args: dict[str, Any]) -> str:
        return ""


def tool_named(name: str) -> Tool:
    """The built-in tool ``name``, or a stand-in with that name (an MCP tool, WebFetch when not
    built in): what the rules judge by name."""
    from tools import TOOL_MODULES

    module = TOOL_MODULES.get(name)
    if module is not None:
        try:
            tool: Tool = importlib.import_module(module).TOOL
            return tool
        except ImportError:
            pass
    return _NamedTool(name)


def call_for(text: str) -> tuple[str, dict[str, Any]]:
    """The tool name and input a ``Tool(what)`` argument stands for.

    Raises:
        ValueError: it is not of that form.
    """
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        text = text[1:-1]
    m = _CALL.match(text)
    if not m:
        raise ValueError(f'expected Tool or Tool(what), like "Bash(git push)"; got {text!r}')
    name, what = m.group(1), (m.group(2) or "").strip()
    if name == "Bash":
        return name, {"command": what}
    if name in ("Glob", "Grep"):
        return name, {"pattern": what or "*"}
    if name == "WebFetch":
        url = what if "://" in what or not what else f"https://{what}"
        return name, {"url": url, "prompt": ""}
    if name in ("Read", "Edit", "Write", "MultiEdit", "NotebookEdit"):
        args: dict[str, Any] = {"file_path": what}
        if name == "Edit":
            args |= {"old_string": "a", "new_string": "b"}
        elif name == "Write":
            args |= {"content": ""}
        elif name == "MultiEdit":
            args |= {"edits": [{"old_string": "a", "new_string": "b"}]}
        return name, args
    return name, {}


def where(rule: Rule) -> str:
    """Where a rule comes from: ``.claude/settings.json line 12``, or the command line."""
    if rule.source is None:
        return "the command line or this session"
    return f"{rule.source} line {rule.line}" if rule.line else rule.source


def decide(policy: Policy, ctx: ToolContext, text: str) -> tuple[Decision, str]:
    """The decision for the call ``text`` names, and the text that explains it.

    Raises:
        ValueError: ``text`` does not name a call.
    """
    name, args = call_for(text)
    decision = policy.check(tool_named(name), args, ctx)
    head = f"{text.strip()}: {decision.verdict} ({name} {_VERDICT[decision.verdict]})"
    lines = [head]
    if decision.by is not None:
        listed = next(
            (k for k in ("deny", "ask", "allow") if decision.by in getattr(policy, k)), "allow"
        )
        lines.append(f"  rule: {listed} {decision.by} — {where(decision.by)}")
    else:
        lines.append(f"  rule: none; the {policy.mode} mode decides")
    if decision.reason:
        lines.append(f"  why: {decision.reason}")
    return decision, "\n".join(lines)
