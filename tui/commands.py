"""Slash commands of the full-screen app.

``SlashCommands.run(text)`` handles ``/name args`` (agent.commands.parse decides what is a
command: ``/usr/bin/x`` is not one and goes to the model). Built-in commands act on the app;
custom commands (``.eddy/commands/*.md``, ``~/.config/eddy/commands/*.md``) are expanded and
sent as a prompt; an unknown ``/name`` is answered here, never sent.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agent import ops
from agent.commands import BUILTINS, INIT_PROMPT, custom_commands, parse

if TYPE_CHECKING:
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
  ctrl+o expands tool output · ctrl+p command palette"""

MEMORY_STARTER = """# AGENTS.md

Instructions for coding agents working in this repository (eddy loads this file into its
system prompt).
"""


class SlashCommands:
    """Runs ``/commands`` against the app.

    Args:
        app: the running app.
    """

    def __init__(self, app: EddyApp) -> None:
        self.app = app
        self.handlers: dict[str, Callable[[str], None]] = {
            "help": self.cmd_help,
            "clear": self.cmd_clear,
            "compact": self.cmd_compact,
            "rewind": self.cmd_rewind,
            "resume": self.cmd_resume,
            "rename": self.cmd_rename,
            "model": self.cmd_model,
            "cost": self.cmd_cost,
            "context": self.cmd_context,
            "budget": self.cmd_budget,
            "turns": self.cmd_turns,
            "permissions": self.cmd_permissions,
            "theme": self.cmd_theme,
            "init": self.cmd_init,
            "memory": self.cmd_memory,
            "exit": self.cmd_exit,
            "quit": self.cmd_exit,
        }

    # -- plumbing -------------------------------------------------------------------------
    @property
    def session(self) -> Any:
        return self.app.session

    def say(self, text: str, kind: Any = "hint") -> None:
        self.app.main.say(text, kind)

    def _custom(self) -> dict[str, Any]:
        try:
            return custom_commands(self.app.workspace)
        except OSError:
            return {}

    def run(self, text: str) -> bool:
        """Run ``text`` if it is a command; False when it is a prompt for the model."""
        parsed = parse(text.strip())
        if parsed is None:
            return False
        name, arg = parsed
        handler = self.handlers.get(name)
        if handler is not None:
            handler(arg)
            return True
        custom = self._custom().get(name)
        if custom is not None:
            try:
                prompt = custom.expand(arg)
            except OSError as exc:
                self.say(f"Could not read {custom.path}: {exc.strerror or exc}", "error")
                return True
            self.app.main.send(prompt)
            return True
        self.say(self._unknown(name), "error")
        return True

    def _unknown(self, name: str) -> str:
        """What an unknown ``/name`` is answered: the commands it starts, if any."""
        from agent.commands import completions

        try:
            near = [found for found, _ in completions(name, self.app.workspace)][:3]
        except OSError:
            near = []
        if near:
            return f"Unknown command /{name}. Did you mean {' or '.join(near)}?"
        return f"Unknown command /{name}. /help lists the commands."

    def _ready(self, what: str, *, idle: bool = True) -> bool:
        """Whether there is a session (idle, if asked); says why not."""
        session = self.session
        if session is None or self.app.main.session is None:
            self.say(f"The session is still starting; try {what} again in a moment.")
            return False
        if idle and session.busy:
            self.say(f"eddy is working: press Esc to stop it, then {what}.")
            return False
        return True

    # -- the commands -------------------------------------------------------------------
    def cmd_help(self, arg: str) -> None:
        names = dict(BUILTINS)
        custom = {n: c.description for n, c in self._custom().items() if n not in names}
        lines = ["Commands:"]
        lines += [f"  /{name:<14} {text}" for name, text in names.items()]
        if custom:
            lines.append("Custom commands:")
            lines += [f"  /{name:<14} {text}" for name, text in sorted(custom.items())]
        self.say("\n".join([*lines, KEYS]))

    def cmd_exit(self, arg: str) -> None:
        self.app.quit_app()

    def cmd_clear(self, arg: str) -> None:
        if self.session is not None and self.session.busy:
            self.say("eddy is working: press Esc to stop it, then /clear.")
            return
        self.app.switch_session(None)

    def cmd_resume(self, arg: str) -> None:
        if self.session is not None and self.session.busy:
            self.say("eddy is working: press Esc to stop it, then /resume.")
            return
        self.app.open_resume(arg)

    def cmd_rewind(self, arg: str) -> None:
        self.app.main.open_rewind()

    def cmd_compact(self, arg: str) -> None:
        if self._ready("/compact"):
            self.app.main.compact(arg)

    def cmd_rename(self, arg: str) -> None:
        if not arg:
            self.say("Usage: /rename TITLE (the resume list shows it).")
            return
        if not self._ready("/rename", idle=False):
            return
        transcript = self.session.transcript
        if transcript is None:
            self.say("This session is not saved, so it has no title to change.", "error")
            return
        try:
            transcript.rename(arg)
        except (OSError, ValueError) as exc:
            self.say(f"Could not rename the session: {exc}", "error")
            return
        self.say(f"Session renamed to “{arg}”.")

    def cmd_model(self, arg: str) -> None:
        from agent.pricing import context_window, known_models

        known = known_models()
        session = self.session
        current = session.config.model if session is not None else self.app.args.model
        if not arg:
            self.say(f"Model: {current}. Known models: {', '.join(known)}. /model NAME switches.")
            return
        if arg not in known:
            self.say(f"Unknown model {arg!r}. Known models: {', '.join(known)}.", "error")
            return
        if not self._ready("/model"):
            return
        session.submit(ops.SetModel(arg))  # the engine says so (a Notice)
        status = self.app.main.status
        status.model = getattr(session.model, "name", arg) or arg
        if status.context_window:
            status.context_window = context_window(arg)
        status.refresh_line()

    def cmd_cost(self, arg: str) -> None:
        from agent.context import cost_lines

        if not self._ready("/cost", idle=False):
            return
        lines = cost_lines(self.session)
        status = self.app.main.status
        if self.session.busy:
            lines.append(f"(with the running turn: ${status.cost:.4f})")
        limits = self.session.config.limits
        if limits.max_budget_usd is not None:
            lines.append(f"Budget:         ${limits.max_budget_usd:.2f} for this session")
        if status.context_window:
            pct = 100 * status.context_tokens / status.context_window
            lines.append(
                f"Context:        {status.context_tokens:,} of {status.context_window:,} "
                f"tokens ({pct:.0f}%)"
            )
        self.say("\n".join(lines))

    def cmd_context(self, arg: str) -> None:
        from agent.context import breakdown

        if self._ready("/context", idle=False):
            self.say("\n".join(breakdown(self.session).lines()))

    def cmd_budget(self, arg: str) -> None:
        from agent.context import budget_command

        if self._ready("/budget", idle=False):
            self._limit(*budget_command(self.session, arg))

    def cmd_turns(self, arg: str) -> None:
        from agent.context import turns_command

        if self._ready("/turns", idle=False):
            self._limit(*turns_command(self.session, arg))

    def _limit(self, message: str, error: bool) -> None:
        self._show_limits()
        self.say(message, "error" if error else "hint")

    def _show_limits(self) -> None:
        status = self.app.main.status
        limits = self.session.config.limits
        status.max_budget, status.max_turns = limits.max_budget_usd, limits.max_turns
        status.refresh_line()

    def cmd_permissions(self, arg: str) -> None:
        """The rules dialog; ``allow|ask|deny RULE``, ``remove RULE`` and ``list`` as text."""
        from agent.permission_editor import PermissionEditor, text_command
        from tui.screens.permissions import PermissionsScreen

        if not self._ready("/permissions", idle=False):
            return
        editor = PermissionEditor(
            self.session.config.workspace,
            self.session.config.policy,
            getattr(self.app.args, "allowed_tools", None) or (),
            getattr(self.app.args, "disallowed_tools", None) or (),
        )
        said = text_command(editor, arg)
        if said is not None:
            for text, kind in said:
                self.say(text, kind)
            return

        def closed(changes: list[str] | None) -> None:
            for text in changes or ():
                self.say(text, "notice")

        self.app.push_screen(PermissionsScreen(editor), closed)

    def cmd_theme(self, arg: str) -> None:
        """/theme [NAME]: eddy's themes go by their short names (``dark`` for ``eddy-dark``),
        listed first; Textual's own are accepted too."""
        from themes import THEMES

        app = self.app
        short = {t.name.removeprefix("eddy-"): t.name for t in THEMES}
        others = sorted(n for n in app.available_themes if n not in short.values())
        current = app.theme.removeprefix("eddy-") if app.theme in short.values() else app.theme
        if not arg:
            self.say(
                f"Theme: {current}. eddy's themes: {', '.join(short)}. Use /theme NAME, or "
                "ctrl+p for every theme with a preview."
            )
            return
        name = short.get(arg, arg)
        if name in app.available_themes:
            app.theme = name
            self.say(f"Theme set to {arg}.")
        else:
            self.say(
                f"No theme {arg!r}. eddy's: {', '.join(short)}; Textual's: {', '.join(others)}",
                "error",
            )

    def cmd_init(self, arg: str) -> None:
        if self._ready("/init"):
            prompt = INIT_PROMPT if not arg else f"{INIT_PROMPT}\n\n{arg}"
            self.app.main.send(prompt)

    def cmd_memory(self, arg: str) -> None:
        from textual.app import SuspendNotSupported

        path = self.app.workspace / "AGENTS.md"
        created = False
        if not path.exists():
            try:
                path.write_text(MEMORY_STARTER, encoding="utf-8")
                created = True
            except OSError as exc:
                self.say(f"Could not create {path}: {exc.strerror or exc}", "error")
                return
        note = " (created)" if created else ""
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
        if not editor:
            self.say(
                f"Project memory: {path}{note}. $EDITOR is not set, so eddy cannot open it: "
                "edit it yourself, or set EDITOR (e.g. export EDITOR=nano) and run /memory."
            )
            return
        try:
            with self.app.suspend():
                result = subprocess.run([*shlex.split(editor), str(path)], check=False)
        except SuspendNotSupported:
            self.say(f"Cannot hand the terminal to an editor here; edit {path} yourself.")
            return
        except (OSError, ValueError) as exc:
            self.say(f"Could not run {editor!r}: {exc}", "error")
            return
        if result.returncode:
            self.say(f"{editor} exited with status {result.returncode}.", "error")
        self.say(
            f"Project memory: {path}{note}. eddy reads it in new sessions (/clear) and after "
            "/compact."
        )
