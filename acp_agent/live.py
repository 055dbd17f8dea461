"""One session opened over ACP: the engine's session, the ordered update pump, permission
questions and the prompts waiting for their turn to end.

Ordering: the engine emits events synchronously; each becomes updates in one queue, and one
task sends them in that order, so a ``tool_call`` always reaches the client before its
``tool_call_update`` and before the ``session/request_permission`` about it. A prompt is
answered only after every update of its turn was sent.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from acp import schema
from acp.helpers import update_agent_message_text

from acp_agent.updates import (
    AskDialog,
    AskPermission,
    Item,
    QueueNotice,
    TurnEnded,
    UpdateMapper,
)
from agent import events as ev
from agent import ops
from agent.session.core import Session

log = logging.getLogger("eddy.acp")

ALLOW_ONCE, ALLOW_ALWAYS, REJECT = "allow_once", "allow_always", "reject_once"
PERMISSION_OPTIONS = [
    schema.PermissionOption(option_id=ALLOW_ONCE, name="Allow once", kind="allow_once"),
    schema.PermissionOption(option_id=ALLOW_ALWAYS, name="Allow always", kind="allow_always"),
    schema.PermissionOption(option_id=REJECT, name="Reject", kind="reject_once"),
]
"""What a permission question offers (the TUI's yes / don't ask again / no)."""
DECISIONS: dict[str, ops.Decision] = {
    ALLOW_ONCE: "allow",
    ALLOW_ALWAYS: "allow_always",
    REJECT: "deny",
}

STOP_REASONS: dict[str, schema.StopReason] = {
    "success": "end_turn",
    "error_max_turns": "max_turn_requests",
    "error_max_budget_usd": "end_turn",
    "error_during_execution": "end_turn",
    "interrupted": "cancelled",
}
"""A turn's end as ACP's stop reason (the budget and errors were said in the message)."""


def stop_reason(finished: ev.TurnFinished) -> schema.StopReason:
    """The ACP stop reason of a turn that ended so."""
    if finished.subtype == "success" and finished.stop_reason in ("max_tokens", "refusal"):
        return "max_tokens" if finished.stop_reason == "max_tokens" else "refusal"
    return STOP_REASONS.get(finished.subtype, "end_turn")


class LiveSession:
    """An engine session and what ACP needs around it.

    Args:
        conn: the connection to the client (``session_update``, ``request_permission``).
        workspace: the session's directory.
    """

    def __init__(self, conn: Any, workspace: Path) -> None:
        self.conn = conn
        self.workspace = workspace
        self.session_id = ""
        self.session: Session | None = None
        self.mapper = UpdateMapper(workspace)
        self.last_finished: ev.TurnFinished | None = None
        self.captured: list[ev.Event] | None = None
        """While not None, every event is also kept here (a synchronous op's answer)."""
        self._queue: asyncio.Queue[Item] = asyncio.Queue()
        self._pump: asyncio.Task[None] | None = None
        self._asks: set[asyncio.Task[None]] = set()
        self._turn_base_cost = 0.0
        self._client_gone = False

    # -- the engine's event sink -------------------------------------------------------------
    def emit(self, event: ev.Event) -> None:
        """The session's ``emit``: queue what the client is told about ``event``."""
        if self.captured is not None:
            self.captured.append(event)
        if isinstance(event, ev.TurnFinished):
            self.last_finished = event
            self._turn_base_cost = event.total_cost_usd
        elif isinstance(event, ev.TurnStarted) and self.session is not None:
            self._turn_base_cost = self.session.total_cost
        if isinstance(event, ev.UsageUpdated):
            self.send(self._usage(event))
            return
        for item in self.mapper.updates(event):
            self._queue.put_nowait(item)

    def send(self, update: Item) -> None:
        """Queue an update (after everything queued before it)."""
        self._queue.put_nowait(update)

    def replay(self, events: Any) -> None:
        """Queue a saved history's events as the updates that render it (``session/load``)."""
        mapper = UpdateMapper(self.workspace, replay=True)
        for event in events:
            for item in mapper.updates(event):
                if not isinstance(item, AskPermission | QueueNotice | AskDialog | TurnEnded):
                    self._queue.put_nowait(item)

    def _ended(self, item: TurnEnded) -> dict[str, Any]:
        """``_eddy/turn_ended``'s parameters: the session, the stop reason ``session/prompt``
        would have answered, and who started the turn."""
        return {
            "sessionId": self.session_id,
            "stopReason": stop_reason(item.finished),
            "origin": "background",
        }

    def _usage(self, event: ev.UsageUpdated) -> schema.UsageUpdate:
        cost = schema.Cost(
            amount=round(self._turn_base_cost + event.total_cost_usd, 6), currency="USD"
        )
        return schema.UsageUpdate(
            session_update="usage_update",
            used=max(0, event.context_tokens),
            size=max(0, event.context_window),
            cost=cost,
        )

    # -- sending ------------------------------------------------------------------------------
    def start(self, session: Session) -> None:
        """The session is built: start sending its updates."""
        self.session = session
        self.session_id = session.status().session_id
        # the diff's old side: the buffer the model read, when files go through the editor
        self.mapper.buffered = session.ctx.client_texts.get
        self._pump = asyncio.get_running_loop().create_task(self._send_all())

    async def _send_all(self) -> None:
        while True:
            item = await self._queue.get()
            try:
                if isinstance(item, AskPermission | AskDialog):
                    # sent after the tool_call it is about; answered whenever the user does
                    work = (
                        self._ask(item) if isinstance(item, AskPermission) else self._dialog(item)
                    )
                    task = asyncio.get_running_loop().create_task(work)
                    self._asks.add(task)
                    task.add_done_callback(self._asks.discard)
                elif isinstance(item, QueueNotice):
                    params = {"sessionId": self.session_id, "queue": list(item.queue)}
                    await self.conn.ext_notification("eddy/queue", params)
                elif isinstance(item, TurnEnded):
                    await self.conn.ext_notification("eddy/turn_ended", self._ended(item))
                else:
                    await self.conn.session_update(session_id=self.session_id, update=item)
            except ConnectionError:  # the client is gone: nothing more to tell it
                if not self._client_gone:
                    self._client_gone = True
                    log.info("session %s: the client is gone; updates stop", self.session_id)
            except Exception:  # an update the package could not send: a bug, said once each
                log.exception("could not send a session update")
            finally:
                self._queue.task_done()

    async def flushed(self) -> None:
        """Wait until every update queued so far was sent."""
        await self._queue.join()

    async def _dialog(self, item: AskDialog) -> None:
        from acp_agent.dialogs import ask_dialog

        op = await ask_dialog(self.conn, self.session_id, item.event)
        if op is not None and self.session is not None:
            self.session.submit(op)

    async def _ask(self, item: AskPermission) -> None:
        request = item.request
        try:
            response = await self.conn.request_permission(
                session_id=self.session_id, tool_call=item.tool_call, options=PERMISSION_OPTIONS
            )
            outcome = response.outcome
            option = getattr(outcome, "option_id", None)
            decision = DECISIONS.get(option or "", "deny")
            reason = "" if option else "The question was cancelled."
        except ConnectionError:  # the client is gone: the call does not run
            decision, reason = "deny", ""
        except Exception as exc:  # the client failed to answer: the call does not run
            log.warning("permission request failed: %s", exc)
            decision, reason = "deny", ""
        if self.session is not None:
            # a request withdrawn by session/cancel is answered too: the gate ignores an
            # answer for a question that is no longer pending
            self.session.submit(ops.AnswerPermission(request.request_id, decision, reason))

    # -- prompts ------------------------------------------------------------------------------
    async def run_prompt(self, text: str) -> schema.StopReason:
        """Send ``text`` (a queued correction if a turn runs); answer when the turn ends."""
        session = self.session
        assert session is not None
        if not text.strip():
            return "end_turn"
        session.submit(ops.SubmitPrompt(text))
        await session.wait_idle()
        await self.flushed()
        finished = self.last_finished
        return "end_turn" if finished is None else stop_reason(finished)

    def cancel(self) -> None:
        """``session/cancel``, Esc: take the queued corrections back, stop the turn."""
        session = self.session
        if session is None:
            return
        while session.queue:
            session.submit(ops.TakeQueued())
        session.submit(ops.Interrupt())

    def say(self, text: str) -> None:
        """A line for the user, as agent text (slash command answers)."""
        self.send(update_agent_message_text(text.rstrip("\n") + "\n"))

    def capture(self, op: ops.Op) -> list[ev.Event]:
        """Submit an op the session applies at once; the events it emitted meanwhile."""
        assert self.session is not None
        self.captured = []
        try:
            self.session.submit(op)
            return self.captured
        finally:
            self.captured = None

    async def close(self) -> None:
        """Stop the turn, close the session (transcript, checkpoints), stop sending."""
        if self.session is not None:
            await self.session.close()
        for task in list(self._asks):
            task.cancel()
        if self._pump is not None:
            self._pump.cancel()


Factory = Callable[[Any, Path], LiveSession]
