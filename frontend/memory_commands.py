"""The handlers of /init (ask the model to write AGENTS.md) and /memory (edit it in $EDITOR),
for the one table in frontend/commands.py."""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from frontend.command_frontend import FrontEnd

INIT_PROMPT = """Survey this repository and write a concise AGENTS.md at its root for future \
coding agents: what the project is, how to install, build, test and lint it (exact commands), \
the layout of its main directories, and the conventions a contributor must follow. Read the \
manifests, README and a few representative files first; keep it under 60 lines. If an \
AGENTS.md exists, improve it instead of replacing what is still true."""

MEMORY_STARTER = """# AGENTS.md

Instructions for coding agents working in this repository (eddy loads this file into its
system prompt).
"""


def init(fe: FrontEnd, arg: str) -> None:
    fe.send(INIT_PROMPT if not arg else f"{INIT_PROMPT}\n\n{arg}")


async def memory(fe: FrontEnd, arg: str) -> None:
    path = fe.workspace / "AGENTS.md"
    created = False
    if not path.exists():
        try:
            path.write_text(MEMORY_STARTER, encoding="utf-8")
            created = True
        except OSError as exc:
            fe.say(f"Could not create {path}: {exc.strerror or exc}", "error")
            return
    note = " (created)" if created else ""
    error = fe.edit_file(path)
    if inspect.isawaitable(error):
        error = await error
    if error:
        fe.say(f"Project memory: {path}{note}. {error}", "error")
        return
    fe.say(
        f"Project memory: {path}{note}. eddy reads it in new sessions (/clear) and after /compact."
    )
