"""The main screen: conversation, queued corrections, prompt, completion menu, status line.

Attributes down, messages up: the screen routes engine events to its widgets and turns their
messages (a submitted prompt, a permission answer, Up on an empty prompt) into operations on
the session. It never touches the history.

What the prompt sends: ``/command`` goes to the app's command handler, ``!command`` runs in
the shell (``ops.RunShell``), anything else is a prompt (or, while a turn runs, a correction).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Static

from agent import events as ev
from agent import ops
from tui.widgets.completion import Candidate, CompletionMenu, Token, path_candidate, token_at
from tui.widgets.conversation import Conversation
from tui.widgets.permission_prompt import PermissionPrompt
from tui.widgets.prompt_history import PromptHistory
from tui.widgets.prompt_input import PromptInput
from tui.widgets.queued_list import QueuedList
from tui.widgets.status_line import StatusLine

if TYPE_CHECKING:
    from agent.fileindex import FileIndex
    from agent.messages import Message
    from agent.session import Session

DOUBLE_ESC_SECONDS = 0.8
INDEX_MAX_AGE = 30.0
"""Seconds before the file list behind @-completion is listed again (in the background)."""
MAX_PATHS = 12
SEARCH_IN_THREAD_ABOVE = 5000
"""File lists longer than this are searched in a thread, off the keystroke's path."""


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
        self.completion = CompletionMenu(id="completion")
        self.status = StatusLine(clock, frozen=frozen, id="status")
        if frozen:
            self.prompt.cursor_blink = False
        self.prompt.menu = self.completion
        self.prompt.completer = self.complete
        self._on_command = on_command
        self._pending_prompts: list[str] = []
        self.unavailable: str | None = None
        """Why prompts cannot be sent (no API key); shown again on each attempt."""
        self.workspace: Path | None = None
        """The session's workspace (set by the app): custom commands live there."""
        self.file_index: FileIndex | None = None
        """The workspace's files for @-completion (built by the app in a thread)."""
        self.index_files: Callable[[], None] | None = None
        """Asks the app to list the files again (in the background)."""
        self.index_built_at = 0.0
        self._index_stale = False
        self._path_query: Token | None = None
        self._searching = False
        self._last_esc = -1.0
        self._session_cost = 0.0
        self._turn_chars = 0

    def compose(self) -> ComposeResult:
        yield self.conversation
        yield self.queued
        with Horizontal(id="prompt-box"):
            yield Static("› ", id="prompt-marker")
            yield self.prompt
        yield self.completion
        yield self.status

    def on_mount(self) -> None:
        self.prompt.focus()

    def attach(self, session: Session) -> None:
        """Start talking to ``session``; prompts typed before it existed are sent now."""
        self.session = session
        self._session_cost = session.total_cost
        self.queued.set_items(tuple(session.queue))
        self.prompt.queued = self.status.queued = len(session.queue)
        pending, self._pending_prompts = self._pending_prompts, []
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
        if self.session is None:
            self._pending_prompts.append(text)
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

    @on(PermissionPrompt.Answered)
    def _answered(self, message: PermissionPrompt.Answered) -> None:
        if self.session is not None:
            decision: Any = message.decision
            self.session.submit(ops.AnswerPermission(message.request_id, decision, message.reason))
        self._close_prompt(message.prompt)

    def escape(self) -> None:
        """Esc: close the completion menu; stop the running turn (queued corrections go at
        once); answer "no" to a permission question; idle, twice on an empty prompt: rewind."""
        if self.prompt.close_menu():
            return
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
            self.open_rewind()
        else:
            self._last_esc = now

    def cycle_mode(self) -> None:
        """Shift+Tab: default → acceptEdits → plan → default (bypassPermissions → default)."""
        from agent.permissions import cycle_mode

        session = self.session
        if session is None:
            return
        policy = session.config.policy
        policy.mode = cycle_mode(policy.mode)
        if session.transcript is not None:
            try:
                session.transcript.settings(permission_mode=policy.mode)
            except (OSError, ValueError):
                pass  # the engine reports transcript failures on its next write
        self.status.mode = policy.mode
        self.status.refresh_line()

    # -- completion -----------------------------------------------------------------------
    def complete(self, token: Token) -> list[Candidate] | None:
        """Candidates for the ``/command`` or ``@path`` at the prompt's cursor.

        None when a large file list is searched in a thread: the menu shows the result when
        it comes (a keystroke never waits for a search of 100,000 paths).
        """
        if token.kind == "command":
            from agent.commands import completions

            workspace = self.workspace or Path.cwd()
            try:
                found = completions(token.query, workspace)
            except OSError:
                found = []
            return [Candidate(name, name, description) for name, description in found]
        stale = self._index_stale or time.monotonic() - self.index_built_at > INDEX_MAX_AGE
        if (self.file_index is None or stale) and self.index_files is not None:
            self._index_stale = False
            self.index_files()
        index = self.file_index
        if index is None:
            return []
        if len(index.files) <= SEARCH_IN_THREAD_ABOVE:
            return [path_candidate(p) for p in index.search(token.query, MAX_PATHS)]
        self._path_query = token
        if not self._searching:
            self._search_paths(index, token)
        return None

    def _search_paths(self, index: FileIndex, token: Token) -> None:
        """Search ``index`` in a thread; one search at a time, the newest query next."""
        self._searching = True
        app = self.app

        def search() -> None:
            try:
                found = index.search(token.query, MAX_PATHS)
            except Exception:
                found = []
            try:
                app.call_from_thread(self._paths_found, token, found)
            except RuntimeError:  # the app is closing
                pass

        self.run_worker(search, thread=True, group="path-search", exit_on_error=False)

    def _paths_found(self, token: Token, found: list[str]) -> None:
        self._searching = False
        latest = self._path_query
        if latest is not None and latest != token and self.file_index is not None:
            self._search_paths(self.file_index, latest)
            return
        self._path_query = None
        current = token_at(self.prompt.text, self.prompt.cursor_location)
        if current is not None and (current.kind, current.row, current.start, current.query) == (
            token.kind,
            token.row,
            token.start,
            token.query,
        ):
            self.completion.show(current, [path_candidate(p) for p in found])

    def set_file_index(self, index: FileIndex) -> None:
        """The app listed the workspace's files: use them (and refresh an open menu)."""
        self.file_index = index
        self.index_built_at = time.monotonic()
        if self.completion.shown or self.prompt.has_focus:
            token = token_at(self.prompt.text, self.prompt.cursor_location)
            if token is not None and token.kind == "path":
                self.prompt.update_completion()

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

    async def _rewound(self, event: ev.RewindFinished) -> None:
        """Show a finished rewind: the rewound conversation, what happened to the files."""
        from tui.screens.rewind import first_line

        session = self.session
        if event.mode in ("both", "conversation") and session is not None:
            await self.reset_conversation()
            self.show_history(session.history)
            self.status.context_tokens = session.context_tokens  # the kept history's estimate
            self.status.refresh_line()
            where = first_line(event.prompt, 70)
            self.say(f"— rewound to before: {where} —" if where else "— rewind undone —")
        lines = [event.message]
        if event.conflicts:
            left = ", ".join(event.conflicts)
            lines.append(f"Changed by you since eddy wrote them, left alone: {left}")
        if event.not_restorable:
            lines.append("Not restorable: " + "; ".join(event.not_restorable))
        self.say("\n".join(lines), "notice")
        if event.prompt:
            self.prompt.load_quietly(event.prompt)
            self.prompt.move_cursor(self.prompt.document.end)
        self.prompt.focus()

    # -- the conversation view ----------------------------------------------------------------
    async def reset_conversation(self) -> None:
        """Replace the conversation view by an empty one (rewind, new or resumed session)."""
        old = self.conversation
        new = Conversation(self.clock, max_blocks=old.max_blocks, id="conversation")
        await old.remove()
        self.conversation = new
        await self.mount(new, before=self.queued)

    def show_history(self, history: Sequence[Message], limit: int | None = None) -> int:
        """Render the newest messages of ``history`` (older ones on demand, see tui.replay);
        returns how many were shown."""
        from tui.replay import REPLAY_MESSAGES, show_history

        tools = self.session.runner.tools if self.session is not None else {}

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
        elif isinstance(event, ev.Compacted):
            if self.session is not None:
                status.context_tokens = self.session.context_tokens
        elif isinstance(event, ev.RewindFinished):
            self.run_worker(self._rewound(event), group="rewind", exit_on_error=False)
        elif isinstance(event, ev.TurnFinished):
            self._close_prompts(event)
            self._session_cost = status.cost = event.total_cost_usd
            status.turns += event.num_turns
            status.stop_work()
            self._index_stale = True  # the turn may have created files
            self._cap_advice(event)
            return
        status.refresh_line()

    def _cap_advice(self, event: ev.TurnFinished) -> None:
        """After a stop at the budget or turn cap: how to raise it and go on."""
        limits = self.session.config.limits if self.session is not None else None
        if event.subtype == "error_max_budget_usd":
            cap = limits.max_budget_usd if limits is not None else None
            what = f"the ${cap:.2f} budget" if cap is not None else "the budget"
            self.say(
                f"Stopped at {what} of this session. Raise it with /budget AMOUNT (/budget 0 "
                "removes the cap), then send a message to go on."
            )
        elif event.subtype == "error_max_turns":
            cap_turns = limits.max_turns if limits is not None else None
            what = f"{cap_turns} tool turns" if cap_turns is not None else "the turn cap"
            self.say(
                f"Stopped after {what} for this prompt. Raise the cap with /turns N (/turns 0 "
                "removes it), then send a message to go on."
            )

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
        self.call_after_refresh(self._focus_question, prompt)

    def _focus_question(self, prompt: PermissionPrompt) -> None:
        """Focus a permission question without scrolling to its top: the conversation stays
        anchored at the bottom, so the whole question shows however tall it grows."""
        if prompt.is_attached and not prompt.answered:
            prompt.focus(scroll_visible=False)
            self.conversation.anchor()

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
