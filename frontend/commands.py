"""Slash commands: the built-in list (for completion and /help) and custom commands.

Custom commands are markdown files in ``.eddy/commands/`` (the project's) and
``~/.config/eddy/commands/`` (the user's): ``/name args`` sends the file's body as the prompt
with ``$ARGUMENTS`` replaced by ``args``. A project command beats a user command of the same
name; built-ins beat both.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agent.paths import config_dir

BUILTINS: dict[str, str] = {
    "help": "show the commands and keys",
    "clear": "start a new session (the old one stays resumable)",
    "compact": "summarise the conversation to free context: /compact [what to focus on]",
    "rewind": "go back to an earlier prompt: code, conversation or both",
    "resume": "resume an earlier session of this project",
    "rename": "give this session a title: /rename TITLE",
    "model": "show or switch the model: /model [name]",
    "cost": "the session's cost and token usage",
    "context": "what fills the context window",
    "budget": "cap this session's spend: /budget 5 (0 removes the cap)",
    "turns": "cap tool turns per prompt: /turns 20 (0 removes the cap)",
    "permissions": "view and edit permission rules (allow|ask|deny RULE, remove RULE)",
    "theme": "switch the colour theme",
    "init": "survey the repository and write a starter AGENTS.md",
    "memory": "edit AGENTS.md in $EDITOR",
    "exit": "quit eddy",
}

INIT_PROMPT = """Survey this repository and write a concise AGENTS.md at its root for future \
coding agents: what the project is, how to install, build, test and lint it (exact commands), \
the layout of its main directories, and the conventions a contributor must follow. Read the \
manifests, README and a few representative files first; keep it under 60 lines. If an \
AGENTS.md exists, improve it instead of replacing what is still true."""


@dataclass(frozen=True)
class CustomCommand:
    name: str
    path: Path
    description: str

    def expand(self, arguments: str) -> str:
        body = self.path.read_text(errors="replace")
        if "$ARGUMENTS" in body:
            return body.replace("$ARGUMENTS", arguments)
        return body if not arguments else f"{body.rstrip()}\n\n{arguments}"


def custom_commands(workspace: Path) -> dict[str, CustomCommand]:
    """Custom commands by name (project ones override the user's)."""
    found: dict[str, CustomCommand] = {}
    for folder in (config_dir() / "commands", workspace / ".eddy" / "commands"):
        try:
            files = sorted(folder.glob("*.md"))
        except OSError:
            continue
        for f in files:
            try:
                first = f.read_text(errors="replace").strip().splitlines()
            except OSError:
                continue
            desc = first[0].lstrip("# ").strip()[:80] if first else ""
            found[f.stem] = CustomCommand(f.stem, f, desc or "custom command")
    return found


def parse(text: str) -> tuple[str, str] | None:
    """``("name", "args")`` for ``/name args``, else None (also for ``/`` paths like /usr)."""
    if not text.startswith("/") or text.startswith("//"):
        return None
    head, _, rest = text[1:].partition(" ")
    if not head or "/" in head:
        return None
    return head, rest.strip()


def completions(prefix: str, workspace: Path) -> list[tuple[str, str]]:
    """(``/name``, description) for commands starting with ``prefix`` (without the slash)."""
    items = dict(BUILTINS)
    for name, cmd in custom_commands(workspace).items():
        items.setdefault(name, cmd.description)
    return [(f"/{n}", d) for n, d in sorted(items.items()) if n.startswith(prefix)]
