"""Reading the user's input: a prompt-toolkit prompt on a terminal, plain lines otherwise.

Both readers have the same small interface, used by :class:`plain.app.PlainApp`:
``read(default)`` returns one submitted text or raises EOFError; ``stop()`` ends a pending
read; ``invalidate()`` redraws the prompt and toolbar; ``set_text`` / ``take_text`` edit the
text being typed (both do nothing in line mode).
"""

from __future__ import annotations

import asyncio
import sys
import threading
from pathlib import Path
from typing import Any, Protocol, TextIO

from plain.history import SharedHistory

ESC_WAIT = 0.15
"""Seconds to tell a lone Esc from the start of an escape sequence (prompt-toolkit: 0.5)."""


class Controller(Protocol):
    """What the prompt's keys ask of the app."""

    @property
    def busy(self) -> bool: ...
    @property
    def asking(self) -> bool: ...
    @property
    def has_queue(self) -> bool: ...
    def escape(self) -> None: ...
    def background(self) -> None: ...
    def ctrl_c(self, has_text: bool) -> str: ...
    def take_queued(self) -> str | None: ...
    def message(self) -> str: ...
    def toolbar(self) -> str: ...
    def recording(self) -> bool: ...


class PromptInput:
    """The prompt-toolkit prompt: multi-line, history, completion, toolbar.

    Enter sends; Esc-Enter or Ctrl+J adds a line. While a turn runs, Esc interrupts at once
    (it does not wait for an Esc-Enter), Up on an empty prompt takes the newest queued
    correction back. Ctrl+C: see ``Controller.ctrl_c``; Ctrl+D on an empty prompt exits.

    Args:
        ctl: the app.
        history: the history file (None: in memory).
        completer: the completer (slash commands, @ paths).
        input / output: prompt-toolkit's input and output (tests: a pipe and DummyOutput).
    """

    def __init__(
        self,
        ctl: Controller,
        history: Path | None,
        completer: Any,
        *,
        input: Any = None,  # noqa: A002
        output: Any = None,
    ) -> None:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.styles import Style

        self.ctl = ctl
        self.history = SharedHistory(history, ctl.recording)
        self.session: PromptSession[str] = PromptSession(
            message=self._message,
            multiline=True,
            key_bindings=self._bindings(),
            history=self.history,
            completer=completer,
            complete_while_typing=True,
            complete_in_thread=True,
            reserve_space_for_menu=0,
            bottom_toolbar=self._toolbar,
            prompt_continuation=lambda width, _n, _soft: " " * width,
            style=Style.from_dict(
                {"prompt": "bold", "question": "bold ansiyellow", "bottom-toolbar": "noreverse"}
            ),
            input=input,
            output=output,
        )
        self.session.app.ttimeoutlen = ESC_WAIT
        self.session.app.timeoutlen = 0.5

    def _message(self) -> Any:
        text = self.ctl.message()
        return [("class:question" if self.ctl.asking else "class:prompt", text)]

    def _toolbar(self) -> Any:
        text = self.ctl.toolbar()
        if "\x1b" in text:  # a statusLine script's colours (sanitised: SGR only)
            from prompt_toolkit.formatted_text import ANSI

            return ANSI(text)
        return [("class:bottom-toolbar.text", text)]

    def _bindings(self) -> Any:
        """The prompt's keys, each bound to its step below."""
        from prompt_toolkit.filters import Condition, is_searching
        from prompt_toolkit.key_binding import KeyBindings

        kb = KeyBindings()
        ctl = self.ctl
        editing = ~is_searching
        kb.add("enter", filter=editing)(self._submit)
        kb.add("escape", "enter", filter=editing)(self._newline)
        kb.add("c-j", filter=editing)(self._newline)
        answering = Condition(lambda: ctl.busy or ctl.asking)
        kb.add("escape", eager=True, filter=answering)(self._escape)
        kb.add("c-b", filter=Condition(lambda: ctl.busy))(self._background)
        kb.add("c-c")(self._ctrl_c)
        kb.add("<sigint>")(self._ctrl_c)
        empty_with_queue = Condition(lambda: not self.buffer.text and ctl.has_queue)
        kb.add("up", filter=empty_with_queue & editing)(self._take_queued)
        return kb

    def _submit(self, event: Any) -> None:
        """Enter: take the highlighted completion, else send."""
        buf = event.current_buffer
        state = buf.complete_state
        if state is not None and state.current_completion is not None:
            buf.apply_completion(state.current_completion)
            return
        buf.validate_and_handle()

    def _newline(self, event: Any) -> None:
        event.current_buffer.insert_text("\n")

    def _escape(self, event: Any) -> None:
        self.ctl.escape()

    def _background(self, event: Any) -> None:
        self.ctl.background()

    def _ctrl_c(self, event: Any) -> None:
        buf = event.app.current_buffer
        action = self.ctl.ctrl_c(bool(buf.text))
        if action == "clear":
            buf.reset()
        elif action == "exit":
            event.app.exit(exception=EOFError())

    def _take_queued(self, event: Any) -> None:
        """Up on an empty prompt: the newest queued correction back, to edit."""
        text = self.ctl.take_queued()
        if text:
            self.set_text(text)

    @property
    def buffer(self) -> Any:
        return self.session.default_buffer

    @property
    def running(self) -> bool:
        return bool(self.session.app.is_running)

    async def read(self, default: str = "") -> str:
        """One submitted text (raises EOFError on Ctrl+D or exit)."""
        return await self.session.prompt_async(default=default)

    def stop(self) -> None:
        """End the prompt (the pending ``read`` raises EOFError)."""
        if self.running:
            self.session.app.exit(exception=EOFError())

    def invalidate(self) -> None:
        if self.running:
            self.session.app.invalidate()

    def set_text(self, text: str) -> bool:
        """Replace what is being typed (False when no prompt is on screen)."""
        if not self.running:
            return False
        from prompt_toolkit.document import Document

        self.buffer.document = Document(text, len(text))
        return True

    def take_text(self) -> str:
        """Remove and return what is being typed."""
        if not self.running:
            return ""
        text = self.buffer.text
        if text:
            self.buffer.reset()
        return text


class LineInput:
    """Line mode for pipes and redirected output: one line, one submission; no escape codes.

    stdin is read in a daemon thread, so the engine runs while the reader waits.

    Args:
        stream: where lines come from.
    """

    running = False

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stdin
        self._queue: asyncio.Queue[str | None] | None = None

    def _start(self) -> asyncio.Queue[str | None]:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[str | None] = asyncio.Queue()

        def pump() -> None:
            try:
                for line in iter(self.stream.readline, ""):
                    loop.call_soon_threadsafe(queue.put_nowait, line.rstrip("\r\n"))
            except (OSError, ValueError, RuntimeError):
                pass
            try:
                loop.call_soon_threadsafe(queue.put_nowait, None)
            except RuntimeError:
                pass  # the loop is closed: nobody is waiting any more

        threading.Thread(target=pump, name="eddy-stdin", daemon=True).start()
        return queue

    async def read(self, default: str = "") -> str:
        if self._queue is None:
            self._queue = self._start()
        line = await self._queue.get()
        if line is None:
            self._queue.put_nowait(None)  # every later read sees the end too
            raise EOFError
        return line

    def stop(self) -> None:
        if self._queue is None:
            self._queue = asyncio.Queue()
        self._queue.put_nowait(None)

    def invalidate(self) -> None:
        pass

    def set_text(self, text: str) -> bool:
        return False

    def take_text(self) -> str:
        return ""
