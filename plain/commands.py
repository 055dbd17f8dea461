"""Slash commands of the line mode: /help /clear /compact /rewind /cost /context /budget
/turns /model /exit /quit."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from agent import ops
from plain.questions import Question, rewind_mode
from plain.render import first_line
from plain.status import money

if TYPE_CHECKING:
    from plain.app import PlainApp

COMMANDS: dict[str, str] = {
    "/help": "keys and commands",
    "/clear": "start a new session (the current one stays saved)",
    "/compact": "summarise the conversation to free context: /compact [what to keep]",
    "/rewind": "go back to before a prompt: code, conversation or both",
    "/cost": "the session's cost and token use",
    "/context": "what fills the context window",
    "/budget": "show or set the session's spending cap: /budget [dollars] (0 removes it)",
    "/turns": "show or set the cap on tool turns per prompt: /turns [N] (0 removes it)",
    "/model": "show or change the model: /model [name]",
    "/exit": "quit",
    "/quit": "quit",
}

KEYS = """Keys:
  Enter               send (while the model works: queue a correction for its next step)
  Esc-Enter, Ctrl+J   new line
  Esc, Ctrl+C         stop the model (what you queued is sent at once)
  Up on empty prompt  take the newest queued correction back to edit it; else history
  Ctrl+C twice        exit (at an idle prompt); Ctrl+D exits too
  Tab                 complete /commands and @paths (@path attaches the file)
  !command            run a shell command yourself; its output joins the conversation"""

LOCAL_ONLY = (
    "Only files on this machine come back; a database, an API call or a deployment cannot "
    "be undone."
)

_COMMAND_LIKE = re.compile(r"/[A-Za-z][\w-]*")


class Commands:
    """Runs slash commands against the app.

    Args:
        app: the line-mode app.
    """

    def __init__(self, app: PlainApp) -> None:
        self.app = app

    def names(self) -> dict[str, str]:
        """Every command the prompt completes: the built-in ones, then custom commands."""
        out = dict(COMMANDS)
        for name, cmd in self._custom().items():
            out.setdefault(f"/{name}", cmd.description)
        return out

    def _custom(self) -> dict[str, Any]:
        from agent.commands import custom_commands

        try:
            return custom_commands(self.app.workspace)
        except OSError:
            return {}

    def say(self, text: str, *styles: str) -> None:
        paint = self.app.paint
        self.app.printer.lines(paint(line, *styles) for line in text.split("\n"))

    async def run(self, text: str) -> bool:
        """Run ``text`` if it is a command; False when it is not (it goes to the model).

        A word that looks like a command but is none is answered here, not sent.
        """
        name, _, arg = text.strip().partition(" ")
        if name not in COMMANDS:
            custom = self._custom().get(name[1:]) if _COMMAND_LIKE.fullmatch(name) else None
            if custom is not None:
                try:
                    prompt = custom.expand(arg.strip())
                except OSError as exc:
                    self.say(f"Could not read {custom.path}: {exc}", "red")
                    return True
                self.app.send(prompt, echo=True)
                return True
            if _COMMAND_LIKE.fullmatch(name):
                self.say(f"Unknown command {name}. /help lists them.", "yellow")
                return True
            return False
        handler = getattr(self, "cmd_" + name[1:])
        result = handler(arg.strip())
        if result is not None:
            await result
        return True

    def _idle(self, what: str) -> bool:
        if self.app.busy:
            self.say(f"The model is working: press Esc to stop it, then {what}.", "yellow")
            return False
        return True

    # -- the commands -------------------------------------------------------------------
    def cmd_help(self, arg: str) -> None:
        lines = ["Commands:"] + [f"  {name:<18}  {text}" for name, text in COMMANDS.items()]
        self.say("\n".join(lines) + "\n" + KEYS)

    def cmd_exit(self, arg: str) -> None:
        self.app.request_exit()

    cmd_quit = cmd_exit

    async def cmd_clear(self, arg: str) -> None:
        app = self.app
        old = app.session
        saved = old.config.session_id if old is not None and old.transcript else None
        await app.close_session()
        if await app.open_session(fresh=True):
            note = f" The previous one is saved: eddy --resume {saved}" if saved else ""
            self.say(f"New session: the conversation is empty.{note}", "cyan")

    def cmd_compact(self, arg: str) -> None:
        if not self._idle("/compact"):
            return
        self.say("Compacting the conversation…", "dim")
        self.app.submit(ops.Compact(arg))

    def cmd_cost(self, arg: str) -> None:
        from agent.context import cost_lines

        app = self.app
        if app.session is None:
            return
        lines = cost_lines(app.session)
        status = app.status
        if app.busy:
            lines.append(f"(with the running turn: {money(status.cost)})")
        if status.context_window:
            lines.append(
                f"Context:        {status.context_tokens:,} of {status.context_window:,} tokens "
                f"({status.context_percent}%)"
            )
        self.say("\n".join(lines))

    def cmd_context(self, arg: str) -> None:
        from agent.context import breakdown

        if self.app.session is not None:
            self.say("\n".join(breakdown(self.app.session).lines()))

    def cmd_budget(self, arg: str) -> None:
        from agent.context import budget_command

        self._limit(budget_command, arg)

    def cmd_turns(self, arg: str) -> None:
        from agent.context import turns_command

        self._limit(turns_command, arg)

    def _limit(self, command: Any, arg: str) -> None:
        if self.app.session is None:
            return
        message, error = command(self.app.session, arg)
        self.say(message, "yellow" if error else "")

    def cmd_model(self, arg: str) -> None:
        from agent.pricing import context_window, known_models

        app = self.app
        session = app.session
        known = known_models()
        if not arg:
            current = session.config.model if session is not None else app.args.model
            self.say(f"Model: {current}. Known: {', '.join(known)}.")
            return
        if arg not in known:
            self.say(f"Unknown model {arg!r}. Known: {', '.join(known)}.", "yellow")
            return
        if session is None or not self._idle("/model"):
            return
        app.submit(ops.SetModel(arg))  # the engine says so (a Notice)
        app.status.model = session.config.model
        app.status.context_window = context_window(session.config.model)

    # -- /rewind --------------------------------------------------------------------------
    def cmd_rewind(self, arg: str) -> None:
        app = self.app
        session = app.session
        if session is None or not self._idle("/rewind"):
            return
        checkpoints = getattr(session, "checkpoints", None)
        if checkpoints is None:
            self.say("Rewind is not available in this version of eddy.", "yellow")
            return
        entries = list(checkpoints())
        if not entries:
            self.say("Nothing to rewind to yet: this session has no prompts.", "yellow")
            return
        by_number = {entry.number: entry for entry in entries}
        words = arg.split()
        force = "force" in words
        words = [w for w in words if w != "force"]
        if words:
            number = _int(words[0])
            if number is None or number not in by_number:
                self.say(f"No checkpoint {words[0]!r}; /rewind lists them.", "yellow")
                return
            mode = rewind_mode(words[1]) if len(words) > 1 else None
            if len(words) > 1 and mode is None:
                self.say("Restore what? code, conversation or both.", "yellow")
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
                self.say("Type one of the numbers above, or Enter to cancel.", "yellow")
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
        def answer(text: str) -> bool:
            mode = rewind_mode(text)
            if mode is None:
                self.say("Type 1 (both), 2 (conversation) or 3 (code).", "yellow")
                return False
            self._rewind(number, mode, force)
            return True

        message = "Restore 1 code and conversation · 2 conversation only · 3 code only [1] › "
        self.app.ask(Question(message, answer, self._cancelled), first=first)

    def _cancelled(self) -> None:
        self.say("Rewind cancelled.", "dim")

    def _rewind(self, number: int, mode: Any, force: bool) -> None:
        session = self.app.session
        conflicts = []
        if mode != "conversation" and not force and hasattr(session, "rewind_conflicts"):
            conflicts = list(session.rewind_conflicts(number))
        if conflicts:
            listing = "\n  ".join(conflicts)
            self.say(f"You changed these files since eddy touched them:\n  {listing}", "yellow")

            def overwrite(text: str) -> bool:
                answer = text.strip().lower()
                if answer not in ("", "y", "yes", "n", "no"):
                    hint = "Type y to overwrite them, n (or Enter) to leave them alone."
                    self.say(hint, "yellow")
                    return False
                self._apply(number, mode, answer in ("y", "yes"))
                return True

            message = "Overwrite your changes to them? y / N › "
            self.app.ask(Question(message, overwrite, self._cancelled), first=True)
            return
        self._apply(number, mode, force)

    def _apply(self, number: int, mode: Any, force: bool) -> None:
        self.say(f"Rewinding to before prompt {number} ({mode})…", "dim")
        self.app.submit(ops.Rewind(number, mode, force))


def _int(text: str) -> int | None:
    try:
        return int(text.strip().rstrip("."))
    except ValueError:
        return None
