"""Slash commands over ACP: the one table of frontend/commands.py, run against this front end.

An editor shows what ``available_commands_update`` lists and sends ``/name arg`` as a prompt.
Commands that need a terminal or a dialog of eddy's own (themes, $EDITOR, the session picker)
are not offered; typed anyway, they answer that the editor does it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from pathlib import Path
from typing import Any

from acp import schema

from acp_agent.live import LiveSession
from agent import ops
from agent.plugins.plugin import Plugin
from agent.prompt.commands import custom_commands
from frontend.command_frontend import Kind
from frontend.commands import COMMANDS, start_command

OFFERED = ("compact", "init", "cost", "context", "model", "rename", "budget", "turns", "help")
"""The built-in commands an editor lists (the rest need eddy's own screen)."""

HINTS = {
    "compact": "focus (optional)",
    "model": "model name (optional)",
    "rename": "title",
    "budget": "dollars (0 removes the cap)",
    "turns": "tool turns per prompt (0 removes the cap)",
    "init": "what to stress (optional)",
}

ELSEWHERE = "Over ACP the editor does this: {what}."


def available_commands(
    workspace: Path, plugins: Sequence[Plugin] = ()
) -> list[schema.AvailableCommand]:
    """The commands to advertise: the offered built-ins, then the project's custom ones and
    the ``plugins``'."""
    out = []
    for name in OFFERED:
        hint = HINTS.get(name)
        out.append(
            schema.AvailableCommand(
                name=name,
                description=COMMANDS[name].description,
                input=(
                    schema.AvailableCommandInput(root=schema.UnstructuredCommandInput(hint=hint))
                    if hint
                    else None
                ),
            )
        )
    try:
        custom = custom_commands(workspace, plugins)
    except OSError:
        custom = {}
    for name, command in sorted(custom.items()):
        if name not in COMMANDS:
            out.append(schema.AvailableCommand(name=name, description=command.description))
    return out


class AcpFrontEnd:
    """What a command handler may ask of a front end (``frontend.commands.FrontEnd``), over
    ACP: lines become agent text, prompts are sent as the client's prompt would be."""

    def __init__(self, live: LiveSession) -> None:
        self.live = live
        self.sent: list[str] = []
        """Prompts the command sent (``/init``, custom commands): the caller runs them."""

    @property
    def workspace(self) -> Path:
        return self.live.workspace

    @property
    def session(self) -> Any:
        return self.live.session

    @property
    def keys_help(self) -> str:
        return "Keys: the editor's (its stop button is Esc)."

    @property
    def launch_model(self) -> str:
        assert self.live.session is not None
        return self.live.session.status().model

    @property
    def launch_rules(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        return (), ()

    @property
    def columns(self) -> int | None:
        return None  # the editor wraps

    def say(self, text: str, kind: Kind = "hint") -> None:
        self.live.say(f"**{text}**" if kind == "error" else text)

    def send(self, prompt: str) -> None:
        self.sent.append(prompt)

    def submit(self, op: ops.Op) -> None:
        if self.live.session is not None:
            self.live.session.submit(op)

    def running_cost(self) -> float:
        session = self.live.session
        return session.total_cost if session is not None else 0.0

    def context_use(self) -> tuple[int, int]:
        session = self.live.session
        if session is None:
            return 0, 0
        status = session.status()
        return status.context_tokens, status.context_window

    def limits_changed(self) -> None:
        """Nothing shows the limits over ACP."""

    def model_changed(self, model: str) -> None:
        """The engine's notice says so."""

    def new_session(self) -> Awaitable[None] | None:
        self.say(ELSEWHERE.format(what="start a new thread"))
        return None

    def open_resume(self, arg: str) -> Awaitable[None] | None:
        self.say(ELSEWHERE.format(what="open an earlier session (session/load)"))
        return None

    def open_rewind(self, arg: str) -> Awaitable[None] | None:
        self.say(ELSEWHERE.format(what="rewind (eddy's _eddy/rewind method)"))
        return None

    def show_shell(self, shell: Any) -> None:
        from frontend.bashes import shell_view

        self.say("\n".join(shell_view(shell)))

    def show_subagent(self, path: Path, title: str) -> None:
        from frontend.subagent_transcripts import transcript_lines

        self.say("\n".join([f"{title}:", *transcript_lines(path)]))

    def compact(self, focus: str) -> None:
        self.submit(ops.Compact(focus))

    def open_permissions(self, editor: Any) -> None:
        self.say(ELSEWHERE.format(what="edit permission rules (or eddy's settings files)"))

    def open_mcp(self, manager: Any) -> None:
        from agent.mcp.command import listing

        for text, kind in listing(manager):
            self.say(text, kind)  # type: ignore[arg-type]

    def themes(self) -> tuple[str, list[str], list[str]] | None:
        return None

    def set_theme(self, name: str) -> bool:
        return False

    def edit_file(self, path: Path) -> Awaitable[str | None] | str | None:
        return f"Open {path} in the editor."

    def quit(self) -> None:
        self.say(ELSEWHERE.format(what="close the thread"))


async def run_slash(live: LiveSession, text: str) -> tuple[bool, list[str]]:
    """Run ``text`` if it is a slash command: whether it was one, and the prompts it sent."""
    fe = AcpFrontEnd(live)
    handled, pending = start_command(fe, text)
    if pending is not None:
        await pending
    return handled, fe.sent
