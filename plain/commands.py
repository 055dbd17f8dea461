"""The line mode as a :class:`frontend.commands.FrontEnd`: every slash command of the one table
in frontend/commands.py, with this file saying how the line mode does what they ask (its rewind
and resume questions are asked at the prompt)."""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent import ops
from agent.prompt.commands import custom_commands
from frontend.command_frontend import Kind
from frontend.commands import BUILTINS, run_command, session_plugins
from frontend.sanitize import sanitize
from frontend.wording import rewind_undoes
from plain.questions import Question, rewind_mode
from plain.render import first_line
from tools.childenv import child_env

if TYPE_CHECKING:
    from plain.app import PlainApp
    from plain.resume_listing import Listing

KEYS = """Keys:
  Enter               send (while the model works: queue a correction for its next step)
  Esc-Enter, Ctrl+J   new line
  Esc, Ctrl+C         stop the model (what you queued is sent at once)
  Ctrl+B              send the running Bash command to the background (/bashes lists them)
  Up on empty prompt  take the newest queued correction back to edit it; else history
  Ctrl+C twice        exit (at an idle prompt); Ctrl+D exits too
  Tab                 complete /commands and @paths (@path attaches the file)
  !command            run a shell command yourself; its output joins the conversation"""

LOCAL_ONLY = (
    "Only files on this machine come back; a database, an API call or a deployment cannot "
    "be undone."
)

STYLES: dict[str, tuple[str, ...]] = {"hint": (), "notice": ("cyan",), "error": ("yellow",)}


