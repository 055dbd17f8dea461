"""The system prompt: stable for the whole session so the prompt cache keeps hitting.

It names the environment (working directory, platform, date, whether it is a git repository)
and how to use the tools. No clock time and nothing that changes between calls.
"""

from __future__ import annotations

import datetime
import platform
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent.prompt.output_styles import OutputStyle

INTRO = """You are eddy, an interactive coding agent working in the user's terminal, in their \
repository. You help with software engineering tasks: fixing bugs, adding features, \
refactoring, explaining code, running tests.
"""

CODING = """
# How to work
- Be concise and direct; the user reads your answers in a terminal. Use GitHub-flavoured \
markdown. No preamble, no summary of what you are about to do unless asked.
- Before changing code, read the relevant files and follow the project's conventions, \
libraries and style. Never assume a library is available: check the project's manifests.
- Use the tools: Read to read files (never cat), Edit/MultiEdit to change them (Read them \
first), Write only for new files or full rewrites, Glob and Grep to search (never find or grep \
in Bash), Bash for commands such as tests, builds and git. Make independent read-only calls \
in one response so they run in parallel.
- Use TodoWrite to plan and track multi-step work; keep exactly one task in progress.
- After a change, verify it: run the tests or the relevant command.
- A tool result may say the user refused a call or interrupted it: respect that, do not retry \
the same call; ask what to do instead if unclear. Text the user adds after tool results is a \
correction written while you worked: follow it.
- Never commit, push or do anything destructive unless the user asked for it.
"""
"""The coding part: an output style with ``keep-coding-instructions: false`` drops it."""

BASE = INTRO + CODING


def _is_git_repo(cwd: Path) -> bool:
    return any((p / ".git").exists() for p in (cwd, *cwd.parents))


def system_prompt(
    cwd: Path,
    memory: str = "",
    today: datetime.date | None = None,
    style: OutputStyle | None = None,
) -> str:
    """Build the system prompt for a session started in ``cwd``.

    Args:
        cwd: the workspace root.
        memory: project memory (AGENTS.md / CLAUDE.md contents), appended verbatim.
        today: the date to state (defaults to today; fixed for the session).
        style: the output style (agent/prompt/output_styles.py): its body comes last; it may drop
            the coding part. None: Default.
    """
    today = today or datetime.date.today()
    env = (
        "# Environment\n"
        f"- Working directory: {cwd}\n"
        f"- Is a git repository: {'yes' if _is_git_repo(cwd) else 'no'}\n"
        f"- Platform: {platform.system().lower()}\n"
        f"- Today's date: {today.isoformat()}\n"
    )
    keep_coding = style is None or style.keep_coding
    text = (BASE if keep_coding else INTRO) + "\n" + env
    if memory.strip():
        text += "\n# Project instructions (from memory files)\n" + memory.strip() + "\n"
    if style is not None and style.body.strip():
        text += f"\n# Output style: {style.name}\n{style.body.strip()}\n"
    return text


def custom_system_prompt(text: str, memory: str = "") -> str:
    """The system prompt of a session given its own (``--system-prompt``, an Agent SDK's
    ``system_prompt``): ``text`` instead of eddy's instructions and environment, then the
    project memory (the memory files stay the user's instructions, as Claude Code keeps
    CLAUDE.md with a custom prompt). An empty ``text`` and no memory: no system prompt."""
    parts = [text.strip()] if text.strip() else []
    if memory.strip():
        parts.append("# Project instructions (from memory files)\n" + memory.strip())
    return "\n\n".join(parts) + ("\n" if parts else "")


def load_memory(cwd: Path, user_dir: Path | None = None) -> str:
    """The memory files' text for ``cwd`` (agent/memory: CLAUDE.md, AGENTS.md, imports, rules),
    with eddy's own user memory from ``user_dir``."""
    from agent.memory import read_memory

    return read_memory(cwd, user_dir).text()
