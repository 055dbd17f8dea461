"""Replay a transcript and repair what a crash left behind (the format is in agent/store.py).

A transcript can stop anywhere: eddy may be killed while a tool runs or while it writes a line.
``load`` replays the records into a ``LoadedSession``. ``repair_history`` makes the history
pass ``check_invariant`` as soon as a prompt is added (it may end with an assistant message,
or be empty) and says in words what it changed; repairing a repaired history changes nothing.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from agent.messages import (
    Block,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    message_from_param,
)

VERSION = 1
SUFFIX = ".jsonl"

INTERRUPTED_RESULT = (
    "eddy stopped before the result of this tool call was saved (the session was "
    "interrupted). The call may or may not have run: check its effects before relying on them."
)
LOST_START = "[The start of this conversation could not be read from the transcript.]"


class TranscriptError(Exception):
    """A transcript that cannot be used (a newer format, or a bad session id)."""


@dataclass
class Repaired:
    """The result of ``repair_history``.

    Attributes:
        history: the repaired messages.
        problems: what was changed, in words (empty when nothing was).
        origin: for each repaired message, the index of the input message it came from, or
            None for a message the repair inserted.
    """

    history: list[Message]
    problems: list[str]
    origin: list[int | None]


def interrupted_result(use: ToolUseBlock) -> ToolResultBlock:
    """The is_error result given to a tool call whose result was never recorded."""
    return ToolResultBlock(use.id, INTERRUPTED_RESULT, is_error=True)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _describe(counts: Counter[str]) -> list[str]:
    words = {
        "interrupted": lambda n: f"added interrupted results for {_plural(n, 'tool call')}",
        "orphan": lambda n: f"dropped {_plural(n, 'tool result')} that answered no tool call",
        "empty": lambda n: f"dropped {_plural(n, 'empty message')}",
        "empty_text": lambda n: f"dropped {_plural(n, 'empty text block')}",
        "duplicate": lambda n: f"dropped {_plural(n, 'repeated tool call')}",
        "lost_start": lambda n: "the first message was lost: added a note in its place",
    }
    return [describe(counts[key]) for key, describe in words.items() if counts[key]]


def repair_history(history: Sequence[Message]) -> Repaired:
    """Make ``history`` valid up to a next prompt.

    Rules, applied in one pass: empty text blocks, empty messages and a repeated tool_use id
    in one message are dropped; a tool_result that does not answer the tool calls of the
    message just before is dropped; results are put first, in tool_use order; a tool call
    without a result gets an is_error result saying the session was interrupted (in the
    following user message, or in a new one); a history that starts with an assistant message
    gets a user note first.

    Args:
        history: the replayed messages.

    Returns:
        The repaired history, the problems in words, and where each message came from.
    """
    out: list[Message] = []
    origin: list[int | None] = []
    counts: Counter[str] = Counter()

    def close_calls() -> None:
        """Answer the tool calls of a trailing assistant message that no user message follows."""
        uses = out[-1].tool_uses if out and out[-1].role == "assistant" else []
        if uses:
            out.append(Message("user", tuple(interrupted_result(u) for u in uses)))
            origin.append(None)
            counts["interrupted"] += len(uses)

    for index, msg in enumerate(history):
        blocks: list[Block] = []
        for b in msg.content:
            if isinstance(b, TextBlock) and not b.text:
                counts["empty_text"] += 1
            else:
                blocks.append(b)
        if msg.role == "assistant":
            kept: list[Block] = []
            seen: set[str] = set()
            for b in blocks:
                if isinstance(b, ToolResultBlock):
                    counts["orphan"] += 1
                elif isinstance(b, ToolUseBlock) and b.id in seen:
                    counts["duplicate"] += 1  # the API refuses a repeated tool_use id
                else:
                    seen.update([b.id] if isinstance(b, ToolUseBlock) else [])
                    kept.append(b)
            if not kept:
                counts["empty"] += 1
                continue
            if not out:
                out.append(Message("user", (TextBlock(LOST_START),)))
                origin.append(None)
                counts["lost_start"] += 1
            close_calls()
            content: tuple[Block, ...] = tuple(kept)
        else:
            expected = out[-1].tool_uses if out and out[-1].role == "assistant" else []
            wanted = {u.id for u in expected}
            answers: dict[str, ToolResultBlock] = {}
            rest: list[Block] = []
            for b in blocks:
                if not isinstance(b, ToolResultBlock):
                    rest.append(b)
                elif b.tool_use_id in wanted and b.tool_use_id not in answers:
                    answers[b.tool_use_id] = b
                else:
                    counts["orphan"] += 1
            head: list[Block] = []
            for use in expected:
                answer = answers.get(use.id)
                if answer is None:
                    answer = interrupted_result(use)
                    counts["interrupted"] += 1
                head.append(answer)
            content = (*head, *rest)
            if not content:
                counts["empty"] += 1
                continue
        same = len(content) == len(msg.content) and all(
            a is b for a, b in zip(content, msg.content, strict=True)
        )
        out.append(msg if same else Message(msg.role, content))
        origin.append(index)
    close_calls()
    return Repaired(out, _describe(counts), origin)


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
        compactions: the number of compactions.
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
    compactions: int = 0
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
        self.s = LoadedSession(Path(), "", {}, [])
        self.last_ts: str | None = None

    def truncate(self, n: int) -> None:
        del self.slots[max(0, n) :]
        self.prompts = [(i, p) for i, p in self.prompts if i < n]

    def deliver(self, texts: Any) -> None:
        for text in texts or ():
            if text in self.queue:
                self.queue.remove(text)

    def apply(self, rec: dict[str, Any]) -> None:
        kind = rec["type"]
        s = self.s
        if kind == "message":
            index = rec["index"]
            if (
                not isinstance(index, int)
                or isinstance(index, bool)
                or not 0 <= index < self.max_index
            ):
                raise ValueError("bad index")
            message = message_from_param(rec["message"])
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
            if prompts and s.first_prompt is None:
                s.first_prompt = prompts[0]
            self.deliver(rec.get("delivered"))
        elif kind == "queued":
            self.queue.append(str(rec["text"]))
        elif kind == "unqueued":
            text, index = rec.get("text"), rec.get("index")
            if (
                isinstance(index, int)
                and -len(self.queue) <= index < len(self.queue)
                and (text is None or self.queue[index] == text)
            ):
                self.queue.pop(index)
                return
            if text in self.queue:
                self.queue.remove(text)
        elif kind == "delivered":
            self.deliver(rec.get("texts"))
        elif kind in ("rewind", "repair"):
            self.truncate(int(rec["to_index"]))
            s.context_tokens = None  # the last call saw messages that are gone
            if kind == "rewind":
                s.rewinds += 1
        elif kind == "compaction":
            self.compacted_turns += len(self.prompts)
            self.truncate(0)
            s.compactions += 1
            s.context_tokens = None
        elif kind == "usage":
            s.total_cost_usd += float(rec.get("cost_usd") or 0.0)
            usage = rec.get("usage") or {}
            for key, value in usage.items():
                if isinstance(value, int):
                    s.usage[key] = s.usage.get(key, 0) + value
            s.context_tokens = context_of(usage)
        elif kind == "todos":
            s.todos = list(rec.get("todos") or [])
        elif kind == "settings":
            s.model = rec.get("model", s.model)
            s.permission_mode = rec.get("permission_mode", s.permission_mode)
        elif kind == "rename":
            s.title = rec.get("title")
        elif kind == "checkpoint":
            s.checkpoints.append(rec)


def _read_lines(path: Path) -> tuple[list[bytes], bytes, int]:
    """The complete lines of ``path`` (without newlines), the torn tail, and the size."""
    data = path.read_bytes()
    end = data.rfind(b"\n") + 1
    return data[:end].split(b"\n")[:-1], data[end:], len(data)


def load(path: Path) -> LoadedSession:
    """Replay a transcript and repair what a crash left behind (never modifies the file).

    Raises:
        FileNotFoundError: no such file.
        TranscriptError: the transcript has a newer format version.
    """
    lines, tail, size = _read_lines(path)
    replay = _Replay(len(lines) + 1)
    s = replay.s
    problems: list[str] = []
    bad: list[int] = []
    acknowledged: set[int] = set()
    torn_record: dict[str, Any] | None = None
    if tail:
        try:
            torn_record = json.loads(tail)  # a whole record that only lacks its newline
        except ValueError:
            pass
        if not isinstance(torn_record, dict):
            torn_record = None
            problems.append(f"ignored a torn last line ({len(tail)} bytes)")
    numbered: Iterable[tuple[int, bytes | dict[str, Any]]] = enumerate(lines, 1)
    if torn_record is not None:
        numbered = [*numbered, (len(lines) + 1, torn_record)]
    for number, line in numbered:
        if isinstance(line, bytes) and not line.strip():
            continue
        try:
            rec = json.loads(line) if isinstance(line, bytes) else line
            if not isinstance(rec, dict) or not isinstance(rec.get("type"), str):
                raise ValueError("not a record")
            if rec["type"] == "header":
                if not s.header:  # the first line; or, if that was torn, one written later
                    if int(rec.get("version", VERSION)) > VERSION:
                        raise TranscriptError(
                            f"{path} has format version {rec['version']}; "
                            f"this eddy reads version {VERSION}: upgrade eddy"
                        )
                    s.header = rec
                continue
            replay.apply(rec)
            if isinstance(rec.get("ts"), str):
                replay.last_ts = rec["ts"]
            if rec["type"] == "repair":
                acknowledged.update(n for n in rec.get("lines") or () if isinstance(n, int))
        except TranscriptError:
            raise
        except (ValueError, KeyError, TypeError, AttributeError):
            bad.append(number)
    if not s.header:
        problems.append("the header line is unreadable")
    unseen = [n for n in bad if n not in acknowledged]
    if unseen:
        shown = ", ".join(map(str, unseen[:5])) + (", ..." if len(unseen) > 5 else "")
        problems.append(f"skipped {_plural(len(unseen), 'unreadable line')} ({shown})")
    lost = sum(1 for m in replay.slots if m is None)
    if lost:
        problems.append(f"lost {_plural(lost, 'message')} with the unreadable lines")
    kept = [(i, m) for i, m in enumerate(replay.slots) if m is not None]
    repaired = repair_history([m for _, m in kept])
    problems.extend(repaired.problems)
    new_index = {kept[o][0]: j for j, o in enumerate(repaired.origin) if o is not None}
    if replay.queue:
        n = len(replay.queue)
        problems.append(
            f"restored {_plural(n, 'queued message')} that {'was' if n == 1 else 'were'} never sent"
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
    s._replayed = replay.slots
    # Lines a repair record must account for; the torn tail becomes a line once terminated.
    s._bad_lines = unseen + ([len(lines) + 1] if tail and torn_record is None else [])
    s._ends_with_newline = not tail
    s._size = size
    return s
