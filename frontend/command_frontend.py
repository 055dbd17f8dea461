"""The :class:`FrontEnd` protocol: what a slash-command handler may ask of the front end it
runs in (say a line, send a prompt, switch sessions, open the rewind or permission dialogs, ...).

The TUI (tui/commands.py) and the line mode (plain/commands.py) implement it; the command table
that uses it is frontend/commands.py.
"""

from __future__ import annotations

from collections.abc import Awaitable
from pathlib import Path
from typing import Any, Literal, Protocol

from agent import ops

Kind = Literal["hint", "notice", "error"]
"""How a line is shown: a hint (dim), a notice (cyan), an error (red/yellow)."""


class FrontEnd(Protocol):
    """What a command handler may ask of the front end it runs in."""

    @property
    def workspace(self) -> Path: ...

    @property
    def session(self) -> Any:
        """The session once it is ready, else None."""

    @property
    def keys_help(self) -> str:
        """The front end's keys, for /help."""

    @property
    def launch_model(self) -> str:
        """The model the command line asked for (before the session exists)."""

    @property
    def launch_rules(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """--allowed-tools and --disallowed-tools."""

    @property
    def columns(self) -> int | None:
        """How wide a line may be before the view wraps it (None: it does not wrap)."""

    def say(self, text: str, kind: Kind = "hint") -> None: ...

    def send(self, prompt: str) -> None:
        """Send ``prompt`` to the model as if the user typed it."""

    def submit(self, op: ops.Op) -> None: ...

    def running_cost(self) -> float:
        """The session's spend including the running turn (the status line's figure)."""

    def context_use(self) -> tuple[int, int]:
        """(tokens in context, the window), 0s when not known yet."""

    def limits_changed(self) -> None:
        """The budget or turn cap changed: update what shows them."""

    def model_changed(self, model: str) -> None:
        """The session switched to ``model``: update what shows it."""

    def new_session(self) -> Awaitable[None] | None:
        """/clear: close the session and open a new one."""

    def open_resume(self, arg: str) -> Awaitable[None] | None:
        """/resume [ID]: open another session of the project (a picker without an id)."""

    def open_rewind(self, arg: str) -> Awaitable[None] | None:
        """/rewind [N [code|conversation|both]]: pick a prompt and what to restore."""

    def show_subagent(self, path: Path, title: str) -> None:
        """/agents ID: show a subagent's whole transcript (``path``), read-only."""

    def show_shell(self, shell: Any) -> None:
        """/bashes ID: show a background shell's output (live where the view can follow it;
        ``frontend.bashes.shell_view`` otherwise)."""

    def compact(self, focus: str) -> None:
        """/compact [focus]: summarise the conversation."""

    def open_permissions(self, editor: Any) -> None:
        """/permissions with no argument: the rules (a dialog, or the listing)."""

    def open_mcp(self, manager: Any) -> None:
        """/mcp with no argument: the session's MCP servers (``agent.mcp.manager.McpManager``)
        as a menu, or the listing (``agent.mcp.command.listing``)."""

    def themes(self) -> tuple[str, list[str], list[str]] | None:
        """(the current theme, eddy's themes, the others offered); None where themes do not
        apply."""

    def set_theme(self, name: str) -> bool:
        """Switch to theme ``name``; False if there is none of that name."""

    def edit_file(self, path: Path) -> Awaitable[str | None] | str | None:
        """Open ``path`` in $VISUAL/$EDITOR with the terminal handed over; an error or None."""

    def quit(self) -> None: ...
