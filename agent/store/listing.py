"""Listing a project's sessions fast (the resume picker, ``--continue``, ``--resume ID``).

Transcripts are in ``sessions_dir(cwd)``, one ``<session id>.jsonl`` each (the format is in
agent/store/format.py). Listing reads only what was appended since the last listing: the
directory's ``.index.json`` caches each file's summary and how far it was read (safe to delete).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.paths import project_data_dir
from agent.store.load import SUFFIX, VERSION, parse_timestamp, salvage_prompts

SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
"""What a session id may be: it names a file."""


def sessions_dir(cwd: Path) -> Path:
    """The directory holding the transcripts of the project at ``cwd``."""
    return project_data_dir(cwd) / "sessions"


INDEX_FILE = ".index.json"
_PREFIX = re.compile(rb'\{"type":"([a-z_]+)","ts":"([^"]*)"(?:,"index":(\d+))?')
_SMALL = (b"usage", b"rename", b"settings", b"rewind", b"repair", b"compaction")


@dataclass
class SessionInfo:
    """What the resume picker shows about one session.

    Attributes:
        session_id: the id.
        path: the transcript.
        first_prompt: the first prompt sent, or None for a session without prompts.
        last_activity: the time of the last record (epoch seconds).
        turns: the prompts in the current branch, plus those summarised by compactions.
        messages: the number of messages in the current branch.
        total_cost_usd: the cost so far.
        title: the title given with /rename, or None.
        rewinds: the number of rewinds (branches).
        model: the last model used.
        created: when the session started (epoch seconds).
        forked_from: the id of the session this one was forked from.
        size: the file size in bytes.
        subagents: how many subagent transcripts it has (``subagents/agent-<id>.jsonl``).
    """

    session_id: str
    path: Path
    first_prompt: str | None
    last_activity: float | None
    turns: int
    messages: int
    total_cost_usd: float
    title: str | None
    rewinds: int
    model: str | None
    created: float | None
    forked_from: str | None
    size: int
    subagents: int = 0


def _new_summary(header: bytes) -> dict[str, Any]:
    try:
        rec = json.loads(header)
    except ValueError:
        rec = {}
    rec = rec if isinstance(rec, dict) and rec.get("type") == "header" else {}
    forked = rec.get("forked_from")
    return {
        "session_id": rec.get("session_id"),
        "model": rec.get("model"),
        "created": rec.get("created"),
        "forked_from": forked.get("session_id") if isinstance(forked, dict) else None,
        "last_ts": rec.get("created"),
        "first_prompt": None,
        "title": None,
        "prompts": [],  # indices of the messages carrying prompts, in the current branch
        "compacted_turns": 0,
        "messages": 0,
        "cost": 0.0,
        "rewinds": 0,
    }


def _summarize_line(state: dict[str, Any], line: bytes) -> None:
    """Update a listing summary from one line, parsing only small records fully."""
    match = _PREFIX.match(line)
    rec: dict[str, Any] = {}
    if match and match.group(1) == b"message" and match.group(3) is not None:
        kind, state["last_ts"] = "message", match.group(2).decode()
        rec["index"] = int(match.group(3))
        if line.startswith(b',"prompts":', match.end()):
            text = line.decode("utf-8", "replace")
            rec["prompts"] = json.JSONDecoder().raw_decode(text, match.end() + 11)[0]
    elif match and match.group(1) not in _SMALL:
        kind, state["last_ts"] = match.group(1).decode(), match.group(2).decode()
    else:
        try:
            rec = json.loads(line)
        except ValueError:
            return
        if not isinstance(rec, dict) or not isinstance(rec.get("type"), str):
            return
        kind = rec["type"]
        state["last_ts"] = rec.get("ts") or state["last_ts"]
    try:
        if kind == "header" and not state["session_id"]:
            state.update(_new_summary(line), last_ts=state["last_ts"])
        elif kind == "message":
            index = int(rec["index"])
            keep = index + 1 if index == state["messages"] - 1 else index
            state["messages"] = index + 1
            state["prompts"] = [i for i in state["prompts"] if i < keep]
            for prompt in rec.get("prompts") or ():
                state["prompts"].append(index)
                state["first_prompt"] = state["first_prompt"] or str(prompt)
        elif kind in ("rewind", "repair"):
            keep = int(rec["to_index"])
            state["messages"] = min(state["messages"], keep)
            state["prompts"] = [i for i in state["prompts"] if i < keep]
            state["rewinds"] += kind == "rewind"
        elif kind == "compaction":
            state["compacted_turns"] += len(state["prompts"])
            state["messages"], state["prompts"] = 0, []
        elif kind == "usage":
            state["cost"] += float(rec.get("cost_usd") or 0.0)
        elif kind == "rename":
            state["title"] = rec.get("title")
        elif kind == "settings":
            state["model"] = rec.get("model", state["model"])
    except (KeyError, TypeError, ValueError):
        pass


def _mark(f: Any, offset: int) -> str:
    """The (up to) 64 bytes before ``offset``: they tell an appended file from a rewritten one."""
    f.seek(max(0, offset - 64))
    return str(f.read(min(64, offset)).decode("latin-1"))


def _summarize(path: Path, cached: Any) -> dict[str, Any]:
    """The cache entry for ``path``: reuses ``cached`` and reads only the bytes added since."""
    with path.open("rb") as f:
        st = os.fstat(f.fileno())
        head = f.readline()
        head_text = head.decode("utf-8", "replace")
        entry: dict[str, Any] | None = None
        try:  # reuse the cache if the file was only appended to since
            offset = cached["offset"]
            if (
                cached["ino"] == st.st_ino
                and (cached["size"] != st.st_size or cached["mtime_ns"] == st.st_mtime_ns)
                and cached["head"] == head_text
                and 0 < offset <= st.st_size
                and cached["mark"] == _mark(f, offset)
                and cached["state"].keys() == _new_summary(b"").keys()
            ):
                state = dict(cached["state"], prompts=list(cached["state"]["prompts"]))
                entry = dict(cached, state=state)
        except (TypeError, KeyError, AttributeError):
            pass
        if entry is None:
            offset = len(head) if head.endswith(b"\n") else 0
            state = _new_summary(head if offset else b"")
            entry = {"ino": st.st_ino, "head": head_text, "offset": offset, "state": state}
        if 0 < entry["offset"] < st.st_size:
            f.seek(entry["offset"])
            data = f.read(st.st_size - entry["offset"])
            end = data.rfind(b"\n") + 1  # a torn last line waits for its newline
            for line in data[:end].split(b"\n")[:-1]:
                _summarize_line(entry["state"], line)
            entry["offset"] += end
        entry["mark"] = _mark(f, entry["offset"])
        entry["size"], entry["mtime_ns"] = st.st_size, st.st_mtime_ns
        return entry


def _info(path: Path, entry: dict[str, Any]) -> SessionInfo:
    from agent.store.children import child_transcripts

    st = entry["state"]
    last = parse_timestamp(st["last_ts"] or "")
    return SessionInfo(
        session_id=st["session_id"] or path.name.removesuffix(SUFFIX),
        path=path,
        first_prompt=st["first_prompt"],
        last_activity=last if last is not None else entry["mtime_ns"] / 1e9,
        turns=st["compacted_turns"] + len(st["prompts"]),
        messages=st["messages"],
        total_cost_usd=st["cost"],
        title=st["title"],
        rewinds=st["rewinds"],
        model=st["model"],
        created=parse_timestamp(st["created"] or ""),
        forked_from=st["forked_from"],
        size=entry["size"],
        subagents=len(child_transcripts(path)),
    )


def _torn_prompt(path: Path, offset: int) -> str | None:
    """The first prompt in the torn record at ``offset`` of ``path``, if it is readable."""
    try:
        with path.open("rb") as f:
            f.seek(offset)
            salvaged = salvage_prompts(f.read(1 << 20))
    except OSError:
        return None
    return salvaged[1][0] if salvaged else None


def list_sessions(cwd: Path, *, include_empty: bool = False) -> list[SessionInfo]:
    """The sessions of the project at ``cwd``, most recently active first.

    Reads only what changed since the last listing: a small cache
    (``sessions/.index.json``) keeps each file's summary and how far it was read. Message
    lines are never fully parsed.

    Args:
        cwd: the project directory.
        include_empty: also list sessions that have no message yet.
    """
    folder = sessions_dir(cwd)
    if not folder.is_dir():
        return []
    index_path = folder / INDEX_FILE
    try:
        cache = json.loads(index_path.read_bytes())
        files = cache["files"] if cache.get("version") == VERSION else {}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        files = {}
    fresh: dict[str, Any] = {}
    infos = []
    for path in folder.glob(f"*{SUFFIX}"):
        try:
            entry = _summarize(path, files.get(path.name))
        except OSError:
            continue
        fresh[path.name] = entry
        info = _info(path, entry)
        # a torn record (a crash while writing the first prompt, or the header itself: offset
        # 0) still makes a session to continue: loading it recovers what it can, the id
        # coming from the file name when the header is torn
        torn = entry["offset"] < entry["size"]
        if torn and info.first_prompt is None:
            info.first_prompt = _torn_prompt(path, entry["offset"])
        if include_empty or info.messages or info.turns or torn:
            infos.append(info)
    if fresh != files:
        tmp = folder / f"{INDEX_FILE}.{os.getpid()}.tmp"
        try:
            tmp.write_text(json.dumps({"version": VERSION, "files": fresh}))
            os.replace(tmp, index_path)
        except OSError:  # only a cache
            tmp.unlink(missing_ok=True)
    infos.sort(key=lambda i: (i.last_activity or 0.0, i.created or 0.0), reverse=True)
    return infos


def latest_session(cwd: Path) -> Path | None:
    """The most recently active session of the project at ``cwd`` (for ``--continue``)."""
    sessions = list_sessions(cwd)
    return sessions[0].path if sessions else None


def find_session(cwd: Path, session_id: str) -> Path | None:
    """The transcript of ``session_id`` (or of the only id starting with it) at ``cwd``."""
    folder = sessions_dir(cwd)
    exact = folder / f"{session_id}{SUFFIX}"
    if SESSION_ID.fullmatch(session_id) and exact.is_file():
        return exact
    matches = [p for p in folder.glob(f"*{SUFFIX}") if p.name.startswith(session_id)]
    return matches[0] if len(matches) == 1 and SESSION_ID.fullmatch(session_id) else None
