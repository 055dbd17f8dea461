"""The main screen: conversation, queued corrections, prompt, status line.

Attributes down, messages up: the screen routes engine events to its widgets and turns their
messages (a submitted prompt, a permission answer, Up on an empty prompt) into operations on
the session. It never touches the history.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Static

from agent import events as ev
from agent import ops
from tui.widgets.conversation import Conversation
from tui.widgets.permission_prompt import PermissionPrompt
from tui.widgets.prompt_history import PromptHistory
from tui.widgets.prompt_input import PromptInput
from tui.widgets.queued_list import QueuedList
from tui.widgets.status_line import StatusLine

if TYPE_CHECKING:
    from agent.session import Session

DOUBLE_ESC_SECONDS = 0.8


class MainScreen(Screen[None]):
    """Everything the user sees while working.

    Args:
        history: the project's prompt history.
        clock: the app's clock.
        frozen: the clock is frozen (snapshot tests): no spinner, no blinking cursor.
        on_command: handles a slash command; returns False when the text is not one.
    """

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
        self.conversation = Conversation(clock, id="conversation")
        self.queued = QueuedList(id="queued")
        self.prompt = PromptInput(history, id="prompt")
        self.status = StatusLine(clock, frozen=frozen, id="status")
        if frozen:
            self.prompt.cursor_blink = False
        self._on_command = on_command
        self._pending_prompts: list[str] = []
        self.unavailable: str | None = None
        """Why prompts cannot be sent (no API key); shown again on each attempt."""
        self._last_esc = -1.0
        self._session_cost = 0.0
        self._turn_chars = 0

    def compose(self) -> ComposeResult:
        yield self.conversation
        yield self.queued
        with Horizontal(id="prompt-box"):
            yield Static("› ", id="prompt-marker")
            yield self.prompt
        yield self.status

    def on_mount(self) -> None:
        self.prompt.focus()

    def attach(self, session: Session) -> None:
        """Start talking to ``session``; prompts typed before it existed are sent now."""
        self.session = session
        for text in self._pending_prompts:
            self._send(text)
        self._pending_prompts.clear()

    # -- user input ----------------------------------------------------------------------
    @on(PromptInput.Submitted)
    def _submitted(self, message: PromptInput.Submitted) -> None:
        text = message.text
        if text.lstrip().startswith("/") and self._on_command and self._on_command(text.strip()):
            return
        self._send(text)

    def _send(self, text: str) -> None:
        if self.unavailable is not None:
            self.conversation.add_line(self.unavailable, "error")
            return
        if self.session is None:
            self._pending_prompts.append(text)
            return
        if self.session.busy:
            self.session.submit(ops.QueueCorrection(text))
        else:
            self.session.submit(ops.SubmitPrompt(text))

    @on(PromptInput.RecallQueued)
    def _recall_queued(self) -> None:
        if self.session is None:
            return
        text = self.session.submit(ops.TakeQueued())
        if text:
            self.prompt.load_text(text)
            self.prompt.move_cursor(self.prompt.document.end)

    @on(PermissionPrompt.Answered)
    def _answered(self, message: PermissionPrompt.Answered) -> None:
        if self.session is not None:
            decision: Any = message.decision
            self.session.submit(ops.AnswerPermission(message.request_id, decision, message.reason))
        self._close_prompt(message.prompt)

    def escape(self) -> None:
        """Esc: stop the running turn (queued corrections go at once); idle, twice: rewind."""
        session = self.session
        if session is not None and session.busy:
            session.submit(ops.Interrupt())
            self.status.activity = "stopping"
            self.status.refresh_line()
            self.prompt.focus()
            return
        for prompt in self.query(PermissionPrompt):
            prompt.action_pick(2)  # no engine turn is waiting: a plain "no"
            return
        now = self.clock()
        if not self.prompt.text and 0 <= now - self._last_esc <= DOUBLE_ESC_SECONDS:
            self._last_esc = -1.0
            self.conversation.add_line(
                "Rewind is not available yet: it arrives with checkpoints.", "hint"
            )
        else:
            self._last_esc = now

    # -- engine events --------------------------------------------------------------------
    def handle_event(self, event: ev.Event) -> None:
        """Route one engine event to the widgets that show it."""
        self.conversation.apply(event)
        status = self.status
        if isinstance(event, ev.TurnStarted):
            self._turn_chars = 0
            if self.session is not None:
                self._session_cost = self.session.total_cost
            status.start_work()
        elif isinstance(event, ev.ModelCallStarted):
            status.activity = "thinking"
        elif isinstance(event, ev.TextDelta | ev.ThinkingDelta):
            self._turn_chars += len(event.text)
            status.activity = "responding" if isinstance(event, ev.TextDelta) else "thinking"
            status.turn_tokens = max(status.turn_tokens, self._turn_chars // 4)
            return  # the spinner's timer repaints; no repaint per delta
        elif isinstance(event, ev.ToolCallRunning):
            block = self.conversation.tool_blocks.get(event.call_id)
            status.activity = f"running {block.tool_name}" if block else "running"
        elif isinstance(event, ev.PermissionRequested):
            status.activity = "waiting for permission"
            self._ask(event)
        elif isinstance(event, ev.UsageUpdated):
            status.context_tokens = event.context_tokens
            status.context_window = event.context_window
            status.cost = self._session_cost + event.total_cost_usd
        elif isinstance(event, ev.QueueChanged):
            self.queued.set_items(event.queue)
            self.prompt.queued = status.queued = len(event.queue)
        elif isinstance(event, ev.PermissionResolved | ev.Interrupted):
            self._close_prompts(event)
        elif isinstance(event, ev.TurnFinished):
            self._close_prompts(event)
            self._session_cost = status.cost = event.total_cost_usd
            status.turns += event.num_turns
            status.stop_work()
            return
        status.refresh_line()

    def _ask(self, event: ev.PermissionRequested) -> None:
        from tui.widgets.diff_view import preview_diff  # pygments: not before the first frame

        diff = None
        if self.session is not None:
            ctx = self.session.ctx
            diff = preview_diff(event.name, event.input, lambda raw: ctx.resolve(raw).path)
        prompt = PermissionPrompt(
            event.request_id, event.name, event.input, event.summary, event.suggested_rule, diff
        )
        self.conversation.add_block(prompt)
        self.conversation.anchor()
        self.call_after_refresh(prompt.focus)

    def _close_prompts(self, event: ev.Event) -> None:
        request_id = getattr(event, "request_id", None)
        for prompt in self.query(PermissionPrompt):
            if request_id is None or prompt.request_id == request_id:
                self._close_prompt(prompt)

    def _close_prompt(self, prompt: PermissionPrompt) -> None:
        had_focus = prompt.has_focus or prompt.has_focus_within
        prompt.answered = True
        if prompt.is_attached:
            prompt.remove()
        if had_focus or self.focused is None:
            self.prompt.focus()
