"""The model's answer: markdown that grows as deltas arrive, as ONE widget (a FrozenMarkdown).

Deltas arrive synchronously from the engine, often hundreds a second. They are buffered here
and written by a worker at most ``1 / WRITE_INTERVAL`` times a second, and while text floods in
faster than anyone reads, at most ``1 / FAST_INTERVAL``. The first words wait a write
interval too, so a full-speed answer is a flood from its start: it shows once, as soon as the
stream ends, without a layout of its first line for the stream to wait behind. A write seals the
finished blocks of the text (up to the last blank line outside a code fence) into pieces of
the widget, rendered once, and shows the block being written as its tail, rendered again at
each write (it is small). Nothing is mounted while an answer streams: Textual's Markdown
made a widget per block, and each one's mount, CSS and layout cost more than the text it
showed (a key's echo waited behind them).

Pieces are lazy: far up in a long answer streamed at full speed, their markdown is rendered
when first painted (Textual paints only what is on screen), and the rest one piece at a time
once the answer is complete and its final frame painted (``settled``). The pieces that fill
the screen at a write's end are rendered with the write, so the layout that follows sees their
real heights (the paint would render them and lay the screen out again, a frame later).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from bisect import bisect_left
from typing import Any

from frontend.partial_markdown import close_partial
from frontend.sanitize import sanitize
from tui.widgets.conversation.frozen_markdown import FrozenMarkdown
from tui.widgets.conversation.markdown_content import FENCES, estimate_height
from tui.widgets.laid_out import LaidOut
from tui.widgets.prompt.prompt_input import PromptInput

WRITE_INTERVAL = 1 / 20
"""Seconds between two writes of the answer."""
FAST_INTERVAL = 1 / 4
"""... when text floods in faster than anyone reads (more than ``FAST_CHARS`` waiting at a
write): the write waits until this long after the last one (the stream's end cuts the wait
short). Each write of a flood shows a screenful of new markdown, whose rendering (parse,
wrap, highlight) is the frame's whole cost and competes with the stream it shows: at full
speed a 20,000-token answer arrives in a fraction of a second, and showing it 4 times a
second instead of 10 leaves the stream (and the keyboard) most of the CPU."""
FAST_CHARS = 2000
KEY_QUIET = 0.04
"""After a key, the answer waits this long before its next write (at most
``KEY_HOLD`` in all while the user keeps typing): the key's echo gets a frame of its own
instead of sharing one with a layout of the growing answer."""
KEY_HOLD = 0.2
PIECE_CHARS = 4000
"""Sealed text is cut into pieces of about this size: a piece's markdown is rendered whole
the first time any of it is painted."""
VIEW_CHARS = 3000
"""About a screenful: sealed text that ends on screen has its last ``VIEW_CHARS`` cut into
pieces of about ``VIEW_PIECE_CHARS``, so painting the bottom renders little more than it
shows."""
VIEW_PIECE_CHARS = 300
"""About a block (a paragraph, a short code fence): the pieces that fill the screen are
rendered whole before the final frame, so the smaller they are, the less is rendered that
does not show (a 20,000-token answer's last write rendered 1,500 characters of markdown
in pieces of 1,000, 5 ms; 940 in pieces of 300, 3.4 ms)."""
SETTLE_WAITS = 5
"""Refreshes an answer waits at most for its final layout before settling."""


_GOES_ON = re.compile(r"\s|(?:[-*+]|\d+[.)]?)(?:\s|$)")
"""A line that may belong to the block above it across a blank line: indented (an item's
next paragraph, an indented code block) or a list item (a loose list, possibly still being
typed: ``-``, ``1``). Pieces are rendered alone, so they are never cut there."""
_BLANK = re.compile(r"\n[^\S\n]*\n")
"""A blank line (nothing but white space), with the newlines either side of it."""
_FENCE = re.compile(r"\n[^\S\n]*(?:```|~~~)")
"""A line that opens or closes a code fence, after the newline before it."""


class Cuts:
    """Where a text may be cut into pieces rendered alone: just after a blank line that is
    outside a code fence and not the text's last line, before a line that starts a block
    (see ``_GOES_ON``).

    A 20,000-token answer streamed at full speed is cut as a whole by its last write, just
    before its final frame: the fence lines are found by one regular expression (a fence
    toggles whatever it follows), and only the blank lines near each cut are looked at, not
    every line of the text (0.26 ms instead of 0.74 for 80 KB, the same cuts).
    """

    def __init__(self, text: str) -> None:
        self.text = text
        first = text.split("\n", 1)[0]
        self._fences = [0] if first.lstrip().startswith(FENCES) else []
        """Where each fence line starts, in order."""
        self._fences += [match.start() + 1 for match in _FENCE.finditer(text)]
        self._after_blank_first = 0 if first.strip() or len(first) == len(text) else len(first) + 1
        """Where the line after the first starts, when the first is blank (else 0)."""

    def _cut_after(self, line: int, offset: int) -> bool:
        """Whether a cut may go after the blank line that starts at ``line`` and ends just
        before ``offset``."""
        text = self.text
        if offset >= len(text) or bisect_left(self._fences, line) % 2:
            return False
        end = text.find("\n", offset)
        return _cuttable(text[offset:] if end < 0 else text[offset:end])

    def after(self, at: int) -> int:
        """The first place at or after ``at`` where the text may be cut; -1 if none."""
        text = self.text
        second = self._after_blank_first
        if second >= at and second and self._cut_after(0, second):
            return second
        # from the newline before the line that holds ``at - 1``: a blank line there may end
        # at ``at`` (a cut goes just after the newline that ends a blank line)
        pos = max(text.rfind("\n", 0, max(at - 1, 0)), 0)
        while (match := _BLANK.search(text, pos)) is not None:
            if match.end() >= at and self._cut_after(match.start() + 1, match.end()):
                return match.end()
            pos = match.end() - 1  # the blank line right after it, if any
        return -1

    def last(self) -> int:
        """The last place where the text may be cut, but not after its first line; 0 if
        none (the lines are read from the end, as far as the first place found)."""
        text = self.text
        end = text.rfind("\n")  # the last line never ends a block that is cut off
        while end > 0:
            start = text.rfind("\n", 0, end) + 1
            if start and not text[start:end].strip() and self._cut_after(start, end + 1):
                return end + 1
            end = start - 1
        return 0

    def split(self, size: int, start: int = 0, end: int | None = None) -> list[str]:
        """The text from ``start`` to ``end`` (a cut or the text's end) in pieces of about
        ``size`` characters (longer when one block is)."""
        text = self.text
        end = len(text) if end is None else end
        pieces: list[str] = []
        while 0 <= (cut := self.after(start + max(size, 1))) < end:
            pieces.append(text[start:cut])
            start = cut
        if start < end:
            pieces.append(text[start:end])
        return pieces


def _cuttable(after: str) -> bool:
    """Whether pieces may be cut after a blank line followed by ``after``."""
    return bool(after.strip()) and _GOES_ON.match(after) is None


def seal_point(text: str) -> int:
    """Where ``text`` can be cut into finished blocks + a live tail: the last blank line
    outside a code fence, before the last block; 0 when there is none."""
    return Cuts(text).last()


def split_blocks(text: str, size: int = PIECE_CHARS) -> list[str]:
    """``text`` cut at blank lines outside code fences into pieces of about ``size``
    characters (longer when one block is), so only the pieces on screen are ever painted."""
    return Cuts(text).split(size)


def split_for_view(text: str) -> list[str]:
    """``split_blocks`` for text whose end is on screen: from the first cut in its last
    ``VIEW_CHARS`` on, pieces of about ``VIEW_PIECE_CHARS``; before it, of about
    ``PIECE_CHARS``."""
    cuts = Cuts(text)
    view = cuts.after(len(text) - VIEW_CHARS) if len(text) > VIEW_CHARS else 0
    if view < 0:
        return cuts.split(PIECE_CHARS)
    return cuts.split(PIECE_CHARS, 0, view) + cuts.split(VIEW_PIECE_CHARS, view)


class AssistantText(FrozenMarkdown, LaidOut):
    """A block of assistant markdown that grows as deltas arrive, then is finished."""

    def __init__(self, text: str = "", *, ahead: bool = False) -> None:
        super().__init__(lazy=True, classes="answer")
        if ahead:  # mounted ahead of its text (see ``Conversation``): it takes no line
            self.styles.margin = 0  # until its first write
        self._unsent: list[str] = [text] if text else []
        """Deltas received and not written yet, as they came (sanitized when written)."""
        self._parts: list[str] = []
        """What was written, sanitized."""
        self._live = ""
        """The received text after the last sealed block: the tail shows it."""
        self._wake = asyncio.Event()
        self._ended = asyncio.Event()
        self._no_more = False
        self.finished = False
        """True once every delta has been rendered and the stream stopped."""
        self.settled = False
        """True once every sealed piece is rendered too (not only those painted so far)."""
        self.interrupted = False
        self.received = len(text)
        """Characters received so far (for the status line's token estimate)."""

    @property
    def text(self) -> str:
        """Everything received, rendered or still pending (sanitized)."""
        if len(self._parts) > 1:
            self._parts[:] = ["".join(self._parts)]
        written = self._parts[0] if self._parts else ""
        return written + sanitize("".join(self._unsent)) if self._unsent else written

    @property
    def shown_text(self) -> str:
        """The markdown shown once finished: what was received, with what an interruption
        left open (a code fence, ``**bold``) closed."""
        return close_partial(self.text) if self.interrupted else self.text

    def on_mount(self) -> None:
        self.run_worker(self._pump(), group="markdown-stream", exit_on_error=False)

    def append(self, delta: str) -> None:
        """Append a fragment of markdown (called from the engine's emit, same thread: kept
        as it is, thousands a second; what is written is sanitized, see ``_pump``)."""
        if self._no_more or not delta:
            return
        self._unsent.append(delta)
        self.received += len(delta)
        self._wake.set()

    def finish(self, *, interrupted: bool = False) -> None:
        """No more deltas: render what is pending and stop the stream."""
        if interrupted and not self._no_more:
            self.interrupted = True
            self.add_class("interrupted")
        self._no_more = True
        self._ended.set()
        self._wake.set()

    async def _pump(self) -> None:
        try:
            await self._wake.wait()
            # the first words wait a write interval too: a flood then shows as one from its
            # start
            last = asyncio.get_running_loop().time()
            await self._until_ended(WRITE_INTERVAL)
            while True:
                await self._wake.wait()
                self._wake.clear()
                await self._let_keys_echo()
                await self._let_flood_gather(last)
                # an escape sequence in the model's text must not reach the terminal (one
                # cut between two writes leaves only harmless printable characters)
                fragment = sanitize("".join(self._unsent))
                self._unsent.clear()
                self._parts.append(fragment)
                last = asyncio.get_running_loop().time()
                self._write(fragment)
                if self._no_more and not self._unsent:
                    break
                # at most ~20 writes a second: a fast stream is merged into bigger pieces;
                # the end of the stream cuts the wait short
                await self._until_ended(WRITE_INTERVAL)
        finally:
            self.finished = True
        # the final frame first, then the pieces nobody has seen
        self.call_after_refresh(self._start_settling)

    def _write(self, fragment: str) -> None:
        """Show ``fragment`` after what is shown: the finished blocks of the live text are
        sealed into pieces (rendered once; those far up only if they are ever painted), the
        block being written stays the tail (rendered again at each write: it is small)."""
        if self.styles.inline.has_rule("margin"):  # mounted ahead: the stylesheet's margin
            self.styles.clear_rule("margin")
        live = self._live + fragment
        if self._no_more and self.interrupted:
            live = close_partial(live)  # the live text starts a block, outside any fence
        cut = len(live) if self._no_more else seal_point(live)
        if cut:
            # the pieces that end on screen (the answer's last screenful) are rendered now:
            # the paint would render them anyway, after a layout with their estimated
            # heights, and then lay the screen out again with the real ones; the rest of a
            # fast stream's big chunk is rendered only if it is painted
            pieces = split_for_view(live[:cut])
            self.add(*pieces, render_last=self._on_screen(pieces))
            live = live[cut:]
        self._live = live
        self.set_tail(live)

    def _on_screen(self, pieces: list[str]) -> int:
        """How many of the last ``pieces`` show at the bottom of the screen: a screenful by
        their estimated heights (by characters, ``VIEW_CHARS``, before any layout)."""
        width, rows = self.size.width, self.app.size.height
        count, filled = 0, 0
        for piece in reversed(pieces):
            if filled >= (rows if width else VIEW_CHARS):
                break
            count += 1
            filled += estimate_height(piece, width) if width else len(piece)
        return count

    async def _until_ended(self, seconds: float) -> None:
        """Wait ``seconds``, or less if the stream ends meanwhile."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._ended.wait(), seconds)

    async def _let_flood_gather(self, last: float) -> None:
        """While text floods in (more than ``FAST_CHARS`` waiting), hold the next write
        until ``FAST_INTERVAL`` after the last one (``last``, loop time), or the end."""
        if self._no_more or sum(map(len, self._unsent)) <= FAST_CHARS:
            return
        rest = last + FAST_INTERVAL - asyncio.get_running_loop().time()
        if rest > 0:
            await self._until_ended(rest)

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

    def _start_settling(self, tries: int = SETTLE_WAITS) -> None:
        """Settle once the final frame is painted: the layout this widget asked for after
        its last write reaches the screen as a message, so the first refresh after the
        write may come before it; settling then (a piece rendered every few ms) held that
        frame back by tens of ms. A few refreshes at most (a height that never matches,
        e.g. under a max-height rule, must not put settling off for ever)."""
        if tries and self.is_attached and not self.laid_out:
            self.call_after_refresh(self._start_settling, tries - 1)
            return
        self.run_worker(self._settle(), group="markdown-settle", exit_on_error=False)

    async def _settle(self) -> None:
        """Render the pieces not painted yet, newest first, one at a time (keys are read in
        between), so heights become exact and scrolling back never waits."""
        while self.materialize_next():
            await asyncio.sleep(0.005)
        self.settled = True
