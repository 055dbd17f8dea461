"""Rewind: the session's checkpoints as a front end lists them, and applying a rewind.

Every prompt is a checkpoint. ``CheckpointEntry.number`` counts the session's prompts from 1
(``--rewind 1`` goes back to the state before the first prompt); redo entries (undoing a
rewind) follow the prompts in the same list.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent.events import RewindFinished
from agent.messages import Message, TextBlock

if TYPE_CHECKING:
    from agent.checkpoints.engine import CheckpointStore


def _checkpoint_error() -> type[Exception]:
    # imported late: the checkpoint engine is not needed to start a session
    from agent.checkpoints.engine import CheckpointError

    return CheckpointError


@dataclass(frozen=True)
class CheckpointEntry:
    """One line of the rewind list.

    Attributes:
        number: what ``ops.Rewind(number)`` takes.
        prompt: the prompt's text (for a redo entry: a description of the rewind it undoes).
        summary: the code changes since that prompt: "3 files +12 -4", "no code changes",
            "2 files not restorable".
        redo: whether this entry undoes an earlier rewind.
    """

    number: int
    prompt: str
    summary: str
    redo: bool = False


@dataclass
class PromptMark:
    """Where a prompt entered the conversation, so the conversation can go back before it.

    Attributes:
        text: the prompt.
        keep: how many messages stay when rewinding to before this prompt.
        tail: the message that then ends the history (the trailing user message as it was
            before the prompt joined it), or None.
        checkpoint_id: the code checkpoint begun with this prompt (None without a store).
    """

    text: str
    keep: int
    tail: Message | None
    checkpoint_id: str | None


@dataclass
class RedoEntry:
    """An applied rewind that can be undone: the code rewind's id and the conversation."""

    label: str
    code_rewind_id: str | None
    conversation: tuple[list[Message], list[PromptMark]] | None


def mark_for(history: list[Message], text: str, checkpoint_id: str | None) -> PromptMark:
    """The mark of a prompt about to be added to ``history``."""
    if history and history[-1].role == "user":
        return PromptMark(text, len(history) - 1, history[-1], checkpoint_id)
    return PromptMark(text, len(history), None, checkpoint_id)


def marks_from_transcript(
    history: list[Message], prompts: list[tuple[int, str]], checkpoints: list[dict[str, Any]]
) -> list[PromptMark]:
    """Rebuild the marks of a resumed session from its transcript's prompts and records."""
    ids = {(c.get("index"), c.get("prompt")): c.get("id") for c in checkpoints}
    marks = []
    for index, text in prompts:
        if index >= len(history):
            continue
        msg = history[index]
        pos = next(
            (i for i, b in enumerate(msg.content) if isinstance(b, TextBlock) and b.text == text),
            0,
        )
        tail = Message(msg.role, msg.content[:pos]) if pos > 0 else None
        marks.append(PromptMark(text, index, tail, ids.get((index, text))))
    return marks


def restored_history(history: list[Message], mark: PromptMark) -> list[Message]:
    """The conversation as it was before ``mark``'s prompt."""
    kept = history[: mark.keep]
    return [*kept, mark.tail] if mark.tail is not None else kept


def describe(result: Any, mode: str, *, undo: bool = False) -> str:
    """One line about a rewind's result (``undo``: of undoing an earlier rewind: "Rewind
    undone: ...", never "Rewound")."""
    parts = []
    if result is not None:
        n = len(result.restored) + len(result.deleted)
        if undo:
            parts.append(f"{n} file{'s' if n != 1 else ''} put back" if n else "no file changes")
        else:
            parts.append(
                f"{n} file{'s' if n != 1 else ''} restored" if n else "no files to restore"
            )
        if result.conflicts and not result.overwritten:
            parts.append(f"{len(result.conflicts)} changed by you since, left alone")
        if result.not_restorable:
            parts.append(f"{len(result.not_restorable)} not restorable")
        if result.errors:
            parts.append(f"{len(result.errors)} failed")
    if mode in ("both", "conversation"):
        parts.append("the conversation is back" if undo else "conversation rewound")
    return ("Rewind undone: " if undo else "Rewound: ") + ", ".join(parts) + "."


class RewindError(Exception):
    """A rewind that cannot be done (unknown number, busy session); the message says why."""


