"""The full-screen app as a :class:`frontend.commands.FrontEnd`: slash commands run from the
one table in frontend/commands.py; this file only says how the app does what they ask.

``SlashCommands.run(text)`` runs ``text`` at once if it is a command
(frontend.commands.parse: ``/usr/bin/x`` is not one and goes to the model), what a handler
must wait for in a worker; an unknown ``/name`` is answered, never sent.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent import ops
from tools.childenv import child_env

if TYPE_CHECKING:
    from frontend.command_frontend import Kind
    from tui.app import EddyApp

KEYS = """Keys:
  Enter sends; while eddy works, it queues a correction for the model's next step
  ctrl+j or shift+enter: new line · ↑/↓: prompt history (↑ on an empty prompt: take the queue back)
  Esc stops the model (what you queued is sent at once) · Esc Esc on an empty prompt: rewind
  shift+tab: permission mode (default → acceptEdits → plan)
  Tab completes /commands and @paths (@path attaches the file) · !command runs a shell command
  ctrl+c stops the model, clears the prompt, twice on an empty prompt quits · ctrl+d quits
  PageUp/PageDown, shift+↑/↓, ctrl+home/end scroll the conversation
  a long paste shows as a chip: ctrl+t puts its text in the prompt to edit
  ctrl+b sends the running Bash command to the background (/bashes lists them)
  ctrl+o expands tool output · ctrl+p command palette"""


class SlashCommands:
    """Runs ``/commands`` against the app (the FrontEnd protocol of frontend/commands.py).

    Args:
        app: the running app.
    """

    keys_help = KEYS

    def __init__(self, app: EddyApp) -> None:
        self.app = app

    def run(self, text: str) -> bool:
        """Whether ``text`` is a command (then it runs, in a worker); False for a prompt."""
        from frontend.commands import start_command  # the table: not before the first frame

        handled, pending = start_command(self, text)
        if pending is not None:
            self.app.run_worker(pending, group="command", exit_on_error=False)
        return handled

    # -- FrontEnd ---------------------------------------------------------------------------
    @property
    def workspace(self) -> Path:
        return self.app.workspace

    @property
    def session(self) -> Any:
        app = self.app
        return app.session if app.main.session is not None else None

    @property
    def launch_model(self) -> str:
        return self.app.args.model

    @property
    def launch_rules(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        return self.app.args.allowed_tools, self.app.args.disallowed_tools

    @property
    def columns(self) -> int | None:
        return None  # a MessageLine wraps a long line under its own text, at any width

    def say(self, text: str, kind: Kind = "hint") -> None:
        self.app.main.say(text, kind)

    def send(self, prompt: str) -> None:
        self.app.main.send(prompt)

    def submit(self, op: ops.Op) -> None:
        self.app.session.submit(op)

    def running_cost(self) -> float:
        return float(self.app.main.status.cost)

    def context_use(self) -> tuple[int, int]:
        status = self.app.main.status
        return int(status.context_tokens), int(status.context_window)

    def limits_changed(self) -> None:
        status = self.app.main.status
        now = self.app.session.status()
        status.max_budget, status.max_turns = now.max_budget_usd, now.max_turns
        status.refresh_line()

    def model_changed(self, model: str) -> None:
        from agent.model.pricing import context_window

        status = self.app.main.status
        status.model = getattr(self.app.session.model, "name", model) or model
        if status.context_window:
            status.context_window = context_window(model)
        status.refresh_line()

    def new_session(self) -> None:
        self.app.switch_session(None)

    def open_resume(self, arg: str) -> None:
        self.app.open_resume(arg)

    def open_rewind(self, arg: str) -> None:
        self.app.main.open_rewind()

    def show_shell(self, shell: Any) -> None:
        from tui.screens.shell_output import ShellOutputScreen

        self.app.push_screen(ShellOutputScreen(shell))

    def show_subagent(self, path: Path, title: str) -> None:
        from tui.screens.subagent_transcript import open_transcript

        open_transcript(self.app, path, title)

    def compact(self, focus: str) -> None:
        self.app.main.compact(focus)

    def open_permissions(self, editor: Any) -> None:
        from tui.screens.permissions import PermissionsScreen

        def closed(changes: list[str] | None) -> None:
            for text in changes or ():
                self.say(text, "notice")

        self.app.push_screen(PermissionsScreen(editor), closed)

    def open_mcp(self, manager: Any) -> None:
        from tui.screens.mcp import McpScreen

        self.app.push_screen(McpScreen(manager))

    def themes(self) -> tuple[str, list[str], list[str]]:
        """eddy's themes by their short names (``dark`` for ``eddy-dark``) first, then
        Textual's own."""
        short = self._short_names()
        others = sorted(n for n in self.app.available_themes if n not in short.values())
        theme = self.app.theme
        current = theme.removeprefix("eddy-") if theme in short.values() else theme
        return current, list(short), others

    def set_theme(self, name: str) -> bool:
        name = self._short_names().get(name, name)
        if name not in self.app.available_themes:
            return False
        self.app.theme = name
        return True

    @staticmethod
    def _short_names() -> dict[str, str]:
        from themes import THEMES

        return {t.name.removeprefix("eddy-"): t.name for t in THEMES}

    def edit_file(self, path: Path) -> str | None:
        from textual.app import SuspendNotSupported

        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
        if not editor:
            return (
                "$EDITOR is not set, so eddy cannot open it: edit it yourself, or set EDITOR "
                "(e.g. export EDITOR=nano) and run /memory."
            )
        try:
            with self.app.suspend():
                result = subprocess.run(
                    [*shlex.split(editor), str(path)], env=child_env(), check=False
                )
        except SuspendNotSupported:
            return "Cannot hand the terminal to an editor here; edit it yourself."
        except (OSError, ValueError) as exc:
            return f"Could not run {editor!r}: {exc}"
        if result.returncode:
            return f"{editor} exited with status {result.returncode}."
        return None

    def quit(self) -> None:
        self.app.quit_app()
