"""Session transcripts: the open file a session appends to, and forks of it.

One append-only JSONL file per session, in ``sessions_dir(cwd)``: the records and what they
mean are in :mod:`agent.store.format`; reading one back (and repairing what a crash left)
is :func:`agent.store.load.load`; listing them is :mod:`agent.store.listing`. eddy only ever appends
whole lines, so a rewind or a repair adds lines and every earlier branch stays readable.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from agent.messages import Message
from agent.store.format import encode, encode_message_record, timestamp
from agent.store.listing import SESSION_ID, sessions_dir
from agent.store.load import SUFFIX, VERSION, LoadedSession, TranscriptError, load


class SessionInUse(TranscriptError):
    """Another eddy process has this session open."""


def new_session_id() -> str:
    return str(uuid.uuid4())


def check_session_id(session_id: str) -> str:
    """Return ``session_id`` if it is usable as a file name; raise TranscriptError otherwise."""
    if not SESSION_ID.fullmatch(session_id):
        raise TranscriptError(f"invalid session id {session_id!r}: use letters, digits, . _ -")
    return session_id


def _same(a: Message | None, b: Message | None) -> bool:
    """Identity first (messages are immutable), then equality."""
    return a is b or a == b


class Transcript:
    """An open transcript, appended to as the session runs. Use ``create`` or ``open``.

    How a session records itself: ``record_history(history, prompt=text)`` right after a
    prompt joins the history; ``record_history(history, delivered=texts)`` right after queued
    corrections (or a queue that became the prompt) are delivered; ``record_history(history)``
    after any other change (an assistant message, tool results, an interruption); ``queued``
    and ``unqueued`` when the user edits the queue; ``usage`` after each response; ``rewind``,
    ``compaction``, ``todos``, ``settings``, ``rename``, ``checkpoint`` as they happen; and
    ``sync`` at the end of each turn. A file lock keeps a second eddy out of the session.

    Attributes:
        path: the file.
        session_id: the session's id (the file name without ``.jsonl``).
        loaded: what ``open`` resumed (None for a new transcript).
    """

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self.session_id = path.name.removesuffix(SUFFIX)
        self._fd: int | None = fd
        self._recorded: list[Message] = []  # what the file replays to
        self._torn = False
        self.loaded: LoadedSession | None = None
        try:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except ImportError:  # pragma: no cover - not POSIX
            pass
        except OSError as exc:
            os.close(fd)
            self._fd = None
            raise SessionInUse(f"session {self.session_id} is open in another eddy") from exc

    # -- opening ---------------------------------------------------------------------------
    @classmethod
    def create(
        cls,
        cwd: Path,
        *,
        model: str,
        session_id: str | None = None,
        directory: Path | None = None,
        forked_from: dict[str, Any] | None = None,
    ) -> Transcript:
        """Start a new transcript for the project at ``cwd`` and write its header.

        Args:
            cwd: the project directory (recorded, and it picks the sessions directory).
            model: the model id at the start.
            session_id: the id to use (default: a new uuid4).
            directory: where to put the file (default: ``sessions_dir(cwd)``).
            forked_from: recorded in the header of a fork.

        Raises:
            FileExistsError: a transcript with this id exists.
            TranscriptError: the id is not usable as a file name.
        """
        session_id = check_session_id(new_session_id() if session_id is None else session_id)
        folder = directory or sessions_dir(cwd)
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        path = folder / f"{session_id}{SUFFIX}"
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL, 0o600)
        transcript = cls(path, fd)
        header: dict[str, Any] = {
            "type": "header",
            "version": VERSION,
            "session_id": session_id,
            "cwd": str(cwd),
            "model": model,
            "created": timestamp(),
        }
        if forked_from:
            header["forked_from"] = forked_from
        transcript.append(header)
        return transcript

    @classmethod
    def open(cls, path: Path, loaded: LoadedSession | None = None) -> Transcript:
        """Open an existing transcript to append to it (resume).

        If loading it repaired anything, a ``repair`` record and the repaired messages are
        written first, so the file replays to exactly ``transcript.loaded.history`` from now
        on. The session must continue from ``transcript.loaded`` (the same Message objects in
        its history, its queue, cost, todos, ...).

        Args:
            path: the transcript.
            loaded: ``load(path)`` if the caller already has it (it is loaded again if the
                file changed since).

        Raises:
            SessionInUse: another eddy has it open.
            TranscriptError: the format is newer than this eddy.
        """
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        transcript = cls(path, fd)  # locked before reading, so nothing changes under us
        try:
            if loaded is None or loaded._size != os.fstat(fd).st_size:
                loaded = load(path)
        except BaseException:
            transcript.close()
            raise
        transcript.loaded = loaded
        transcript._torn = not loaded._ends_with_newline
        if not loaded.header:  # the first line was torn: a header written now stands in for it
            header = {"type": "header", "version": VERSION, "session_id": loaded.session_id}
            header |= {"cwd": None, "model": loaded.model, "created": timestamp()}
            transcript.append(header)
        replayed, repaired = loaded._replayed, loaded.history
        k = 0
        while k < min(len(replayed), len(repaired)) and _same(replayed[k], repaired[k]):
            k += 1
        if k < max(len(replayed), len(repaired)) or loaded._bad_lines:
            transcript.append(
                {
                    "type": "repair",
                    "to_index": k,
                    "problems": loaded.problems,
                    "lines": loaded._bad_lines,
                }
            )
        transcript._write_from(k, repaired, loaded.prompts)
        return transcript

    # -- writing ---------------------------------------------------------------------------
    def append(self, record: dict[str, Any]) -> None:
        """Write one record as one whole line (a single write) on the open file.

        Raises:
            OSError: the write failed (the next append starts on a fresh line).
        """
        self._write_line(encode(record))

    def _append_message(
        self,
        index: int,
        message: Message,
        prompts: Sequence[str] = (),
        delivered: Sequence[str] = (),
    ) -> None:
        """Write a ``message`` record (its message's JSON is the one requests reuse)."""
        line = encode_message_record(index, message, prompts=prompts, delivered=delivered)
        self._write_line(line)

    def _write_line(self, data: bytes) -> None:
        if self._fd is None:
            raise ValueError("the transcript is closed")
        if self._torn:
            data = b"\n" + data
        self._torn = True  # until the whole line is down
        view = memoryview(data)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]
        self._torn = False

    def record_history(
        self,
        history: Sequence[Message],
        *,
        prompt: str | None = None,
        delivered: Sequence[str] = (),
    ) -> int:
        """Write what changed in ``history`` since the last call; call it after any change.

        New messages are appended; a last user message replaced by a longer one (a prompt or
        an interruption note joined it) is written again with its index; any other change
        first gets a ``rewind`` record.

        Args:
            history: the session's history.
            prompt: the prompt that this change added: it marks the last message written,
                so record right after the prompt joins the history.
            delivered: queued messages that this change delivered.

        Returns:
            The number of message records written.
        """
        rec = self._recorded
        if len(rec) <= len(history) and rec == history[: len(rec)]:
            k = len(rec)  # the usual case, compared in C (identity first)
        else:
            k = 0
            while k < min(len(rec), len(history)) and _same(rec[k], history[k]):
                k += 1
        if k < len(rec):
            old = rec[k]
            new = history[k] if k < len(history) else None
            extends_last = (
                k == len(rec) - 1
                and new is not None
                and new.role == old.role
                and new.content[: len(old.content)] == old.content
            )
            if not extends_last:
                self.append({"type": "rewind", "to_index": k})
        del rec[k:]
        for i in range(k, len(history)):
            last = i == len(history) - 1
            self._append_message(
                i,
                history[i],
                prompts=[prompt] if last and prompt is not None else (),
                delivered=delivered if last else (),
            )
            rec.append(history[i])
        written = len(history) - k
        if not written:
            if prompt is not None:
                raise ValueError("a prompt was given but the history did not change")
            if delivered:
                self.append({"type": "delivered", "texts": list(delivered)})
        return written

    def _write_from(
        self, start: int, history: Sequence[Message], prompts: Sequence[tuple[int, str]]
    ) -> None:
        """Write messages ``start``.. of ``history`` with their prompts (resume and fork)."""
        for i in range(start, len(history)):
            carried = [text for index, text in prompts if index == i]
            self._append_message(i, history[i], prompts=carried)
        self._recorded = list(history)

    def rewind(self, to_index: int, **details: Any) -> None:
        """Record that the conversation now keeps only its first ``to_index`` messages."""
        self.append({**details, "type": "rewind", "to_index": to_index})
        del self._recorded[to_index:]

    def compaction(self, history: Sequence[Message], summary: str, **details: Any) -> None:
        """Record a compaction: ``history`` (the compacted conversation) replaces the old one."""
        self.append({**details, "type": "compaction", "summary": summary})
        self._recorded = []
        self.record_history(history)

    def queued(self, text: str) -> None:
        self.append({"type": "queued", "text": text})

    def unqueued(self, index: int, text: str) -> None:
        self.append({"type": "unqueued", "index": index, "text": text})

    def interrupt(self) -> None:
        self.append({"type": "interrupt"})

    def usage(self, usage: dict[str, int], cost_usd: float, **details: Any) -> None:
        self.append({**details, "type": "usage", "usage": usage, "cost_usd": cost_usd})

    def todos(self, todos: Iterable[dict[str, Any]]) -> None:
        self.append({"type": "todos", "todos": list(todos)})

    def settings(self, *, model: str | None = None, permission_mode: str | None = None) -> None:
        record: dict[str, Any] = {"type": "settings"}
        if model is not None:
            record["model"] = model
        if permission_mode is not None:
            record["permission_mode"] = permission_mode
        self.append(record)

    def rename(self, title: str) -> None:
        self.append({"type": "rename", "title": title})

    def checkpoint(self, index: int, **details: Any) -> None:
        self.append({**details, "type": "checkpoint", "index": index})

    def sync(self) -> None:
        """Make everything written so far durable (fsync); call it at the end of each turn."""
        if self._fd is not None:
            os.fsync(self._fd)

    def close(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            try:
                os.fsync(fd)
            finally:
                _unlock(fd)
                os.close(fd)

    def __enter__(self) -> Transcript:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _unlock(fd: int) -> None:
    """Release the session's lock before closing: a process forked meanwhile (a git or shell
    started by another thread, before its exec closes the descriptor) shares the open file,
    and would otherwise hold the lock until then."""
    try:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_UN)
    except (ImportError, OSError):  # pragma: no cover - not POSIX
        pass


def fork(path: Path, new_id: str | None = None) -> Path:
    """Copy a session's (repaired) conversation into a new session; the original is untouched.

    The fork keeps the prompts, queue, todos, settings and checkpoints of the current branch;
    its cost starts at zero (the spending stays with the original). Its header names the
    original in ``forked_from``.

    Returns:
        The new transcript's path (in the same directory).
    """
    src = load(path)
    cwd = Path(str(src.header.get("cwd") or "."))
    forked_from = {"session_id": src.session_id, "messages": len(src.history)}
    with Transcript.create(
        cwd,
        model=src.model or "",
        session_id=new_id,
        directory=path.parent,
        forked_from=forked_from,
    ) as t:
        if src.permission_mode:
            t.settings(permission_mode=src.permission_mode)
        t._write_from(0, src.history, src.prompts)
        for text in src.queue:
            t.queued(text)
        if src.todos:
            t.todos(src.todos)
        for checkpoint in src.checkpoints:
            t.append(checkpoint)
        return t.path
