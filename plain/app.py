"""``eddy --plain``: the engine with a line-oriented interface.

One prompt stays on screen the whole time; the engine's events are printed above it as plain
lines. While a turn runs, what is typed is queued as a correction; Esc or Ctrl+C stops the
turn; permission questions and /rewind choices take over the prompt until answered. When stdin
or stdout is not a terminal, prompt-toolkit is not used at all: one line is one prompt, and
nothing prints an escape code.

What runs before the app exists (``run_plain``: the key check, the demo) is plain/run.py.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from agent import events as ev
from agent import ops
from frontend.keys import CTRL_C_AGAIN, CTRL_C_WINDOW
from frontend.launch import LaunchOptions
from frontend.statusline import StatusScript
from frontend.wording import turn_end
from plain.ask import ask_questions, review_plan
from plain.commands import Commands
from plain.permission import ask_permission
from plain.printer import Printer
from plain.questions import Question, Questions
from plain.render import Renderer
from plain.session_setup import ask_mcp_approval, folder_trusted, open_session
from plain.signals import catch_sigint, catch_termination
from plain.status import Status
from plain.style import Painter, color_wanted

HELP_LINE = (
    "Enter sends · Esc-Enter or Ctrl+J: new line · Esc stops the model · type while it works "
    "to queue a correction · /help"
)
LINE_MODE_HELP = "Line mode: one line is one prompt; Ctrl+C stops the model; end of input exits."
DEMO_BANNER = (
    "This is a SCRIPTED DEMO: no model is called. It works in a scratch copy of a sample project "
    "({path}). Ask anything; press Esc mid-answer, type while it works, answer its permission "
    "questions."
)


class PlainApp:
    """The line-mode front end: one session, one prompt, printed events.

    Args:
        args: the parsed command line (cli/main.py).
        model_factory: makes the model for each session (tests, the demo); None: the API.
        stream: where output goes (default stdout).
        color: force colours on or off (default: only on a terminal without NO_COLOR).
        pt_input / pt_output: prompt-toolkit's input and output (tests: a pipe input and
            DummyOutput); giving them selects the prompt-toolkit reader.
        interactive: use prompt-toolkit (default: when stdin and stdout are terminals).
        stdin: where line mode reads (default sys.stdin).
        event_hook: also receives every engine event (tests wait on it).
    """

    def __init__(
        self,
        args: LaunchOptions,
        *,
        model_factory: Callable[[], Any] | None = None,
        stream: TextIO | None = None,
        color: bool | None = None,
        pt_input: Any = None,
        pt_output: Any = None,
        interactive: bool | None = None,
        stdin: TextIO | None = None,
        event_hook: Callable[[ev.Event], None] | None = None,
    ) -> None:
        self.args = args
        self.model_factory = model_factory
        self.stream = stream or sys.stdout
        self.paint = Painter(color_wanted(self.stream) if color is None else color)
        self.printer = Printer(self.stream)
        self.renderer = Renderer(self.paint)
        self.status = Status(args.model, args.permission_mode)
        self.status_script = StatusScript(self._show_status_script)
        """The ``statusLine`` setting's script (frontend/statusline.py): lines in the toolbar."""
        self.commands = Commands(self)
        self.event_hook = event_hook
        self.session: Any = None
        self.exit_code = 0
        self.end_reason = "other"
        """SessionEnd's reason at exit: ``prompt_input_exit`` when the user quit at the prompt."""
        self.workspace = Path(args.cwd or Path.cwd()).resolve()
        self.renderer.workspace = self.workspace
        self._exit = False
        self._default = ""
        self._ctrl_c_at: float | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        if interactive is None:
            interactive = pt_input is not None or (_isatty(sys.stdin) and _isatty(self.stream))
        self.interactive = interactive
        self.input: Any
        if interactive:
            from plain.completion import PlainCompleter, WorkspaceFiles
            from plain.history import history_path
            from plain.terminal import PromptInput

            completer = PlainCompleter(self.commands.names, WorkspaceFiles(self.workspace))
            path = history_path(args.cwd, args.demo)
            self.input = PromptInput(self, path, completer, input=pt_input, output=pt_output)
        else:
            from plain.terminal import LineInput

            self.input = LineInput(stdin)
        self.questions = Questions(self.input, self.say, self.put_back, echo=not interactive)

    # -- what the prompt's keys ask (plain.terminal.Controller) ---------------------------
    @property
    def busy(self) -> bool:
        return self.session is not None and self.session.busy

    @property
    def asking(self) -> bool:
        return bool(self.questions)

    @property
    def has_queue(self) -> bool:
        return self.session is not None and bool(self.session.status().queue)

    def escape(self) -> None:
        """Esc: stop the running turn; at an idle prompt, back out of a question."""
        if self.busy:
            self.interrupt()
        elif self.questions:
            self.questions.cancel()

    def interrupt(self) -> None:
        if self.busy:
            self.submit(ops.Interrupt())
            self.status.activity = "stopping"
            self.input.invalidate()

    def ctrl_c(self, has_text: bool) -> str:
        """Ctrl+C: "none", "clear" (the typed text) or "exit".

        While a turn runs it stops the turn; at an idle prompt it clears the text or backs out
        of a question; on an empty idle prompt a second press within a few seconds exits.
        """
        now = time.monotonic()
        if self.busy:
            self.interrupt()
            return "none"
        if self.questions:
            self.questions.cancel()
            return "clear"
        if has_text:
            self._ctrl_c_at = None
            return "clear"
        if self._ctrl_c_at is not None and now - self._ctrl_c_at <= CTRL_C_WINDOW:
            return "exit"
        self._ctrl_c_at = now
        self.say(CTRL_C_AGAIN, "dim")
        return "none"

    def background(self) -> None:
        """Ctrl+B while a turn runs: the running Bash command goes on in the background."""
        if self.busy and self.session is not None:
            self.session.submit(ops.SendToBackground())

    def take_queued(self) -> str | None:
        """Up on an empty prompt: the newest queued correction leaves the queue for editing."""
        if self.session is None:
            return None
        text = self.session.submit(ops.TakeQueued())
        return text if isinstance(text, str) else None

    def message(self) -> str:
        return self.questions.message or "› "

    def toolbar(self) -> str:
        return self.status.line(self.busy)

    def _show_status_script(self, lines: list[str]) -> None:
        self.status.script_lines = lines
        self.input.invalidate()

    def recording(self) -> bool:
        """Whether a submitted text enters the prompt history (answers do not)."""
        return not self.questions

    # -- output -----------------------------------------------------------------------------
    def say(self, text: str, *styles: str) -> None:
        """Print ``text`` (one or more lines) above the prompt."""
        self.printer.lines(self.paint(line, *styles) for line in text.split("\n"))

    def submit(self, op: ops.Op) -> Any:
        if isinstance(op, ops.SubmitPrompt) and op.shown and self.interactive:
            self.renderer.echo_next = op.shown  # typed at the prompt: already on screen
        return self.session.submit(op) if self.session is not None else None

    # -- questions ----------------------------------------------------------------------------
    def ask(self, question: Question, *, first: bool = False) -> None:
        """Ask ``question`` at the prompt (after those already waiting, unless ``first``)."""
        self.questions.ask(question, first=first)

    def put_back(self, text: str) -> None:
        """Put ``text`` in the prompt: now if one is on screen, else in the next one."""
        if not self.input.set_text(text):
            self._default = text

    # -- engine events ----------------------------------------------------------------------
    def emit(self, event: ev.Event) -> None:
        """The session's emit callback: update the toolbar, print, never crash."""
        if self.event_hook is not None:
            self.event_hook(event)
        try:
            self._track(event)
            if isinstance(event, ev.PermissionRequested):
                ask_permission(self, event)
            elif isinstance(event, ev.QuestionsAsked):
                ask_questions(self, event)
            elif isinstance(event, ev.PlanReviewRequested):
                review_plan(self, event)
            else:
                lines = self.renderer.render(event)
                if isinstance(event, ev.TurnFinished) and self.session is not None:
                    advice = turn_end(event.subtype, self.session.status())
                    if advice is not None:  # how to raise the cap: before the blank line
                        lines.insert(len(lines) - 1, self.paint(advice, "yellow"))
                self.printer.lines(lines)
        except Exception as exc:  # a display bug must not take the session down
            self.say(
                f"Could not display a {event.type} event ({type(exc).__name__}: {exc}). "
                "The session goes on; this is a bug in eddy's display.",
                "red",
            )
        self.input.invalidate()

    def _track(self, event: ev.Event) -> None:
        """What ``event`` changes besides the toolbar: questions, the prompt, Ctrl+C."""
        self.status.follow(event)
        self.status_script.poke()  # the statusLine script runs again, debounced
        if isinstance(event, ev.TurnStarted):
            self._ctrl_c_at = None
        elif isinstance(event, ev.PermissionResolved | ev.QuestionsAnswered | ev.PlanReviewed):
            self.questions.withdraw(event.request_id)
        elif isinstance(event, ev.Interrupted):
            self.questions.withdraw()
        elif isinstance(event, ev.TurnFinished):
            self.questions.withdraw()
            self._spawn(self._refresh_when_idle())
        elif isinstance(event, ev.PromptBlocked):
            self.put_back(event.prompt)  # not sent: the user can edit it and send it again
        elif (
            isinstance(event, ev.RewindFinished)
            and event.mode in ("both", "conversation")
            and event.prompt
        ):
            self.put_back(event.prompt)

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _refresh_when_idle(self) -> None:
        if self.session is not None:
            await self.session.wait_idle()
        self.input.invalidate()

    # -- the session ----------------------------------------------------------------------------
    async def open_session(self, *, fresh: bool = False) -> bool:
        """Build the session (a new one with ``fresh``); False if that failed (said why)."""
        return open_session(self, fresh=fresh)

    def open_connection(self, session: Any) -> None:
        """Open the connection ``session``'s first prompt will use, now that its SDK client
        exists (``preconnect``: not once a request went out; not for a session replaced
        meanwhile)."""
        preconnect = getattr(session.model, "preconnect", None)
        if session is self.session and preconnect is not None:
            self._spawn(preconnect())

    async def close_session(self, reason: str = "other") -> None:
        """Stop the running turn, close the model's connection and the transcript (``reason``:
        SessionEnd's)."""
        session, self.session = self.session, None
        if session is None:
            return
        self.printer.lines(self.renderer.finish_text())
        await session.close(reason)  # the model, the transcript, the checkpoint store
        self.questions.clear()

    def send(self, text: str, *, echo: bool = False) -> None:
        """A prompt, or, while a turn runs, a correction for its next model call.

        Args:
            text: what to send.
            echo: print it even at a terminal (the user typed something else: a command).
        """
        if self.session is None:
            return
        if self.session.busy:
            self.session.submit(ops.QueueCorrection(text))
        else:
            self.renderer.echo_next = text if self.interactive and not echo else None
            self.session.submit(ops.SubmitPrompt(text))

    async def dispatch(self, text: str) -> None:
        """Handle one submitted text: a question's answer, a command, or a prompt."""
        if self.questions:
            from frontend.commands import is_command

            if is_command(text, self.workspace):  # /exit at a question acts: it is no answer
                await self.commands.run(text.strip())
                return
            self.questions.answer(text)
            return
        if not text.strip():
            return
        stripped = text.strip()
        if stripped.startswith("/") and await self.commands.run(stripped):
            return
        if stripped.startswith("!") and len(stripped) > 1:
            self.submit(ops.RunShell(stripped[1:].strip()))
            return
        self.send(text)

    def request_exit(self) -> None:
        self._exit = True
        self.input.stop()

    # -- running ------------------------------------------------------------------------------
    def _banner(self) -> None:
        args = self.args
        if args.demo:
            self.status.label = "scripted demo"
            self.say(DEMO_BANNER.format(path=self.workspace), "yellow")
        where = self.workspace.name or "/"
        self.say(f"eddy in {where} · {args.model}", "bold")
        self.say(HELP_LINE if self.interactive else LINE_MODE_HELP, "dim")

    async def run(self) -> int:
        """Run until the user exits; returns the exit code."""
        self._banner()
        if not await folder_trusted(self) or not await self.open_session():
            self.printer.flush()
            return 1
        await ask_mcp_approval(self)
        if not self.interactive:
            catch_sigint(self)
        catch_termination(self)
        if self.args.prompt:
            self.send(self.args.prompt)
        try:
            await self._read_prompts()
        finally:
            await self._shut_down()
        return self.exit_code

    async def _read_prompts(self) -> None:
        """Read and dispatch lines until the user exits or the input ends."""
        while not self._exit:
            default, self._default = self._default, ""
            try:
                text = await self.input.read(default)
            except EOFError:
                if not self._exit and self.interactive:  # Ctrl+D (or Ctrl+C twice)
                    self.end_reason = "prompt_input_exit"
                if not self._exit and not self.interactive:
                    await self._finish_input()
                break
            await self.dispatch(text)

    async def _shut_down(self) -> None:
        """Say what the close stops, close the session, and say how to resume it."""
        last = self.session.status() if self.session is not None else None
        from frontend.bashes import stopping_line

        stopping = stopping_line(self.session)
        if stopping is not None:  # the close kills them: say what, before it does
            self.say(stopping, "yellow")
        await self.close_session(self.end_reason)
        await self.status_script.close()
        for task in list(self._tasks):
            task.cancel()
        # the demo's scratch folder is removed at exit: its session cannot be resumed
        if last is not None and last.saved and last.messages and not self.args.demo:
            self.say(f"Session saved: eddy --resume {last.session_id}", "dim")
        self.printer.flush()

    async def _finish_input(self) -> None:
        """Line mode, end of input: let the running turn (and the queue) finish unattended."""
        self.questions.closed = True
        self.questions.cancel()
        if self.session is not None:
            await self.session.wait_idle()


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
