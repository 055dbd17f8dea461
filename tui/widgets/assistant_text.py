"""The model's answer as streaming markdown (Textual's MarkdownStream).

Deltas arrive synchronously from the engine, often hundreds a second. They are buffered here
and handed to the MarkdownStream by a worker whenever it gets to run, and the stream itself
merges fragments when rendering falls behind, so the document is never parsed whole per chunk.
"""

from __future__ import annotations

import asyncio

from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownStream


class AssistantText(Markdown):
    """A block of assistant markdown that grows as deltas arrive, then is finished."""

    def __init__(self, text: str = "") -> None:
        super().__init__()
        self._unsent: list[str] = [text] if text else []
        self._parts: list[str] = [text] if text else []
        self._stream: MarkdownStream | None = None
        self._wake = asyncio.Event()
        self._no_more = False
        self.finished = False
        """True once every delta has been rendered and the stream stopped."""
        self.interrupted = False
        self.received = len(text)
        """Characters received so far (for the status line's token estimate)."""

    @property
    def text(self) -> str:
        """Everything received, rendered or still pending."""
        if len(self._parts) > 1:
            self._parts[:] = ["".join(self._parts)]
        return self._parts[0] if self._parts else ""

    def on_mount(self) -> None:
        self._stream = Markdown.get_stream(self)
        # The stream is fed from a worker: awaiting it inside this widget's own message
        # handler would wait on mounts that need this very message loop.
        self.run_worker(self._pump(), group="markdown-stream", exit_on_error=False)

    def add(self, delta: str) -> None:
        """Append a fragment of markdown (called from the engine's emit, same thread)."""
        if self._no_more or not delta:
            return
        self._unsent.append(delta)
        self._parts.append(delta)
        self.received += len(delta)
        self._wake.set()

    def finish(self, *, interrupted: bool = False) -> None:
        """No more deltas: render what is pending and stop the stream."""
        if interrupted:
            self.interrupted = True
            self.add_class("interrupted")
        self._no_more = True
        self._wake.set()

    async def _pump(self) -> None:
        stream = self._stream
        assert stream is not None
        try:
            while True:
                await self._wake.wait()
                self._wake.clear()
                if self._unsent:
                    fragment = "".join(self._unsent)
                    self._unsent.clear()
                    await stream.write(fragment)
                if self._no_more and not self._unsent:
                    break
        finally:
            await stream.stop()
            self.finished = True
