"""Questions asked at the prompt: a permission (y / a / n, then a reason), a rewind choice.

A question takes over the prompt: its text replaces "› ", and the next submitted line is its
answer. Questions wait in line; the first one is asked.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(eq=False)
class Question:
    """One question.

    Attributes:
        message: shown as the prompt (and printed as a line in line mode).
        answer: gets the submitted text; returns True when the question is settled, False to
            ask again (after printing why).
        cancel: called when the user backs out (Esc or Ctrl+C at an idle prompt).
        key: the permission request id, so the engine's events can withdraw the question.
    """

    message: str
    answer: Callable[[str], bool]
    cancel: Callable[[], None] = field(default=lambda: None)
    key: str | None = None


PERMISSION_ANSWERS = {
    "y": "allow",
    "yes": "allow",
    "a": "allow_always",
    "always": "allow_always",
    "n": "deny",
    "no": "deny",
}


def permission_decision(text: str) -> str | None:
    """``allow`` / ``allow_always`` / ``deny`` for a typed answer, None if it is not one."""
    return PERMISSION_ANSWERS.get(text.strip().lower())


REWIND_MODES = {
    # numbered as the TUI's rewind dialog (and Claude Code) order them
    "": "both",
    "1": "both",
    "b": "both",
    "both": "both",
    "3": "code",
    "c": "code",
    "code": "code",
    "2": "conversation",
    "conv": "conversation",
    "conversation": "conversation",
    "chat": "conversation",
}


def rewind_mode(text: str) -> str | None:
    """The rewind mode for a typed answer (Enter: both), None if it is not one."""
    return REWIND_MODES.get(text.strip().lower())


class Questions:
    """The questions waiting for the prompt, first one asked.

    When a question takes over the prompt, the text being typed (a half-written correction)
    is moved aside and put back once no question is left.

    Args:
        input: the prompt reader (``take_text``, ``invalidate``).
        say: prints a line above the prompt.
        put_back: puts text back in the prompt (now, or when the next prompt starts).
        echo: print each question as a line too (line mode has no prompt to show it in).
    """

    def __init__(
        self,
        input: Any,  # noqa: A002
        say: Callable[..., None],
        put_back: Callable[[str], None],
        *,
        echo: bool,
    ) -> None:
        self.input = input
        self.say = say
        self.put_back = put_back
        self.echo = echo
        self.waiting: list[Question] = []
        self.closed = False
        """No answer can come any more (line mode after the end of input): refuse at once."""
        self._draft = ""
        self._answering = False

    def __bool__(self) -> bool:
        return bool(self.waiting)

    @property
    def message(self) -> str | None:
        return self.waiting[0].message if self.waiting else None

    def ask(self, question: Question, *, first: bool = False) -> None:
        """Ask ``question`` (after those already waiting, unless ``first``)."""
        head = self.waiting[0] if self.waiting else None
        self.waiting.insert(0 if first else len(self.waiting), question)
        if self.waiting[0] is not head and not self._answering:
            self._show()

    def answer(self, text: str) -> None:
        """Give ``text`` to the question being asked."""
        head = self.waiting[0]
        self._answering = True  # a follow-up question is shown once, below
        try:
            settled = head.answer(text)
        finally:
            self._answering = False
        if settled and head in self.waiting:
            self.waiting.remove(head)
        self._changed(head)

    def cancel(self) -> None:
        """Back out of every question (a permission question becomes a plain "no")."""
        asked, self.waiting = self.waiting, []
        for question in asked:
            question.cancel()
        self._changed(asked[0] if asked else None)

    def withdraw(self, key: str | None = None) -> None:
        """Drop permission questions the engine settled itself (all, or the one for ``key``)."""
        head = self.waiting[0] if self.waiting else None
        self.waiting = [
            q for q in self.waiting if q.key is None or (key is not None and q.key != key)
        ]
        self._changed(head)

    def clear(self) -> None:
        self.waiting.clear()

    def _show(self) -> None:
        message = self.waiting[0].message.rstrip(" ›")
        if self.closed:
            self.say(message, "bold")
            self.say("(no answer: the input has ended)", "yellow")
            self.cancel()
            return
        if not self._draft:
            self._draft = self.input.take_text()
        if self.echo:
            self.say(message, "bold")
        self.input.invalidate()

    def _changed(self, head: Question | None) -> None:
        if self.waiting and self.waiting[0] is not head:
            self._show()
        elif not self.waiting and self._draft:
            draft, self._draft = self._draft, ""
            self.put_back(draft)
        self.input.invalidate()
