"""Engine events on the main screen: the status line, permission questions, rewinds.

Every event the session emits reaches ``EventRouter.handle`` (from the app's emit callback;
``MainScreen.handle_event`` passes events on too): the conversation shows it, the status line
follows the turn (activity, tokens, cost, context), a permission request becomes a question in
the conversation, and a finished rewind redraws the conversation. What the user types and
picks stays with the screen (tui/screens/main.py).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, assert_never, cast

from agent import events as ev
from tui.widgets.conversation.permission_prompt import PermissionPrompt

if TYPE_CHECKING:
    from tui.app import EddyApp
    from tui.screens.main import MainScreen


AHEAD_OF_REQUEST = (ev.TurnStarted, ev.ModelCallStarted)
"""Events the engine emits just before a request to the model leaves: shown once the loop
waits for the network (``FramePacer.before_frame``), so that the request goes first. Their
blocks' mounts, and Textual's messages about them, ran between the steps that build and send
it and held it back 2.5 ms; the frame that shows them comes after it either way."""


class EventRouter:
    """Routes engine events to the widgets of a main screen.

    Args:
        screen: the screen whose conversation, status line, queue and prompt show the events.
    """

    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self.turn_chars = 0
        """Characters streamed in the running turn (a token estimate until usage comes)."""
        self._text: list[str] = []
        """Text deltas not shown yet: those parsed from one read of the stream go as one."""
        self._held: list[ev.Event] = []
        """Events ahead of a request (``AHEAD_OF_REQUEST``) not shown yet, in order."""

    def handle(self, event: ev.Event) -> None:
        """Route one engine event to the widgets that show it (every event in the order it
        came: those held back are shown before any that follows)."""
        if type(event) is ev.TextDelta:  # the hot path: thousands a second at full speed
            if not self._text:
                asyncio.get_running_loop().call_soon(self._show_text_later)
            self._text.append(event.text)
            return
        if isinstance(event, AHEAD_OF_REQUEST):
            if self._text:  # text that came before it (never in practice) shows first
                self._show_text()
            if not self._held:
                self.screen.frames.before_frame(self._show_held)
            self._held.append(event)
            return
        self._show_text()  # what was said before this event comes first
        self._show(event)

    def _show(self, event: ev.Event) -> None:
        screen = self.screen
        screen.conversation.apply(event)
        screen.status.follow(event)  # the figures and the activity (frontend/status.py)
        screen.status_script.poke()  # the statusLine script runs again, debounced
        if self._route(event):
            screen.status.refresh_line()

    # Every kind is named in one of these matches, and each ends in assert_never: mypy fails
    # here when a new event is not handled (tests/agent/test_protocol_exhaustive.py).
    def _route(self, event: ev.Event) -> bool:
        """What ``event`` does beyond the conversation and the status model; whether the
        status line is drawn again after it."""
        match event:
            case ev.TurnStarted() | ev.ThinkingDelta() | ev.PromptBlocked() | ev.TurnFinished():
                return self._turn_event(event)
            case (
                ev.PermissionRequested()
                | ev.PermissionResolved()
                | ev.Interrupted()
                | ev.QuestionsAsked()
                | ev.PlanReviewRequested()
                | ev.QuestionsAnswered()
                | ev.PlanReviewed()
            ):
                self._question_event(event)
            case ev.QueueChanged() | ev.RewindFinished() | ev.SessionRenamed():
                self._session_event(event)
            case (
                ev.TextDelta()
                | ev.ModelCallStarted()
                | ev.ToolCallRunning()
                | ev.UsageUpdated()
                | ev.Compacted()
                | ev.PermissionModeChanged()
                | ev.AssistantMessage()
                | ev.ToolCallStarted()
                | ev.ToolOutputDelta()
                | ev.ToolCallFinished()
                | ev.CorrectionsDelivered()
                | ev.TodosUpdated()
                | ev.Notice()
                | ev.Error()
                | ev.HookRan()
                | ev.HookStarted()
                | ev.SubagentEvent()
                | ev.BackgroundChanged()
                | ev.BackgroundReported()
            ):
                pass  # the status model's or the conversation's alone
            case _:
                assert_never(event)
        return True

    def _turn_event(
        self, event: ev.TurnStarted | ev.ThinkingDelta | ev.PromptBlocked | ev.TurnFinished
    ) -> bool:
        """A turn starts, thinks, is blocked or ends; whether the status line is redrawn."""
        match event:
            case ev.TurnStarted():
                self.turn_chars = 0
                self.screen.status.start_work()
            case ev.ThinkingDelta():
                self._thinking(event)
                return False  # the spinner's timer repaints; no repaint per delta
            case ev.PromptBlocked():
                self._blocked(event)
            case ev.TurnFinished():
                self._finished(event)
                return False
            case _:
                assert_never(event)
        return True

    def _question_event(
        self,
        event: ev.PermissionRequested
        | ev.PermissionResolved
        | ev.Interrupted
        | ev.QuestionsAsked
        | ev.PlanReviewRequested
        | ev.QuestionsAnswered
        | ev.PlanReviewed,
    ) -> None:
        """A question to the user is asked, answered, or has no one to answer it any more."""
        match event:
            case ev.PermissionRequested():
                self._ask(event)
            case ev.QuestionsAsked() | ev.PlanReviewRequested():
                from tui.screens.ask_dialogs import open_dialog

                open_dialog(self.screen, event)
            case ev.QuestionsAnswered() | ev.PlanReviewed():
                pass  # the dialog closed itself
            case ev.PermissionResolved():
                self._close_prompts(event)
            case ev.Interrupted():
                self._close_prompts(event)
                self._close_dialogs()
            case _:
                assert_never(event)

    def _session_event(
        self, event: ev.QueueChanged | ev.RewindFinished | ev.SessionRenamed
    ) -> None:
        """The queue, the conversation (a rewind) or the session's title changed."""
        screen = self.screen
        match event:
            case ev.QueueChanged():
                screen.queued.set_items(event.queue)
                screen.prompt.queued = screen.status.queued
            case ev.RewindFinished():
                screen.run_worker(self._rewound(event), group="rewind", exit_on_error=False)
            case ev.SessionRenamed():
                screen.say(f"Session renamed to “{event.title}”.")
            case _:
                assert_never(event)

    def _thinking(self, event: ev.ThinkingDelta) -> None:
        """Thinking is not shown as it streams: it counts towards the turn's tokens."""
        status = self.screen.status
        self.turn_chars += len(event.text)
        status.turn_tokens = max(status.turn_tokens, self.turn_chars // 4)

    def _blocked(self, event: ev.PromptBlocked) -> None:
        """A hook blocked the prompt: say why and give it back to edit and send again."""
        screen = self.screen
        screen.say(f"Prompt blocked by a UserPromptSubmit hook: {event.reason}", "notice")
        screen.prompt.load_quietly(event.prompt)
        screen.prompt.move_cursor(screen.prompt.document.end)

    def _finished(self, event: ev.TurnFinished) -> None:
        """The turn ended: its questions close, the spinner stops, the file index is stale."""
        self._close_prompts(event)
        self._close_dialogs()
        self.screen.status.stop_work()
        self.screen.index_stale = True  # the turn may have created files
        self._cap_advice(event)

    def _cap_advice(self, event: ev.TurnFinished) -> None:
        """After a stop at the budget or turn cap: how to raise it and go on."""
        from frontend.wording import turn_end

        session = self.screen.session
        advice = turn_end(event.subtype, session.status() if session else None)
        if advice is not None:
            self.screen.say(advice)

    async def _rewound(self, event: ev.RewindFinished) -> None:
        """Show a finished rewind: the rewound conversation, what happened to the files."""
        from frontend.wording import first_line

        screen = self.screen
        session = screen.session
        if event.context_tokens is not None and session is not None:  # the conversation too
            await screen.reset_conversation()
            screen.show_history(session.history)
            screen.status.context_tokens = event.context_tokens  # the kept history's estimate
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
            self._report("text_delta", exc)

    def _report(self, what: str, exc: Exception) -> None:
        cast("EddyApp", self.screen.app).report_render_error(what, exc)

    def _show_held(self) -> None:
        """Show the events held back ahead of a request, in order (called once the loop
        waits, or before an event that follows them); one that fails to show is reported as
        the app's emit would, and the next is still shown."""
        while self._held:
            event = self._held.pop(0)
            try:
                self._show(event)
            except Exception as exc:
                self._report(event.type, exc)

    def _show_text(self) -> None:
        """Show the text deltas received since the engine last let the loop run (once the
        stream waits for the network, or before any other event)."""
        self._show_held()
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
        screen = self.screen
        path = event.input.get("file_path")
        diff = (str(path), event.preview) if event.preview is not None else None
        saves = screen.session.status().save_rules if screen.session is not None else True
        prompt = PermissionPrompt(
            event.request_id,
            event.name,
            event.input,
            event.summary,
            event.suggested_rule,
            diff,
            saves=saves,
            warning=event.warning,
            agent=event.agent,
            workspace=cast("EddyApp", screen.app).workspace,
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

    def _close_dialogs(self) -> None:
        """The turn stopped: a question or plan dialog still open has no one to answer."""
        if self.screen.app.screen is self.screen:  # nothing over the conversation: the
            return  # dialogs' module (~80 ms to import) is not needed at a first turn's end
        from tui.screens.ask_dialogs import close_dialogs

        close_dialogs(self.screen)

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