class Commands:
    """Runs slash commands against the app (the FrontEnd protocol of frontend/commands.py).

    Args:
        app: the line-mode app.
    """

    keys_help = KEYS

    def __init__(self, app: PlainApp) -> None:
        self.app = app

    def names(self) -> dict[str, str]:
        """Every command the prompt completes: the built-in ones, then custom commands."""
        out = {f"/{name}": text for name, text in BUILTINS.items()}
        try:
            custom = custom_commands(self.app.workspace, session_plugins(self.session))
        except OSError:
            custom = {}
        for name, cmd in custom.items():
            out.setdefault(f"/{name}", cmd.description)
        return out

    async def run(self, text: str) -> bool:
        """Run ``text`` if it is a command; False when it is not (it goes to the model)."""
        return await run_command(self, text)

    # -- FrontEnd ---------------------------------------------------------------------------
    @property
    def workspace(self) -> Path:
        return self.app.workspace

    @property
    def session(self) -> Any:
        return self.app.session

    @property
    def launch_model(self) -> str:
        return self.app.args.model

    @property
    def launch_rules(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        return self.app.args.allowed_tools, self.app.args.disallowed_tools

    @property
    def columns(self) -> int | None:
        import shutil

        return shutil.get_terminal_size((100, 24)).columns - 1

    def say(self, text: str, kind: Kind = "hint", *styles: str) -> None:
        paint = self.app.paint
        chosen = styles or STYLES.get(kind, (kind,))
        # sanitised: command output carries outside text (a server's tool names, file names)
        self.app.printer.lines(paint(sanitize(line), *chosen) for line in text.split("\n"))

    def send(self, prompt: str) -> None:
        self.app.send(prompt, echo=True)

    def submit(self, op: ops.Op) -> None:
        self.app.submit(op)

    def running_cost(self) -> float:
        return self.app.status.cost

    def context_use(self) -> tuple[int, int]:
        return self.app.status.context_tokens, self.app.status.context_window

    def limits_changed(self) -> None:
        self.app.input.invalidate()

    def model_changed(self, model: str) -> None:

        now = self.app.session.status()
        self.app.status.model, self.app.status.context_window = now.model, now.context_window

    async def new_session(self) -> None:
        app = self.app
        old = app.session
        saved = old.status().session_id if old is not None and old.status().saved else None
        await app.close_session("clear")
        if await app.open_session(fresh=True):
            note = f" The previous one is saved: eddy --resume {saved}" if saved else ""
            self.say(f"New session: the conversation is empty.{note}", "notice")

    async def open_resume(self, arg: str) -> None:
        from plain.resume_listing import CHILD_NUMBER

        session = self.app.session
        if session is None or not session.status().saved:
            self.say("This session is not saved, so there is nothing to resume here.")
            return
        current = session.status().session_id
        if arg and CHILD_NUMBER.fullmatch(arg) is None:  # 3.1 is a subagent's number
            await self._resume_named(arg, current)
            return
        picker = self._resume_picker(current)
        if picker is None:
            return
        if arg:
            picker.show_child(arg)
            return
        self.say("\n".join(picker.listing.lines()))
        self.app.ask(picker.question())

    async def _resume_named(self, name: str, current: str) -> None:
        """``/resume ID``: switch to that session of this project."""
        from agent.store.listing import find_session

        path = find_session(self.app.workspace, name)
        if path is None:
            self.say(f"No session {name!r} in this project (/resume lists them).", "error")
        elif path.name.removesuffix(".jsonl") == current:
            self.say("That is the current session.")
        else:
            await self._switch(path.name.removesuffix(".jsonl"))

    def _resume_picker(self, current: str) -> _ResumePicker | None:
        """The project's other sessions to pick from; None (said why) when there are none."""
        from agent.store.listing import list_sessions
        from plain.resume_listing import Listing

        try:
            sessions = [s for s in list_sessions(self.app.workspace) if s.session_id != current]
        except OSError as exc:
            self.say(f"Could not list the sessions: {exc}", "error")
            return None
        if not sessions:
            self.say("No other session in this project.")
            return None
        # with each session's subagents (plain/resume_listing)
        return _ResumePicker(Listing.of(sessions), self.say, self._resume_soon)

    def _resume_soon(self, session_id: str) -> None:
        self.app._spawn(self._switch(session_id))

    async def _switch(self, session_id: str) -> None:
        app = self.app
        await app.close_session()
        app.args = app.args.opening(resume=session_id)
        await app.open_session()

    def compact(self, focus: str) -> None:
        self.say("Compacting the conversation…", "hint", "dim")
        self.app.submit(ops.Compact(focus))

    def open_permissions(self, editor: Any) -> None:
        from agent.settings.rule_editor import text_command

        for text, kind in text_command(editor, "list") or ():
            self.say(text, kind)
        self.say("Change them with /permissions allow|ask|deny RULE or /permissions remove RULE.")

    def open_mcp(self, manager: Any) -> None:
        from agent.mcp.command import listing

        for text, kind in listing(manager):
            self.say(text, kind)  # type: ignore[arg-type]

    def themes(self) -> None:
        return None

    def set_theme(self, name: str) -> bool:
        return False

    async def edit_file(self, path: Path) -> str | None:
        from prompt_toolkit.application import in_terminal

        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
        if not editor:
            return (
                "$EDITOR is not set, so eddy cannot open it: edit it yourself, or set EDITOR "
                "(e.g. export EDITOR=nano) and run /memory."
            )
        try:
            async with in_terminal():
                result = subprocess.run(
                    [*shlex.split(editor), str(path)], env=child_env(), check=False
                )
        except (OSError, ValueError) as exc:
            return f"Could not run {editor!r}: {exc}"
        if result.returncode:
            return f"{editor} exited with status {result.returncode}."
        return None

    def quit(self) -> None:
        self.app.end_reason = "prompt_input_exit"  # SessionEnd's reason
        self.app.request_exit()

    # -- /rewind --------------------------------------------------------------------------
    def show_shell(self, shell: Any) -> None:
        from frontend.bashes import shell_view

        self.say("\n".join(shell_view(shell)))  # a snapshot: /bashes ID again shows more

    def show_subagent(self, path: Path, title: str) -> None:
        from plain.resume_listing import transcript_text

        self.say(transcript_text(path, title))

    def open_rewind(self, arg: str) -> None:
        app = self.app
        session = app.session
        entries = list(session.checkpoints())
        if not entries:
            self.say("Nothing to rewind to yet: this session has no prompts.", "error")
            return
        by_number = {entry.number: entry for entry in entries}
        words = arg.split()
        force = "force" in words
        words = [w for w in words if w != "force"]
        if words:
            number = _int(words[0])
            if number is None or number not in by_number:
                self.say(f"No checkpoint {words[0]!r}; /rewind lists them.", "error")
                return
            mode = rewind_mode(words[1]) if len(words) > 1 else None
            if len(words) > 1 and mode is None:
                self.say("Restore what? code, conversation or both.", "error")
                return
            if mode is not None or by_number[number].redo:
                self._rewind(number, mode or "both", force)
            else:
                self._ask_mode(number, force, first=False)
            return

        def pick(text: str) -> bool:
            if not text.strip():
                self._cancelled()
                return True
            number = _int(text)
            if number is None or number not in by_number:
                self.say("Type one of the numbers above, or Enter to cancel.", "error")
                return False
            if by_number[number].redo:
                self._rewind(number, "both", force)
            else:
                self._ask_mode(number, force, first=True)
            return True

        self.say(self._listing(entries))
        message = "Rewind to before which prompt? (number; Enter cancels) › "
        app.ask(Question(message, pick, self._cancelled))

    def _listing(self, entries: list[Any]) -> str:
        width = max(len(str(e.number)) for e in entries)
        lines = ["Checkpoints (the state before each prompt):"]
        for e in entries:
            tag = "(redo) " if e.redo else ""
            lines.append(f"  {e.number:>{width}}. {tag}{first_line(e.prompt, 70)}  · {e.summary}")
        lines.append(LOCAL_ONLY)
        return "\n".join(lines)

    def _ask_mode(self, number: int, force: bool, *, first: bool) -> None:
        # everything from this prompt on goes back, not only this prompt's own changes
        self.say("\n".join(rewind_undoes(self.app.session.checkpoints(), number)))

        def answer(text: str) -> bool:
            mode = rewind_mode(text)
            if mode is None:
                self.say("Type 1 (both), 2 (conversation) or 3 (code).", "error")
                return False
            self._rewind(number, mode, force)
            return True

        message = "Restore 1 code and conversation · 2 conversation only · 3 code only [1] › "
        self.app.ask(Question(message, answer, self._cancelled), first=first)

    def _cancelled(self) -> None:
        self.say("Rewind cancelled.", "hint", "dim")

    def _rewind(self, number: int, mode: Any, force: bool) -> None:
        session = self.app.session
        conflicts = []
        if mode != "conversation" and not force:
            conflicts = list(session.rewind_conflicts(number))
        if conflicts:
            listing = "\n  ".join(conflicts)
            self.say(f"You changed these files since eddy touched them:\n  {listing}", "error")

            def overwrite(text: str) -> bool:
                answer = text.strip().lower()
                if answer not in ("", "y", "yes", "n", "no"):
                    hint = "Type y to overwrite them, n (or Enter) to leave them alone."
                    self.say(hint, "error")
                    return False
                self._apply(number, mode, answer in ("y", "yes"))
                return True

            message = "Overwrite your changes to them? y / N › "
            self.app.ask(Question(message, overwrite, self._cancelled), first=True)
            return
        self._apply(number, mode, force)

    def _apply(self, number: int, mode: Any, force: bool) -> None:
        self.say(f"Rewinding to before prompt {number} ({mode})…", "hint", "dim")
        self.app.submit(ops.Rewind(number, mode, force))


class _ResumePicker:
    """``/resume``'s question: a number resumes that session, ``3.1`` shows a subagent's
    transcript and asks again.

    Args:
        listing: the sessions listed.
        say: how a line is said.
        resume: switches to a session (by id) once the question is done.
    """

    def __init__(
        self, listing: Listing, say: Callable[..., None], resume: Callable[[str], None]
    ) -> None:
        self.listing = listing
        self.say = say
        self.resume = resume

    def question(self) -> Question:
        """Which session to resume."""
        number = "number, or 1.1 for a subagent's transcript"
        hint = number if self.listing.has_children() else "number"
        return Question(f"Resume which session? ({hint}; Enter cancels) › ", self.pick, _nothing)

    def show_child(self, text: str) -> bool:
        """Print the subagent ``text`` numbers (3.1); False when it is not such a number."""
        from plain.resume_listing import child_text

        child = self.listing.child(text)
        if isinstance(child, str):
            self.say(child, "error")
        elif child is not None:
            self.say(child_text(child))
        return child is not None

    def pick(self, text: str) -> bool:
        """The answer: whether the question is done."""
        if not text.strip():
            self.say("Resume cancelled.", "hint", "dim")
            return True
        if self.show_child(text):
            return False  # a subagent is only read: the question stays for another
        shown = self.listing.sessions
        number = _int(text)
        if number is None or not 1 <= number <= len(shown):
            self.say("Type one of the numbers above, or Enter to cancel.", "error")
            return False
        self.resume(shown[number - 1].session_id)
        return True


def _nothing() -> None:
    """A question's cancel that has nothing to undo."""


def _int(text: str) -> int | None:
    try:
        return int(text.strip().rstrip("."))
    except ValueError:
        return None
