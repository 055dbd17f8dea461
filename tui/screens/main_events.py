"""Engine events on the main screen: the status line, permission questions, rewinds.

Every event the session emits reaches ``EventRouter.handle`` (from the app's emit callback;
``MainScreen.handle_event`` passes events on too): the conversation shows it, the status line
follows the turn (activity, tokens, cost, context), a permission request becomes a question in
the conversation, and a finished rewind redraws the conversation. What the user types and
picks stays with the screen (tui/screens/main.py).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from agent import events as ev
from tui.widgets.permission_prompt import PermissionPrompt

if TYPE_CHECKING:
    from tui.screens.main import MainScreen


class EventRouter:
    """Routes engine events to the widgets of a main screen.

    Args:
        screen: the screen whose conversation, status line, queue and prompt show the events.
    """

    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self.session_cost = 0.0
        """The session's cost before the running turn (the turn's usage is added to it)."""
        self.turn_chars = 0
        """Characters streamed in the running turn (a token estimate until usage comes)."""
        self._text: list[str] = []
        """Text deltas not shown yet: those parsed from one read of the stream go as one."""

    def handle(self, event: ev.Event) -> None:
        """Route one engine event to the widgets that show it."""
        if type(event) is ev.TextDelta:  # the hot path: thousands a second at full speed
            if not self._text:
                asyncio.get_running_loop().call_soon(self._show_text_later)
            self._text.append(event.text)
            return
        self._show_text()  # what was said before this event comes first
        screen = self.screen
        screen.conversation.apply(event)
        status = screen.status
        if isinstance(event, ev.TurnStarted):
            self.turn_chars = 0
            if screen.session is not None:
                self.session_cost = screen.session.total_cost
            status.start_work()
        elif isinstance(event, ev.ModelCallStarted):
            status.activity = "thinking"
        elif isinstance(event, ev.ThinkingDelta):
            self.turn_chars += len(event.text)
            status.activity = "thinking"
            status.turn_tokens = max(status.turn_tokens, self.turn_chars // 4)
            return  # the spinner's timer repaints; no repaint per delta
        elif isinstance(event, ev.ToolCallRunning):
            block = screen.conversation.tool_blocks.get(event.call_id)
            status.activity = f"running {block.tool_name}" if block else "running"
        elif isinstance(event, ev.PermissionRequested):
            status.activity = "waiting for permission"
            self._ask(event)
        elif isinstance(event, ev.UsageUpdated):
            status.context_tokens = event.context_tokens
            status.context_window = event.context_window
            status.cost = self.session_cost + event.total_cost_usd
        elif isinstance(event, ev.QueueChanged):
            screen.queued.set_items(event.queue)
            screen.prompt.queued = status.queued = len(event.queue)
        elif isinstance(event, ev.PermissionResolved | ev.Interrupted):
            self._close_prompts(event)
        elif isinstance(event, ev.Compacted):
            if screen.session is not None:
                status.context_tokens = screen.session.context_tokens
        elif isinstance(event, ev.RewindFinished):
            screen.run_worker(self._rewound(event), group="rewind", exit_on_error=False)
        elif isinstance(event, ev.TurnFinished):
            self._close_prompts(event)
            self.session_cost = status.cost = event.total_cost_usd
            status.turns += event.num_turns
            status.stop_work()
            screen.index_stale = True  # the turn may have created files
            self._cap_advice(event)
            return
        status.refresh_line()

    def _cap_advice(self, event: ev.TurnFinished) -> None:
        """After a stop at the budget or turn cap: how to raise it and go on."""
        from agent.context import cap_advice

        session = self.screen.session
        advice = cap_advice(event.subtype, session.config.limits if session else None)
        if advice is not None:
            self.screen.say(advice)

    async def _rewound(self, event: ev.RewindFinished) -> None:
        """Show a finished rewind: the rewound conversation, what happened to the files."""
        from tui.screens.rewind import first_line

        screen = self.screen
        session = screen.session
        if event.mode in ("both", "conversation") and session is not None:
            await screen.reset_conversation()
            screen.show_history(session.history)
            screen.status.context_tokens = session.context_tokens  # the kept history's estimate
            screen.status.refresh_line()
            where = first_line(event.prompt, 70)
            screen.say(f"— rewound to before: {where} —" if where else "— rewind undone —")
        lines = [event.message]
        if event.conflicts:
            left = ", ".join(event.conflicts)
            lines.append(f"Changed by you since eddy wrote them, left alone: {left}")
        if event.not_restorable:
            lines.append("Not restorable: " + "; ".join(event.not_restorable))
        screen.say("\n".join(lines), "notice")
        if event.prompt:
            screen.prompt.load_quietly(event.prompt)
            screen.prompt.move_cursor(screen.prompt.document.end)
        screen.prompt.focus()

    # -- permission questions -------------------------------------------------------------
    def _show_text_later(self) -> None:
        try:
            self._show_text()
        except Exception as exc:  # outside the app's emit, so reported as it would
            self.screen.app.report_render_error("text_delta", exc)

    def _show_text(self) -> None:
        """Show the text deltas received since the engine last let the loop run (once the
        stream waits for the network, or before any other event)."""
        if not self._text:
            return
        text = "".join(self._text)
        self._text.clear()
        screen = self.screen
        screen.conversation.add_text(text)
        self.turn_chars += len(text)
        status = screen.status
        status.activity = "responding"
        status.turn_tokens = max(status.turn_tokens, self.turn_chars // 4)
        # the spinner's timer repaints; no repaint per delta

    def _ask(self, event: ev.PermissionRequested) -> None:
        from tui.widgets.diff_view import preview_diff  # pygments: not before the first frame

        screen = self.screen
        diff = None
        saves = True
        if screen.session is not None:
            ctx = screen.session.ctx
            diff = preview_diff(event.name, event.input, lambda raw: ctx.resolve(raw).path)
            saves = screen.session.config.save_rules
        prompt = PermissionPrompt(
            event.request_id,
            event.name,
            event.input,
            event.summary,
            event.suggested_rule,
            diff,
            saves=saves,
        )
        screen.conversation.add_block(prompt)
        screen.conversation.anchor()
        screen.call_after_refresh(self.focus_question, prompt)

    def focus_question(
        self, prompt: PermissionPrompt | None = None, *, asked: bool = False
    ) -> bool:
        """Focus a permission question (the oldest unanswered one) without scrolling to its
        top: the conversation stays anchored at the bottom, so the whole question shows
        however tall it grows. Not while the user is writing in the prompt: their keys,
        Enter included, stay theirs (Tab, ``asked``, or sending the text moves to the
        question). Returns whether a question has the focus."""
        if prompt is None:
            prompt = next((p for p in self.screen.query(PermissionPrompt) if not p.answered), None)
        if prompt is None:
            return False
        if not asked and self.screen.prompt.text and self.screen.prompt.has_focus:
            self.screen.status.activity = "waiting for permission · Tab to answer"
            self.screen.status.refresh_line()
            return False
        if prompt.is_attached and not prompt.answered:
            prompt.focus(scroll_visible=False)
            self.screen.conversation.anchor()
            return True
        return False

    def _close_prompts(self, event: ev.Event) -> None:
        request_id = getattr(event, "request_id", None)
        for prompt in self.screen.query(PermissionPrompt):
            if request_id is None or prompt.request_id == request_id:
                self.close_prompt(prompt)

    def close_prompt(self, prompt: PermissionPrompt) -> None:
        """Take an answered (or no longer asked) question away; the prompt gets the focus
        back if the question had it."""
        had_focus = prompt.has_focus or prompt.has_focus_within
        leftover = prompt.unused_text
        prompt.answered = True
        if prompt.is_attached:
            prompt.remove()
        main = self.screen.prompt
        if leftover and not main.text:  # typed, then the turn was stopped: keep it
            main.load_quietly(leftover)
            main.move_cursor(main.document.end)
        if had_focus or self.screen.focused is None:
            main.focus()
