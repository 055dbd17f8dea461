"""The tools the model calls, one per module, and the default set."""

from __future__ import annotations

import importlib

from tools.base import Tool

TOOL_MODULES: dict[str, str] = {
    "Read": "tools.read",
    "Write": "tools.write",
    "Edit": "tools.edit",
    "MultiEdit": "tools.multiedit",
    "Bash": "tools.bash",
    "Glob": "tools.glob",
    "Grep": "tools.grep",
    "TodoWrite": "tools.todo",
    "WebFetch": "tools.webfetch",
    "NotebookEdit": "tools.notebook_edit",
    "BashOutput": "tools.bash_output",
    "KillShell": "tools.kill_shell",
    "TaskStop": "tools.task_stop",
    "AskUserQuestion": "tools.ask_user_question",
    "ExitPlanMode": "tools.exit_plan_mode",
    "Agent": "tools.agent",
}
"""Tool name -> module; each module exposes a ``TOOL`` instance."""


def default_tools() -> list[Tool]:
    """The built-in tools, in a fixed order (the tools block must be byte-stable for caching)."""
    return [importlib.import_module(mod).TOOL for mod in TOOL_MODULES.values()]
