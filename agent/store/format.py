"""The transcript format: what each record holds, and how a record is written as a line.

## Session transcripts

Every session is saved as it happens, one file per session:
`<data dir>/projects/<project>-<hash>/sessions/<session id>.jsonl`, where `<data dir>` is
`~/.local/share/eddy` on Linux (or `$EDDY_DATA_DIR`). The file is UTF-8 JSON Lines: one JSON
object (a *record*) per line. eddy only ever appends whole lines (one write each, flushed at
once, fsynced at the end of every turn); it never rewrites a line, so a rewind or a repair adds
lines and every earlier branch of the conversation stays readable.

Every record has `type` and `ts` (UTC time, ISO 8601, e.g. `"2026-05-01T09:30:00.123Z"`); the
header has `created` instead of `ts`. Readers ignore record types and fields they do not know.

Records, by `type` (replaying them in order rebuilds the session):

- `header`: `version` (1), `session_id`, `cwd`, `model`, `created`, and for a fork
  `forked_from` (`{"session_id", "messages"}`). The first line (if a crash tore the first
  line, eddy writes the header again when the session is resumed).
- `message`: `index`, `message` (`{"role", "content": [blocks]}`, the Messages API form), and
  optionally `prompts` and `delivered`. The message becomes message number `index` (from 0)
  and any messages after it are dropped. When `index` is the last message, the record
  *replaces* it with a longer one that keeps its prompts: a prompt typed after an
  interruption joins the last user message, which is then written again with the same index
  (any other change is preceded by a `rewind`). `prompts` lists the prompts the user sent that
  this record adds; `delivered` lists the queued messages it delivers.
- `result`: `result` (a `tool_result` block). One tool call finished; written as each call
  ends, so a crash in the middle of a batch keeps the results of the calls that finished
  (the `message` record of the results follows when the whole batch is done).
- `queued`: `text`. The user queued a message while the agent was working.
- `unqueued`: `index`, `text`. The user took queued message `index` back (to edit or drop it).
- `delivered`: `texts`. These queued messages were sent (when no `message` record said so).
- `interrupt`: the user pressed Esc (what it did to the conversation is in `message` records).
- `rewind`: `to_index`, and any details. Keep only the first `to_index` messages; the messages
  that follow start a new branch.
- `compaction`: `summary`, and any details. The conversation was compacted: the messages are
  cleared and the compacted conversation follows as `message` records from index 0.
- `repair`: `to_index`, `problems`, `lines`. Written when a damaged transcript is resumed: keep
  the first `to_index` messages, the repaired ones follow; `lines` lists the unreadable line
  numbers (from 1) already reported.
- `usage`: `usage` (token counts), `cost_usd`, and any details. One model response; the
  session's cost is the sum of `cost_usd` over all branches.
- `todos`: `todos`. The todo list, replaced whole.
- `settings`: `model` and/or `permission_mode`. The user changed them.
- `rename`: `title`. The session's title.
- `checkpoint`: `index`, and any details. Files were saved before the turn that starts at
  message `index` changed them.

The queue of messages waiting to be sent is what `queued` added, less what `unqueued` took
back and what `delivered` (a record, or the field of a `message`) sent. The sessions directory
also holds `.index.json`, a cache that makes listing sessions fast (safe to delete). While a
session runs, eddy holds a lock on its file, so a second eddy cannot write to it (fork it).

Reading a transcript repairs what a crash can leave behind: a torn last line is ignored, an
unreadable line is skipped, a tool call without a result gets its `result` record if it
finished, else an error result saying the session was interrupted, a result that answers no
call is dropped, and queued messages that were never sent go back to the queue. Each repair is
reported when the session is resumed.

With `jq`:

```sh
jq -r '.prompts[]?' SESSION.jsonl                               # the prompts
jq -s 'map(select(.type == "usage") | .cost_usd) | add' SESSION.jsonl   # the cost
jq -r 'select(.type == "message") | .message.content[]
       | select(.type == "tool_use") | .name' SESSION.jsonl    # the tools called
```
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Sequence
from typing import Any

from agent.messages import Message, compact_json

_MESSAGE_KEY = b',"message":'
_MESSAGE_TEXT = _MESSAGE_KEY.decode()
_DECODER = json.JSONDecoder()
_NOT_CONTROL_ESCAPE = re.compile(rb"\\u(?!00[01])")


def timestamp(t: float | None = None) -> str:
    """``t`` (default now) as UTC ISO 8601 with milliseconds: ``2026-05-01T09:30:00.123Z``."""
    t = time.time() if t is None else t
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t % 1 * 1000):03d}Z"


def _ordered(record: dict[str, Any]) -> dict[str, Any]:
    ordered = {"type": record["type"]}
    if record["type"] != "header":
        ordered["ts"] = record.get("ts") or timestamp()
    ordered.update((k, v) for k, v in record.items() if k != "ts")
    return ordered


def encode(record: dict[str, Any]) -> bytes:
    """One record as one line of UTF-8 JSON, ``type`` and ``ts`` first, newline included."""
    ordered = _ordered(record)
    try:
        return compact_json(ordered) + b"\n"
    except UnicodeEncodeError:  # lone surrogates: let json escape them
        text = json.dumps(ordered, separators=(",", ":"), allow_nan=False)
        return (text + "\n").encode("ascii")


def encode_message_record(
    index: int, message: Message, *, prompts: Sequence[str] = (), delivered: Sequence[str] = ()
) -> bytes:
    """The line of :func:`record_message`'s record, as :func:`encode` writes it, made from
    the message's cached JSON (which its requests then reuse) instead of encoding it again."""
    record = record_message(index, message, prompts=prompts, delivered=delivered)
    head = dict(record)
    del head["message"]
    try:
        encoded = compact_json(_ordered(head))[:-1] + _MESSAGE_KEY + message.to_json()
    except UnicodeEncodeError:  # lone surrogates: the whole line in ASCII
        return encode(record)
    return encoded + b"}\n"