class Rewinder:
    """The session's rewind list and how to apply an entry of it.

    Args:
        store: the code checkpoints (None: conversation-only rewinds).
    """

    def __init__(self, store: CheckpointStore | None) -> None:
        self.store = store
        self.marks: list[PromptMark] = []
        self.redos: list[RedoEntry] = []
        self._told_error: str | None = None

    def new_save_error(self) -> str | None:
        """Why the store's last save failed (disk full?), once: None when saves work or the
        same failure was returned before (a save that works again resets it)."""
        error = self.store.save_error if self.store is not None else None
        told, self._told_error = self._told_error, error
        return error if error != told else None

    def on_prompt(self, history: list[Message], text: str) -> PromptMark:
        """Call before ``text`` joins ``history``: begins its checkpoint, returns its mark."""
        checkpoint_id = None
        if self.store is not None:
            checkpoint_id = f"prompt-{uuid.uuid4().hex[:12]}"
            try:
                self.store.begin(checkpoint_id, text)
            except (OSError, _checkpoint_error()):
                checkpoint_id = None
        mark = mark_for(history, text, checkpoint_id)
        self.marks.append(mark)
        return mark

    def entries(self) -> list[CheckpointEntry]:
        """Prompts of the current branch (1..n), then redo entries."""
        out = []
        for number, mark in enumerate(self.marks, 1):
            summary = "code not tracked"
            if self.store is not None and mark.checkpoint_id is not None:
                try:
                    summary = self.store.summary(mark.checkpoint_id).text
                except _checkpoint_error():
                    summary = "checkpoint pruned: conversation only"
            out.append(CheckpointEntry(number, mark.text, summary))
        base = len(self.marks)
        for k, redo in enumerate(self.redos, 1):
            out.append(CheckpointEntry(base + k, redo.label, "redo", redo=True))
        return out

    def _target(self, number: int) -> PromptMark | RedoEntry:
        if 1 <= number <= len(self.marks):
            return self.marks[number - 1]
        k = number - len(self.marks)
        if 1 <= k <= len(self.redos):
            return self.redos[k - 1]
        raise RewindError(f"There is no checkpoint {number} (1 to {len(self.marks)}).")

    def conflicts(self, number: int) -> list[str]:
        """Files the user changed since eddy last touched them, that a rewind would overwrite."""
        target = self._target(number)
        cid = target.checkpoint_id if isinstance(target, PromptMark) else target.code_rewind_id
        if self.store is None or cid is None:
            return []
        try:
            return [c.path for c in self.store.plan_rewind(cid).conflicts]
        except _checkpoint_error():
            return []

    def apply(
        self, number: int, mode: str, overwrite: bool, history: list[Message]
    ) -> tuple[list[Message] | None, RewindFinished]:
        """Apply entry ``number``; returns the new history (None: unchanged) and the event."""
        target = self._target(number)
        if isinstance(target, RedoEntry):
            return self._redo(target, overwrite)
        result = None
        if mode in ("both", "code"):
            if self.store is None or target.checkpoint_id is None:
                raise RewindError("Code changes of this prompt were not tracked; nothing restored.")
            try:
                result = self.store.rewind(target.checkpoint_id, overwrite_conflicts=overwrite)
            except _checkpoint_error() as exc:
                raise RewindError(f"Cannot restore the code: {exc}") from exc
        new = None
        saved = None
        if mode in ("both", "conversation"):
            saved = (list(history), list(self.marks))
            new = restored_history(history, target)
            self.marks = self.marks[: number - 1]
        label = f"undo the rewind to “{_short(target.text)}”"
        self.redos.append(RedoEntry(label, result.rewind_id if result else None, saved))
        return new, _finished(mode, target.text, result)

    def _redo(
        self, redo: RedoEntry, overwrite: bool
    ) -> tuple[list[Message] | None, RewindFinished]:
        result = None
        if redo.code_rewind_id is not None and self.store is not None:
            try:
                result = self.store.redo(redo.code_rewind_id, overwrite_conflicts=overwrite)
            except _checkpoint_error() as exc:
                raise RewindError(f"Cannot redo: {exc}") from exc
        new = None
        if redo.conversation is not None:
            new, self.marks = list(redo.conversation[0]), list(redo.conversation[1])
        self.redos.remove(redo)
        mode = "both" if result and new is not None else ("code" if result else "conversation")
        return new, _finished(mode, "", result, undo=True)


def _short(text: str, n: int = 40) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= n else line[: n - 1] + "…"


def _finished(mode: str, prompt: str, result: Any, *, undo: bool = False) -> RewindFinished:
    def paths(xs: Any) -> tuple[str, ...]:
        return tuple(str(getattr(x, "path", x)) for x in xs)

    return RewindFinished(
        mode,
        prompt if mode in ("both", "conversation") else "",
        paths(result.restored) if result else (),
        paths(result.deleted) if result else (),
        paths(result.conflicts) if result and not result.overwritten else (),
        tuple(f"{p}: {why}" for p, why in result.not_restorable.items()) if result else (),
        describe(result, mode, undo=undo),
    )
