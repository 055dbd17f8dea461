"""Pure permission policy: mode and rules -> allow / ask / deny.

This is the gate g(name, input) of LOOP-MODEL.md before a user is involved: ``decide`` never
does I/O beyond resolving paths, so it can be tested table-driven.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from tools.base import Tool, ToolContext, ToolError

Mode = Literal["default", "acceptEdits", "plan", "bypassPermissions"]
Verdict = Literal["allow", "ask", "deny"]
MODES: tuple[Mode, ...] = ("default", "acceptEdits", "plan", "bypassPermissions")
EDIT_TOOLS = frozenset({"Write", "Edit", "MultiEdit"})

_RULE = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*(?:\((.*)\))?\s*$")


@dataclass(frozen=True)
class Rule:
    """``Tool`` or ``Tool(specifier)``; a Bash specifier ending in ``:*`` is a prefix."""

    tool: str
    specifier: str | None = None

    @classmethod
    def parse(cls, text: str) -> Rule:
        m = _RULE.match(text)
        if not m:
            raise ValueError(f"not a permission rule: {text!r} (expected Tool or Tool(specifier))")
        spec = m.group(2)
        return cls(m.group(1), spec.strip() if spec is not None else None)

    def __str__(self) -> str:
        return self.tool if self.specifier is None else f"{self.tool}({self.specifier})"

    def matches(self, name: str, args: dict[str, Any]) -> bool:
        if name != self.tool:
            return False
        if self.specifier is None:
            return True
        if name == "Bash":
            command = str(args.get("command", "")).strip()
            if self.specifier.endswith(":*"):
                prefix = self.specifier[:-2].strip()
                return command == prefix or command.startswith(prefix + " ")
            return command == self.specifier
        return False


@dataclass
class Policy:
    """What may run without asking.

    Attributes:
        mode: default, acceptEdits, plan or bypassPermissions.
        allow: rules that run without asking (a bare tool name: inside the workspace only).
        deny: rules that never run, in every mode.
    """

    mode: Mode = "default"
    allow: list[Rule] = field(default_factory=list)
    deny: list[Rule] = field(default_factory=list)

    def decide(
        self, tool: Tool, args: dict[str, Any], ctx: ToolContext
    ) -> tuple[Verdict, str]:
        """The verdict for one call, with a reason for deny."""
        name = tool.name
        if any(r.matches(name, args) for r in self.deny):
            return "deny", f"{name} is denied by a permission rule."
        if self.mode == "bypassPermissions":
            return "allow", ""
        if self.mode == "plan" and not tool.read_only:
            return "deny", (
                f"{name} was not run: eddy is in plan mode, where nothing that changes state "
                "runs. Present your plan to the user instead."
            )
        try:
            paths = tool.paths(args, ctx)
        except ToolError:
            paths = []
        inside = all(p.inside for p in paths)
        if tool.read_only and inside:
            return "allow", ""
        if self.mode == "acceptEdits" and name in EDIT_TOOLS and inside:
            return "allow", ""
        for rule in self.allow:
            if rule.matches(name, args) and (inside or rule.specifier is not None):
                return "allow", ""
        return "ask", ""


def suggested_rule(name: str, args: dict[str, Any]) -> str:
    """The rule "yes, don't ask again" saves: program and subcommand with ``:*`` for Bash."""
    if name == "Bash":
        words = str(args.get("command", "")).split()
        head = [w for w in words[:2] if re.match(r"^[\w./-]+$", w)]
        if head:
            return f"Bash({' '.join(head)}:*)"
    return name