def decode_line(line: bytes) -> tuple[Any, bytes | None]:
    """The JSON value of a transcript line (without its newline) and, for a ``message``
    record, its ``message`` as the line holds it when those bytes are what
    :func:`agent.messages.compact_json` makes of it (else None).

    ``message`` is the last field of the record :func:`encode_message_record` writes, and
    ``,"message":`` cannot occur before it inside a string (a quote in a string is escaped):
    the line is parsed as the record without it plus the message alone, each of which must be
    whole JSON, so the bytes kept are exactly the message's. A line that :func:`encode` had to
    write in ASCII (a lone surrogate) escapes more than control characters: not kept.

    Raises:
        ValueError: the line is not JSON.
    """
    start = line.find(_MESSAGE_KEY) if line.startswith(b'{"type":"message"') else -1
    if start < 0 or not line.endswith(b"}"):
        return json.loads(line), None
    text = line.decode("utf-8", "surrogatepass")  # as json.loads(line) decodes it
    at = text.find(_MESSAGE_TEXT)
    try:
        record = json.loads(text[:at] + "}")
        message, end = _DECODER.raw_decode(text, at + len(_MESSAGE_TEXT))
    except ValueError:
        return json.loads(text), None
    if end != len(text) - 1 or not isinstance(record, dict) or "message" in record:
        return json.loads(text), None  # more after the message, or a second one
    record["message"] = message
    encoded = line[start + len(_MESSAGE_KEY) : -1]
    ascii_escaped = (  # only an ASCII line may have been escaped: most are not
        encoded.isascii() and b"\\u" in encoded and _NOT_CONTROL_ESCAPE.search(encoded) is not None
    )
    return record, None if ascii_escaped else encoded


def record_message(
    index: int, message: Message, *, prompts: Sequence[str] = (), delivered: Sequence[str] = ()
) -> dict[str, Any]:
    """The ``message`` record that makes ``message`` message number ``index``."""
    record: dict[str, Any] = {"type": "message", "index": index}
    if prompts:
        record["prompts"] = list(prompts)
    if delivered:
        record["delivered"] = list(delivered)
    record["message"] = message.to_param()
    return record
