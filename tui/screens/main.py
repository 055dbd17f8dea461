"""The main screen: conversation, queued corrections, prompt, completion menu, status line.

Attributes down, messages up: the screen routes engine events to its widgets (through
``EventRouter``, tui/screens/main_events.py) and turns their messages (a submitted prompt, a
permission answer, Up on an empty prompt) into operations on the session. It never touches
the history.
Completing ``/command`` and ``@path`` at the prompt is its base class's
(``CompletingScreen``, tui/screens/main_completion.py).

What the prompt sends: ``/command`` goes to the app's command handler, ``!command`` runs in
the shell (``ops.RunShell``), anything else is a prompt (or, while a turn runs, a correction).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, cast

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import Static

from agent import events as ev
from agent import ops
from frontend.keys import CTRL_C_AGAIN, CTRL_C_WINDOW
from frontend.prompt_history import PromptHistory
from frontend.statusline import StatusScript
from tui.screens.main_completion import CompletingScreen
from tui.screens.main_events import EventRouter
from tui.screens.paced import PacedScreen
from tui.widgets.conversation.conversation import Conversation
from tui.widgets.conversation.permission_prompt import PermissionPrompt
from tui.widgets.prompt.completion import CompletionMenu
from tui.widgets.prompt.prompt_input import PromptInput
from tui.widgets.prompt.queued_list import QueuedList
from tui.widgets.prompt.status_line import StatusLine

if TYPE_CHECKING:
    from agent.messages import Message
    from agent.session.core import Session
    from tui.app import EddyApp

DOUBLE_ESC_SECONDS = 0.8
SCROLL_LINES = 3
"""Lines that Shift+Up / Shift+Down scroll the conversation."""


class MainScreen(CompletingScreen, PacedScreen):
    """Everything the user sees while working.

    Args:
        history: the project's prompt history.
        clock: the app's clock.
        frozen: the clock is frozen (snapshot tests): no spinner, no blinking cursor.
        on_command: handles a slash command; returns False when the text is not one.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("tab", "answer_question", "answer the question", show=False),
    ]

    def __init__(
        self,
        history: PromptHistory,
        clock: Callable[[], float],
        *,
        frozen: bool = False,
        on_command: Callable[[str], bool] | None = None,
    ) -> None:
        super().__init__()
        self.session: Session | None = None
        self.clock = clock
        self.when_mounted: Callable[[], Awaitable[None]] | None = None
        """Awaited once the screen and its widgets are mounted and the prompt focused (the
        app fills its first frame)."""
        self.conversation = Conversation(clock, id="conversation")
        self.queued = QueuedList(id="queued")
        self.prompt = PromptInput(history, id="prompt")
        self.completion = CompletionMenu(id="completion")
        self.status = StatusLine(clock, frozen=frozen, id="status")
        if frozen:
            self.prompt.cursor_blink = False
        self.prompt.menu = self.completion
        self.prompt.completer = self.complete
        self._on_command = on_command
        self._pending_prompts: list[str] = []
        self.connected = True
        """Whether the model's client exists (the app sets it False while the SDK loads):
        until then prompts are shown at once and sent when it does."""
        self.connect: Callable[[], None] | None = None
        """Asks the app to make the model's client now (a prompt is waiting for it)."""
        self.unavailable: str | None = None
        """Why prompts cannot be sent (no API key); shown again on each attempt."""
        self.workspace = None  # set by the app: custom commands live there
        self._last_esc = -1.0
        self._last_ctrl_c: float | None = None
        self.router = EventRouter(self)
        """Shows the engine's events (tui/screens/main_events.py)."""
        self.status_script = StatusScript(self.status.show_script)
        """The ``statusLine`` setting's script (frontend/statusline.py)."""

    def compose(self) -> ComposeResult:
        yield self.conversation
        yield self.queued
        with Horizontal(id="prompt-box"):
            yield Static("› ", id="prompt-marker")
            yield self.prompt
        yield self.completion
        yield self.status

    async def on_mount(self) -> None:
        self.prompt.focus()
        ready, self.when_mounted = self.when_mounted, None
        if ready is not None:
            await ready()

    def attach(self, session: Session) -> None:
        """Start talking to ``session``; prompts typed before it existed are sent now."""
        self.session = session
        self.status_script.attach(session, self.status)
        now = session.status()
        self.queued.set_items(now.queue)
        self.prompt.queued = self.status.queued = len(now.queue)
        if self.connected:
            self._send_pending()
        elif self._pending_prompts and self.connect is not None:
            self.connect()

    def client_ready(self) -> bool:
        """The model's client exists: send what was typed while it was being made; whether
        anything was."""
        self.connected = True
        waiting = bool(self._pending_prompts)
        if self.session is not None:
            self._send_pending()
        return waiting and self.session is not None

    def _send_pending(self) -> None:
        pending, self._pending_prompts = self._pending_prompts, []
        if self.status.activity == "connecting…" and not pending:
            self.status.stop_work()
        for text in pending:
            self.dispatch(text)

    def detach(self) -> None:
        """Stop talking to the session (it is being replaced)."""
        self.session = None

    def say(self, text: str, kind: Any = "hint") -> None:
        """A line in the conversation (never markup)."""
        self.conversation.add_line(text, kind)
        self.conversation.anchor()

    # -- user input ----------------------------------------------------------------------
    @on(PromptInput.Submitted)
    def _submitted(self, message: PromptInput.Submitted) -> None:
        self.dispatch(message.text)
        self.router.focus_question()  # a question waited while the user wrote

    def action_answer_question(self) -> None:
        """Tab in the prompt while a permission question waits: go and answer it."""
        from textual.actions import SkipAction

        if not self.router.focus_question(asked=True):
            raise SkipAction()

    def dispatch(self, text: str) -> None:
        """What Enter does with ``text``: a command, a ``!`` shell command or a prompt."""
        stripped = text.strip()
        if stripped.startswith("/") and self._on_command and self._on_command(stripped):
            return
        if stripped.startswith("!") and len(stripped) > 1:
            self.run_shell(stripped[1:].strip())
            return
        self.send(text)

    def send(self, text: str) -> None:
        """Send a prompt (while a turn runs: queue it as a correction)."""
        if self.unavailable is not None:
            self.conversation.add_line(self.unavailable, "error")
            return
        if self.session is None or not self.connected:
            # shown now, sent once the session and the SDK client exist (they take seconds
            # on a loaded machine: the prompt must not vanish meanwhile)
            if not self._pending_prompts:
                self.conversation.echo_user(text)
                self.conversation.anchor()
                self.status.start_work()
                self.status.activity = "connecting…"
                self.status.refresh_line()
            self._pending_prompts.append(text)
            if self.session is not None and self.connect is not None:
                self.connect()
            return
        if self.session.busy:
            self.session.submit(ops.QueueCorrection(text))
        else:
            self.session.submit(ops.SubmitPrompt(text))

    def run_shell(self, command: str) -> None:
        """``!command``: run it in the workspace; its output joins the conversation."""
        if self.session is None:
            self._pending_prompts.append("!" + command)
            return
        busy = self.session.busy
        self.session.submit(ops.RunShell(command))
        if not busy:  # (while a turn runs the engine says to wait)
            self._work_until_idle(f"running !{command}")

    def compact(self, focus: str) -> None:
        """``/compact``: summarise the conversation (the session must be idle)."""
        if self.session is None:
            return
        self.say("Compacting the conversation…")
        self.session.submit(ops.Compact(focus))
        self._work_until_idle("compacting")

    def _work_until_idle(self, activity: str) -> None:
        """Show the spinner for work that is not a turn (no TurnStarted / TurnFinished)."""
        session = self.session
        if session is None or not session.busy:
            return
        status = self.status
        status.start_work()
        status.activity = activity
        status.refresh_line()

        async def wait() -> None:
            await session.wait_idle()
            if status.working_since is not None:
                status.stop_work()

        self.run_worker(wait(), group="work", exit_on_error=False)

    @on(PromptInput.RecallQueued)
    def _recall_queued(self) -> None:
        if self.session is None:
            return
        text = self.session.submit(ops.TakeQueued())
        if text:
            self.prompt.load_quietly(text)
            self.prompt.move_cursor(self.prompt.document.end)

    @on(PermissionPrompt.CommandTyped)
    def _command_typed(self, message: PermissionPrompt.CommandTyped) -> None:
        cast("EddyApp", self.app).run_command(message.text)

    @on(PermissionPrompt.Answered)
    def _answered(self, message: PermissionPrompt.Answered) -> None:
        if self.session is not None:
            decision: Any = message.decision
            self.session.submit(ops.AnswerPermission(message.request_id, decision, message.reason))
        self.router.close_prompt(message.prompt)

    def escape(self) -> None:
        """Esc: close the completion menu; stop the running turn (queued corrections go at
        once); answer "no" to a permission question; idle, twice on an empty prompt: rewind."""
        if self.prompt.close_menu():
            return
        if self._interrupt():
            return
        for prompt in self.query(PermissionPrompt):
            prompt.action_pick(2)  # no engine turn is waiting: a plain "no"
            return
        now = self.clock()
        if not self.prompt.text and 0 <= now - self._last_esc <= DOUBLE_ESC_SECONDS:
            self._last_esc = -1.0
            self.open_rewind()
        else:
            self._last_esc = now

    def _interrupt(self) -> bool:
        """Stop the running turn (queued corrections go at once); False when none runs."""
        session = self.session
        if session is None or not session.busy:
            return False
        session.submit(ops.Interrupt())
        self.status.activity = "stopping"
        self.status.refresh_line()
        self.prompt.focus()
        return True

    def ctrl_c(self) -> bool:
        """Ctrl+C, as in Claude Code (frontend/keys.py): stop the running turn, else clear
        the typed text, else (twice on an empty prompt) quit; True when the app should quit."""
        self.prompt.close_menu()
        if self._interrupt():
            self._last_ctrl_c = None
            return False
        if self.prompt.text:
            self._last_ctrl_c = None
            self.prompt.load_quietly("")
            self.prompt.focus()
            return False
        now = self.clock()
        if self._last_ctrl_c is not None and 0 <= now - self._last_ctrl_c <= CTRL_C_WINDOW:
            return True
        self._last_ctrl_c = now
        self.say(CTRL_C_AGAIN)
        return False

    def scroll_conversation(self, how: str) -> None:
        """Scroll the conversation: page_up, page_down, up, down (a few lines), home, end.
        Scrolling up leaves the bottom (the stream stops pulling the view down); scrolling
        back to the end follows it again."""
        view = self.conversation
        if how == "page_up":
            view.scroll_page_up(animate=False)
        elif how == "page_down":
            view.scroll_page_down(animate=False)
        elif how in ("up", "down"):
            view.scroll_relative(y=-SCROLL_LINES if how == "up" else SCROLL_LINES, animate=False)
        elif how == "home":
            view.scroll_home(animate=False)
        elif how == "end":
            view.scroll_end(animate=False)
            view.anchor()

    def cycle_mode(self) -> None:
        """Shift+Tab: default → acceptEdits → plan → default (bypassPermissions → default)."""
        from agent.permissions.policy import cycle_mode

        session = self.session
        if session is None:
            return
        # the engine applies and records it; PermissionModeChanged updates the status line
        session.submit(ops.SetPermissionMode(cycle_mode(session.status().mode)))

    # -- rewind ---------------------------------------------------------------------------
    def open_rewind(self) -> None:
        """Esc Esc on an empty prompt, or /rewind: pick a prompt and what to restore."""
        from tui.screens.rewind import RewindScreen

        session = self.session
        if session is None or session.busy:
            self.say("Stop the running turn (Esc) before rewinding.")
            return
        entries = session.checkpoints()
        if not entries:
            self.say("No prompts yet: nothing to rewind.")
            return

        def chosen(choice: Any) -> None:
            if choice is not None and self.session is session:
                session.submit(ops.Rewind(choice.number, choice.mode, choice.overwrite_conflicts))
            self.prompt.focus()

        self.app.push_screen(RewindScreen(entries, session.rewind_conflicts), chosen)

    # -- the conversation view ----------------------------------------------------------------
    async def reset_conversation(self) -> None:
        """Replace the conversation view by an empty one (rewind, new or resumed session)."""
        old = self.conversation
        new = Conversation(self.clock, max_blocks=old.max_blocks, id="conversation")
        await old.remove()
        self.conversation = new
        await self.mount(new, before=self.queued)

    def show_history(
        self, history: Sequence[Message], limit: int | None = None, *, session: Any = None
    ) -> int:
        """Render the newest messages of ``history`` (older ones on demand, see tui.replay);
        returns how many were shown. ``session``: the session whose tools word the calls'
        summaries (default: the attached one; on resume it is not attached yet, and without
        its tools every replayed call would lose its command or path)."""
        from frontend.history_events import REPLAY_MESSAGES
        from tui.replay import show_history

        session = session if session is not None else self.session
        tools = session.runner.tools if session is not None else {}

        def summary(name: str, args: dict[str, Any]) -> str:
            tool = tools.get(name)
            return tool.summary(args) if tool is not None else ""

        limit = REPLAY_MESSAGES if limit is None else limit
        shown = show_history(self.conversation, history, summary, limit=limit, clock=self.clock)
        self.conversation.anchor()
        return shown

    # -- engine events --------------------------------------------------------------------
    def handle_event(self, event: ev.Event) -> None:
        """Route one engine event to the widgets that show it."""
        self.router.handle(event)
