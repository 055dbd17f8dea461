"""Show a history again (after a rewind, on resume): the messages as the events that made them.

The conversation widget renders engine events, so a saved history is turned back into the
events a live turn would have emitted: a prompt, the answer's text, tool calls with their
results, corrections. What the engine added for the model only (attached files, plan-mode
reminders) is not shown; a compaction summary shows as one line.

On resume only the newest messages are rendered (``show_history``), so a 2,000-message session
opens as fast as a short one. Above them an ``EarlierMessages`` line renders the previous
messages on demand (a click, Enter on it, or scrolling the conversation to its top), a chunk at
a time, each in its own ``ReplayedBlock``; the session always has the whole history.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from textual.binding import Binding
from textual.content import Content
from textual.widgets import Static

from agent.messages import Message
from frontend.history_events import REPLAY_MESSAGES, Summary, history_events, tail_start
from tui.widgets.conversation.conversation import Conversation

EARLIER_MESSAGES = 60
""""Show earlier" renders at most this many more messages at a time."""


def show_history(
    conversation: Conversation,
    history: Sequence[Message],
    summary: Summary | None = None,
    *,
    limit: int = REPLAY_MESSAGES,
    clock: Callable[[], float] = time.monotonic,
) -> int:
    """Render the newest messages of ``history`` at the bottom of ``conversation``.

    When older messages are left out, an ``EarlierMessages`` line goes first, above them.

    Args:
        conversation: where to render.
        history: the session's history (its older part is copied, not kept).
        summary: a tool call's one-line summary, from its name and input.
        limit: render at most this many messages now.
        clock: the app's clock (tool call blocks).

    Returns:
        How many messages were rendered.
    """
    start = tail_start(history, limit)
    if start > 0:
        conversation.add_block(EarlierMessages(history[:start], summary, clock))
    for event in history_events(history[start:], summary):
        conversation.apply(event)
    return len(history) - start


class ReplayedBlock(Conversation):
    """Earlier messages rendered on demand: a conversation inside the conversation, as tall
    as its blocks, with its own answer and tool call state (the live one's is untouched)."""

    DEFAULT_CSS = """
    ReplayedBlock {
        height: auto;
        overflow: hidden hidden;
        padding: 0;
    }
    """

    can_focus = False

    def __init__(self, clock: Callable[[], float]) -> None:
        super().__init__(clock, max_blocks=10**9)

    def on_mount(self) -> None:
        pass  # nothing to follow: it does not scroll


class EarlierMessages(Static, can_focus=True):
    """The line above a replayed history: how many earlier messages are not rendered.

    A click, Enter on it, or scrolling the conversation up to its top renders up to
    ``EARLIER_MESSAGES`` more just below it (oldest on top); it goes when none are left.

    Args:
        messages: the messages before the rendered ones (copied).
        summary: a tool call's one-line summary, from its name and input.
        clock: the app's clock (tool call blocks).
    """

    DEFAULT_CSS = """
    EarlierMessages {
        color: $text-muted;
        margin-top: 1;
        &:hover { text-style: underline; }
        &:focus { text-style: reverse; }
    }
    """
    BINDINGS = [Binding("enter", "show_earlier", "Show earlier messages", show=False)]

    def __init__(
        self, messages: Sequence[Message], summary: Summary | None, clock: Callable[[], float]
    ) -> None:
        self.messages = list(messages)
        self._summary = summary
        self._clock = clock
        super().__init__(self._label())

    def _label(self) -> Content:
        n = len(self.messages)
        noun = "message" if n == 1 else "messages"
        return Content(f"↑ {n:,} earlier {noun} · scroll up or click to show them")

    def on_mount(self) -> None:
        if self.parent is not None:
            self.watch(self.parent, "scroll_y", self._scrolled, init=False)

    def _scrolled(self, old: float, new: float) -> None:
        if new <= 0 < old:  # the user scrolled up to the top
            self.show_earlier(keep_place=True)

    def on_click(self) -> None:
        self.show_earlier()

    def action_show_earlier(self) -> None:
        self.show_earlier()

    def show_earlier(self, *, keep_place: bool = False) -> int:
        """Render the previous chunk of messages just below this line.

        Args:
            keep_place: scroll so what was at the top stays there (the user scrolled up).

        Returns:
            How many messages were rendered.
        """
        parent = self.parent
        if not self.messages or not isinstance(parent, Conversation):
            return 0
        parent.release_anchor()  # the user is reading back: do not jump to the bottom
        start = tail_start(self.messages, EARLIER_MESSAGES)
        chunk, self.messages = self.messages[start:], self.messages[:start]
        siblings = list(parent.children)
        index = siblings.index(self)
        below = siblings[index + 1] if index + 1 < len(siblings) else None
        block = ReplayedBlock(self._clock)
        parent.mount(block, after=self)
        for event in history_events(chunk, self._summary):
            block.apply(event)
        if keep_place and below is not None:
            parent.call_after_refresh(parent.scroll_to_widget, below, animate=False, top=True)
        if self.messages:
            self.update(self._label())
        else:
            self.remove()
        return len(chunk)
