"""Replay a transcript and repair what a crash left behind (the format: agent/store/format.py).

A transcript can stop anywhere: eddy may be killed while a tool runs or while it writes a line.
``load`` replays the records into a ``LoadedSession``: it skips a torn last line and unreadable
lines, puts queued messages that were never sent back in the queue, and has
:func:`agent.store.repair.repair_history` make the history valid for a next prompt.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from agent.messages import Message, TextBlock, ToolResultBlock, block_from_param
from agent.store.format import decode_line
from agent.store.repair import repair_history
from tools.textfile import plural

VERSION = 1
SUFFIX = ".jsonl"


class TranscriptError(Exception):
    """A transcript that cannot be used (a newer format, or a bad session id)."""


CONTEXT_KEYS = (
    "input_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
    "output_tokens",
)
"""What one call puts in the context: the whole prompt (uncached, written to and read from
the cache) plus the response, which the next request carries."""


def context_of(usage: Any) -> int | None:
    """The context tokens after the call a ``usage`` record describes (None if unreadable)."""
    if not isinstance(usage, dict) or not any(key in usage for key in CONTEXT_KEYS):
        return None
    values = [usage.get(key, 0) for key in CONTEXT_KEYS]
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return None
    return sum(values)


def parse_timestamp(text: str) -> float | None:
    try:
        return datetime.fromisoformat(text).timestamp()
    except (TypeError, ValueError):
        return None


@dataclass
class LoadedSession:
    """A transcript replayed and repaired: everything needed to resume the session.

    Attributes:
        path: the file.
        session_id: from the header (or the file name if the header is unreadable).
        header: the header record ({} if unreadable).
        history: the repaired conversation: valid once a prompt is added.
        queue: queued messages that were never sent.
        model: the last model set (settings record, else the header's).
        permission_mode: the last mode set; never ``bypassPermissions`` (not restored).
        total_cost_usd: the sum of the usage records' costs (all branches).
        usage: token counts summed over the usage records.
        todos: the last todo list.
        title: the last title given, or None.
        turns: the prompts in the current branch, plus those summarised by compactions.
        first_prompt: the first prompt in the file.
        prompts: (message index, prompt) for each prompt in ``history``, in order: the
            places a rewind can go back to.
        last_activity: the time of the last record (epoch seconds).
        rewinds: the number of rewinds (branches) in the file.
        checkpoints: the checkpoint records, in file order.
        problems: the repairs made, in words.
        context_tokens: the context after the last model call (its input, cache writes,
            cache reads and output tokens), or None if no call was recorded since the last
            compaction, rewind or repair: then only an estimate from ``history`` is right.
    """

    path: Path
    session_id: str
    header: dict[str, Any]
    history: list[Message]
    queue: list[str] = field(default_factory=list)
    model: str | None = None
    permission_mode: str | None = None
    total_cost_usd: float = 0.0
    usage: dict[str, int] = field(default_factory=dict)
    todos: list[dict[str, Any]] = field(default_factory=list)
    title: str | None = None
    turns: int = 0
    first_prompt: str | None = None
    prompts: list[tuple[int, str]] = field(default_factory=list)
    last_activity: float | None = None
    rewinds: int = 0
    checkpoints: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    context_tokens: int | None = None
    _replayed: list[Message | None] = field(default_factory=list, repr=False)
    _bad_lines: list[int] = field(default_factory=list, repr=False)
    _ends_with_newline: bool = field(default=True, repr=False)
    _size: int = field(default=0, repr=False)


class _Replay:
    """Applies records in file order (see the format at the top of this module)."""

    def __init__(self, lines: int) -> None:
        self.max_index = lines  # each message has its own line: a larger index is damage
        self.slots: list[Message | None] = []  # None: a message whose line was lost
        self.prompts: list[tuple[int, str]] = []  # (message index, prompt) in this branch
        self.compacted_turns = 0
        self.queue: list[str] = []
        self.results: dict[str, ToolResultBlock] = {}  # each call's result, as it finished
        self.s = LoadedSession(Path(), "", {}, [])
        self.last_ts: str | None = None
        self.bad: list[int] = []  # the numbers of the lines that could not be applied
        self.acknowledged: set[int] = set()  # the lines a repair record accounts for

    def truncate(self, n: int) -> None:
        del self.slots[max(0, n) :]
        # prompts are in index order (each message record first truncates past its index),
        # so the ones to drop are at the end: every message record calls this
        while self.prompts and self.prompts[-1][0] >= n:
            self.prompts.pop()

    def deliver(self, texts: Any) -> None:
        for text in texts or ():
            if text in self.queue:
                self.queue.remove(text)

    def line(self, number: int, line: bytes | dict[str, Any], path: Path) -> None:
        """Apply the line numbered ``number`` (or the whole record of a torn last line); one
        that cannot be applied goes into ``bad``.

        Raises:
            TranscriptError: a header of a newer format version.
        """
        if isinstance(line, bytes) and not line.strip():
            return
        try:
            rec, encoded = decode_line(line) if isinstance(line, bytes) else (line, None)
            if not isinstance(rec, dict) or not isinstance(rec.get("type"), str):
                raise ValueError("not a record")
            if rec["type"] == "header":
                self._header(rec, path)
                return
            self.apply(rec, encoded)
            if isinstance(rec.get("ts"), str):
                self.last_ts = rec["ts"]
            if rec["type"] == "repair":
                self.acknowledged.update(n for n in rec.get("lines") or () if isinstance(n, int))
        except TranscriptError:
            raise
        except (ValueError, KeyError, TypeError, AttributeError):
            self.bad.append(number)

    def _header(self, rec: dict[str, Any], path: Path) -> None:
        if self.s.header:
            return  # the header is the first line; or, if that was torn, one written later
        if int(rec.get("version", VERSION)) > VERSION:
            raise TranscriptError(
                f"{path} has format version {rec['version']}; "
                f"this eddy reads version {VERSION}: upgrade eddy"
            )
        self.s.header = rec

    def apply(self, rec: dict[str, Any], encoded: bytes | None = None) -> None:
        """Apply one record; ``encoded``: a message record's message as its line holds it."""
        if rec["type"] == "message":
            self._message(rec, encoded)
            return
        handler = _RECORDS.get(rec["type"])
        if handler is not None:
            handler(self, rec)

    def _message(self, rec: dict[str, Any], encoded: bytes | None) -> None:
        index = rec["index"]
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < self.max_index:
            raise ValueError("bad index")
        # kept with its JSON from the line: its first request does not encode it again
        message = Message.from_param(rec["message"], encoded)
        if message.role not in ("user", "assistant"):
            raise ValueError("bad role")
        prompts = rec.get("prompts") or []
        if not isinstance(prompts, list) or not all(isinstance(p, str) for p in prompts):
            raise ValueError("bad prompts")
        replaces_last = index == len(self.slots) - 1  # keeps the prompts it carried
        self.truncate(index + 1 if replaces_last else index)
        del self.slots[index:]
        self.slots.extend([None] * (index - len(self.slots)))
        self.slots.append(message)
        self.prompts.extend((index, p) for p in prompts)
        if prompts and self.s.first_prompt is None:
            self.s.first_prompt = prompts[0]
        self.deliver(rec.get("delivered"))

    def salvaged(self, index: int, prompts: list[str]) -> None:
        """Apply the prompts of a torn message record (see :func:`salvage_prompts`): they
        came before the torn part."""
        if not 0 <= index <= len(self.slots):
            return
        previous = self.slots[index] if index == len(self.slots) - 1 else None
        blocks = [TextBlock(p) for p in prompts]
        message = previous.with_blocks(*blocks) if previous else Message("user", tuple(blocks))
        record = {"type": "message", "index": index, "prompts": prompts}
        self.apply({**record, "message": message.to_param()})

    def _result(self, rec: dict[str, Any]) -> None:
        block = block_from_param(rec["result"])
        if not isinstance(block, ToolResultBlock):
            raise ValueError("not a tool result")
        self.results[block.tool_use_id] = block

    def _queued(self, rec: dict[str, Any]) -> None:
        self.queue.append(str(rec["text"]))

    def _unqueued(self, rec: dict[str, Any]) -> None:
        text, index = rec.get("text"), rec.get("index")
        if (
            isinstance(index, int)
            and -len(self.queue) <= index < len(self.queue)
            and (text is None or self.queue[index] == text)
        ):
            self.queue.pop(index)
        elif text in self.queue:
            self.queue.remove(text)

    def _delivered(self, rec: dict[str, Any]) -> None:
        self.deliver(rec.get("texts"))

    def _cut(self, rec: dict[str, Any]) -> None:
        """A rewind or a repair: the messages from ``to_index`` on leave the branch."""
        self.truncate(int(rec["to_index"]))
        self.s.context_tokens = None  # the last call saw messages that are gone
        if rec["type"] == "rewind":
            self.s.rewinds += 1

    def _compaction(self, rec: dict[str, Any]) -> None:
        self.compacted_turns += len(self.prompts)
        self.truncate(0)
        self.s.context_tokens = None

    def _usage(self, rec: dict[str, Any]) -> None:
        s = self.s
        s.total_cost_usd += float(rec.get("cost_usd") or 0.0)
        usage = rec.get("usage") or {}
        for key, value in usage.items():
            if isinstance(value, int):
                s.usage[key] = s.usage.get(key, 0) + value
        s.context_tokens = context_of(usage)

    def _todos(self, rec: dict[str, Any]) -> None:
        self.s.todos = list(rec.get("todos") or [])

    def _settings(self, rec: dict[str, Any]) -> None:
        self.s.model = rec.get("model", self.s.model)
        self.s.permission_mode = rec.get("permission_mode", self.s.permission_mode)

    def _rename(self, rec: dict[str, Any]) -> None:
        self.s.title = rec.get("title")

    def _checkpoint(self, rec: dict[str, Any]) -> None:
        self.s.checkpoints.append(rec)

    def damage(self) -> list[str]:
        """What the replay could not read: the header, lines (but those a repair record
        accounts for), the messages lost with them."""
        problems = []
        if not self.s.header:
            problems.append("the header line is unreadable")
        unseen = self.unseen()
        if unseen:
            shown = ", ".join(map(str, unseen[:5])) + (", ..." if len(unseen) > 5 else "")
            problems.append(f"skipped {plural(len(unseen), 'unreadable line')} ({shown})")
        lost = sum(1 for m in self.slots if m is None)
        if lost:
            problems.append(f"lost {plural(lost, 'message')} with the unreadable lines")
        return problems

    def unseen(self) -> list[int]:
        """The unreadable lines no repair record accounts for."""
        return [n for n in self.bad if n not in self.acknowledged]


_RECORDS: dict[str, Callable[[_Replay, dict[str, Any]], None]] = {
    "result": _Replay._result,
    "queued": _Replay._queued,
    "unqueued": _Replay._unqueued,
    "delivered": _Replay._delivered,
    "rewind": _Replay._cut,
    "repair": _Replay._cut,
    "compaction": _Replay._compaction,
    "usage": _Replay._usage,
    "todos": _Replay._todos,
    "settings": _Replay._settings,
    "rename": _Replay._rename,
    "checkpoint": _Replay._checkpoint,
}
"""What each record type (but a message and the header) does to a replay."""


_TORN_MESSAGE = re.compile(rb'\{"type":"message","ts":"[^"]*","index":(\d+),"prompts":')


def salvage_prompts(torn: bytes) -> tuple[int, list[str]] | None:
    """The index and prompts of a ``message`` record torn after its ``prompts`` field.

    A message record is written with its prompts before the message itself, so a crash in
    the middle of writing the record of a long prompt still leaves the prompt readable.
    """
    match = _TORN_MESSAGE.match(torn)
    if match is None:
        return None
    try:
        text = torn.decode("utf-8", "ignore")
        prompts, _ = json.JSONDecoder().raw_decode(text, len(match.group(0).decode()))
    except ValueError:
        return None
    if not prompts or not isinstance(prompts, list):
        return None
    if not all(isinstance(p, str) and p for p in prompts):
        return None
    return int(match.group(1)), prompts


def _read_tail(
    tail: bytes,
) -> tuple[dict[str, Any] | None, tuple[int, list[str]] | None, list[str]]:
    """What a last line without its newline holds: a whole record, or the prompts of a torn
    message record (see :func:`salvage_prompts`), or nothing; and what to tell of it."""
    if not tail:
        return None, None, []
    try:
        rec = json.loads(tail)  # a whole record that only lacks its newline
    except ValueError:
        rec = None
    if isinstance(rec, dict):
        return rec, None, []
    salvaged = salvage_prompts(tail)
    if salvaged is None:
        return None, None, [f"ignored a torn last line ({len(tail)} bytes)"]
    return None, salvaged, ["recovered the prompt of a torn last line"]


def _read_lines(path: Path) -> tuple[list[bytes], bytes, int]:
    """The complete lines of ``path`` (without newlines), the torn tail, and the size."""
    data = path.read_bytes()
    lines = data.split(b"\n")  # not a copy of the complete lines first: megabytes
    tail = lines.pop()  # after the last newline: b"" or a torn line
    return lines, tail, len(data)


def load(path: Path) -> LoadedSession:
    """Replay a transcript and repair what a crash left behind (never modifies the file).

    Raises:
        FileNotFoundError: no such file.
        TranscriptError: the transcript has a newer format version.
    """
    lines, tail, size = _read_lines(path)
    replay = _Replay(len(lines) + 1)
    s = replay.s
    torn_record, salvaged, problems = _read_tail(tail)
    numbered: Iterable[tuple[int, bytes | dict[str, Any]]] = enumerate(lines, 1)
    if torn_record is not None:
        numbered = [*numbered, (len(lines) + 1, torn_record)]
    for number, line in numbered:
        replay.line(number, line, path)
    if salvaged is not None:
        replay.salvaged(*salvaged)
    problems.extend(replay.damage())
    kept = [(i, m) for i, m in enumerate(replay.slots) if m is not None]
    repaired = repair_history([m for _, m in kept], replay.results)
    problems.extend(repaired.problems)
    new_index = {kept[o][0]: j for j, o in enumerate(repaired.origin) if o is not None}
    if replay.queue:
        n = len(replay.queue)
        problems.append(
            f"restored {plural(n, 'queued message')} that {'was' if n == 1 else 'were'} never sent"
        )
    header = s.header
    s.path = path
    s.session_id = str(header.get("session_id") or path.name.removesuffix(SUFFIX))
    s.history = repaired.history
    s.queue = replay.queue
    s.prompts = [(new_index[i], p) for i, p in replay.prompts if i in new_index]
    s.turns = replay.compacted_turns + len(replay.prompts)
    s.model = s.model or header.get("model")
    if s.permission_mode == "bypassPermissions":
        s.permission_mode = None
    s.last_activity = parse_timestamp(replay.last_ts or header.get("created") or "")
    s.problems = problems
    s._replayed = list(replay.slots)
    if salvaged is not None and salvaged[0] < len(s._replayed):
        s._replayed[salvaged[0]] = None  # no line holds it yet: resuming writes it again
    # Lines a repair record must account for; the torn tail becomes a line once terminated.
    s._bad_lines = replay.unseen() + ([len(lines) + 1] if tail and torn_record is None else [])
    s._ends_with_newline = not tail
    s._size = size
    return s
