"""The model's answer as streaming markdown (Textual's MarkdownStream), kept cheap when long.

Deltas arrive synchronously from the engine, often hundreds a second. They are buffered here
and handed to the MarkdownStream by a worker whenever it gets to run, and the stream itself
merges fragments when rendering falls behind, so the document is never parsed whole per chunk.

Textual's Markdown makes a widget per block, and every layout pass visits all of them; a
20,000-token answer would make thousands. So once the live part grows past ``SEAL_CHARS``, its
finished blocks (up to a blank line outside a code fence) are sealed, in pieces of about
``PIECE_CHARS``, into one FrozenMarkdown widget (``sealed``) that grows, and only the tail
stays live; text that arrives faster than it renders is sealed before it ever becomes live
widgets. Pieces are lazy: their markdown is rendered when first painted (Textual paints only
what is on screen), and the rest one piece at a time once the answer is complete
(``settled``). ``freeze()`` does the same for an old answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable
from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownStream

from frontend.partial_markdown import close_partial
from frontend.sanitize import sanitize
from tui.widgets.conversation.frozen_markdown import FrozenMarkdown
from tui.widgets.prompt.prompt_input import PromptInput

WRITE_INTERVAL = 1 / 20
"""Seconds between two writes to the live markdown."""
FAST_INTERVAL = 1 / 10
"""... when text arrives faster than anyone reads (more than ``FAST_CHARS`` a write): fewer,
bigger writes leave most frames to the keyboard."""
FAST_CHARS = 2000
KEY_QUIET = 0.04
"""After a key, the live markdown waits this long before its next write (at most
``KEY_HOLD`` in all while the user keeps typing): the key's echo gets a frame of its own
instead of sharing one with a layout of the growing answer."""
KEY_HOLD = 0.2
SEAL_CHARS = 3000
"""Live markdown beyond this many characters gets its finished blocks sealed."""
PIECE_CHARS = 4000
"""Sealed text is cut into widgets of about this size: a widget's markdown is rendered whole
the first time any of it is painted."""
VIEW_CHARS = 3000
"""About a screenful: sealed text that ends on screen has its last ``VIEW_CHARS`` cut into
pieces of about ``VIEW_PIECE_CHARS``, so painting the bottom renders little more than it
shows."""
VIEW_PIECE_CHARS = 1000


def seal_point(text: str) -> int:
    """Where ``text`` can be cut into finished blocks + a live tail: the last blank line
    outside a code fence, before the last block; 0 when there is none."""
    cut, fenced, offset = 0, False, 0
    lines = text.split("\n")
    for i, line in enumerate(lines[:-1]):
        offset += len(line) + 1
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and not line.strip() and i > 0 and lines[i + 1].strip():
            cut = offset
    return cut


def split_blocks(text: str, size: int = PIECE_CHARS) -> list[str]:
    """``text`` cut at blank lines outside code fences into pieces of about ``size``
    characters (longer when one block is), so only the pieces on screen are ever painted."""
    pieces: list[str] = []
    start, offset, fenced = 0, 0, False
    lines = text.split("\n")
    for i, line in enumerate(lines[:-1]):
        offset += len(line) + 1
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif (
            not fenced
            and not line.strip()
            and offset - start >= size
            and lines[i + 1].strip()
            and offset < len(text)
        ):
            pieces.append(text[start:offset])
            start = offset
    if start < len(text):
        pieces.append(text[start:])
    return pieces


def split_for_view(text: str) -> list[str]:
    """``split_blocks`` for text whose end is on screen: its last ``VIEW_CHARS`` or so in
    pieces of about ``VIEW_PIECE_CHARS``, the rest in pieces of about ``PIECE_CHARS``."""
    pieces: list[str] = []
    merged: list[str] = []
    left, size = len(text), 0
    for small in split_blocks(text, VIEW_PIECE_CHARS):
        if left > VIEW_CHARS:
            merged.append(small)
            size += len(small)
            if size >= PIECE_CHARS:
                pieces.append("".join(merged))
                merged.clear()
                size = 0
        else:
            if merged:
                pieces.append("".join(merged))
                merged.clear()
            pieces.append(small)
        left -= len(small)
    if merged:
        pieces.append("".join(merged))
    return pieces


class AssistantText(Vertical):
    """A block of assistant markdown that grows as deltas arrive, then is finished."""

    def __init__(self, text: str = "") -> None:
        super().__init__()
        text = sanitize(text)
        self.live = Markdown()
        self._unsent: list[str] = [text] if text else []
        self._parts: list[str] = [text] if text else []
        self._wake = asyncio.Event()
        self._ended = asyncio.Event()
        self._live_pending: Awaitable[object] | None = None
        self.sealed: FrozenMarkdown | None = None
        """The answer's finished blocks, once part of it is sealed (then its end is too)."""
        self._no_more = False
        self._replace_with: str | None = None
        self._seal_at = SEAL_CHARS
        self.finished = False
        """True once every delta has been rendered and the stream stopped."""
        self.settled = False
        """True once every sealed piece is rendered too (not only those painted so far)."""
        self.interrupted = False
        self.received = len(text)
        """Characters received so far (for the status line's token estimate)."""

    def compose(self) -> ComposeResult:
        yield self.live

    @property
    def text(self) -> str:
        """Everything received, rendered or still pending."""
        if len(self._parts) > 1:
            self._parts[:] = ["".join(self._parts)]
        return self._parts[0] if self._parts else ""

    def on_mount(self) -> None:
        # The stream is fed from a worker: awaiting it inside this widget's own message
        # handler would wait on mounts that need this very message loop.
        self.run_worker(self._pump(), group="markdown-stream", exit_on_error=False)

    def add(self, delta: str) -> None:
        """Append a fragment of markdown (called from the engine's emit, same thread)."""
        # an escape sequence in the model's text must not reach the terminal (one cut
        # between two deltas leaves only harmless printable characters)
        delta = sanitize(delta)
        if self._no_more or not delta:
            return
        self._unsent.append(delta)
        self._parts.append(delta)
        self.received += len(delta)
        self._wake.set()

    @property
    def shown_text(self) -> str:
        """The markdown shown: what was received, with what an interruption left open (a code
        fence, ``**bold``) closed."""
        return close_partial(self.text) if self.interrupted else self.text

    def finish(self, *, interrupted: bool = False) -> None:
        """No more deltas: render what is pending and stop the stream."""
        if interrupted and not self._no_more:
            self.interrupted = True
            self.add_class("interrupted")
            text, shown = self.text, self.shown_text
            if shown.startswith(text):  # closers to add: the stream renders them as text
                if len(shown) > len(text):
                    self._unsent.append(shown[len(text) :])
            else:  # a marker dangling at the end is dropped: the last render replaces it
                self._replace_with = shown
        self._no_more = True
        self._ended.set()
        self._wake.set()

    async def _pump(self) -> None:
        # A stream is made only when there is text to write: stopping one whose task has not
        # started yet raises CancelledError in the caller.
        stream: MarkdownStream | None = None
        try:
            while True:
                await self._wake.wait()
                self._wake.clear()
                interval = WRITE_INTERVAL
                await self._let_keys_echo()
                if self._unsent:
                    fragment = "".join(self._unsent)
                    if len(fragment) > FAST_CHARS:
                        interval = FAST_INTERVAL
                    self._unsent.clear()
                    if self._no_more or len(self.live.source) + len(fragment) > self._seal_at:
                        await self._stop_stream(stream)
                        stream = None
                        await self._seal(fragment, everything=self._no_more)
                    else:
                        await self._live_settled()
                        if stream is None:
                            stream = Markdown.get_stream(self.live)
                        await stream.write(fragment)
                if self._no_more and not self._unsent:
                    # text written to the stream may not be applied yet: the live source
                    # is whole only once the stream has stopped
                    await self._stop_stream(stream)
                    stream = None
                    if self.sealed is not None and self.live.display and self.live.source:
                        await self._seal("", everything=True)  # the tail too: no live update
                    elif self.sealed is None and self._replace_with is not None:
                        await self._live_settled()
                        await self.live.update(self._replace_with)
                    break
                # at most ~30 renders a second: a fast stream is merged into bigger pieces
                # (sealed at once) instead of taking turns with the engine delta by delta;
                # the end of the stream cuts the rest short
                if not self._no_more:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._ended.wait(), interval)
        finally:
            if stream is not None:
                await stream.stop()
            self.finished = True
        await self._live_settled()
        # the final frame first, then the pieces nobody has seen
        self.call_after_refresh(self._start_settling)

    async def _stop_stream(self, stream: MarkdownStream | None) -> None:
        """Stop ``stream`` once everything written to it is applied to the live markdown
        (its source and its widgets), so sealing or updating the live text next loses
        nothing and parses from the right line."""
        if stream is None:
            return
        await stream.stop()
        # stop() interrupts an append it shields, which goes on: wait for it (the lock)
        async with self.live.lock:
            pass

    async def _let_keys_echo(
        self, clock: Any = time.monotonic, sleep: Any = asyncio.sleep
    ) -> float:
        """Hold the next write back while a key was just typed (not at the stream's end);
        returns the seconds held."""
        held = 0.0
        while not self._no_more and held < KEY_HOLD:
            quiet = clock() - PromptInput.last_key_at
            if quiet >= KEY_QUIET:
                break
            await sleep(KEY_QUIET - quiet)
            held += KEY_QUIET - quiet
        return held

    async def _live_settled(self) -> None:
        """Wait for the live markdown's last update (before writing to it again)."""
        if self._live_pending is not None:
            pending, self._live_pending = self._live_pending, None
            await pending

    def _start_settling(self) -> None:
        self.run_worker(self._settle(), group="markdown-settle", exit_on_error=False)

    async def _settle(self) -> None:
        """Render the pieces not painted yet, newest first, one at a time (keys are read in
        between), so heights become exact and scrolling back never waits."""
        while self.sealed is not None and self.sealed.materialize_next():
            await asyncio.sleep(0.005)
        self.settled = True

    async def _seal(self, fragment: str, *, everything: bool = False) -> None:
        """Seal the finished blocks of the live text plus ``fragment`` into a FrozenMarkdown
        (when text arrives faster than it renders, most of it never becomes live widgets);
        the last block stays live unless ``everything`` (the answer is complete)."""
        source = self.live.source + fragment  # the source is set before an update is done
        if everything and len(source) <= SEAL_CHARS and self.sealed is None:  # a short answer
            await self._live_settled()
            await self.live.update(source)
            return
        cut = len(source) if everything else seal_point(source)
        if cut == 0:  # one huge block (a long code fence): try again once it has grown
            self._seal_at = len(source) + SEAL_CHARS
            await self._live_settled()
            self._live_pending = self.live.append(fragment)
            return
        self._seal_at = SEAL_CHARS
        pieces = split_for_view(source[:cut])
        if self.sealed is None:
            self.sealed = FrozenMarkdown(*pieces, lazy=True)
            await self.mount(self.sealed, before=self.live)
        else:  # no widget per piece: one widget grows
            self.sealed.add(*pieces)
        if cut == len(source):  # nothing stays live: hide it (clearing it waits a frame)
            self.live.display = False
        else:  # not awaited: it takes a frame or two, in which the next text can arrive
            await self._live_settled()
            self._live_pending = self.live.update(source[cut:])

    async def freeze(self) -> None:
        """A finished answer becomes one FrozenMarkdown widget (old answers, long sessions)."""
        if not self.finished or self.has_class("frozen"):
            return
        self.add_class("frozen")
        await self.remove_children()
        self.sealed = FrozenMarkdown(*split_blocks(self.shown_text), lazy=True)
        await self.mount(self.sealed)
        self._start_settling()
