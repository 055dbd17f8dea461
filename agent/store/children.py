"""Where a session's subagent transcripts live, and what the resume list says of them.

Each child is recorded like the main session (``agent.store.transcript``: append-only JSONL,
fsynced as the main one) in ``<sessions dir>/<session id>/subagents/agent-<id>.jsonl``.
Besides the main session's records (``agent.store.format``), a child's file has two of its
own, which loading skips: ``subagent`` after the header (``agent_id``, ``agent_type``,
``parent_call_id``, ``depth``) and, when the child ends, ``subagent_end`` (``subtype``,
``num_turns``, ``cost_usd``, ``duration_ms``). Files written before ``subagent_end`` existed
lack it; readers (``frontend.subagent_transcripts``) show their end as unknown.
"""

from __future__ import annotations

from pathlib import Path

PREFIX = "agent-"


def subagents_dir(session_path: Path) -> Path:
    """The folder of the subagent transcripts of the session recorded at ``session_path``."""
    return session_path.parent / session_path.name.removesuffix(".jsonl") / "subagents"


def child_transcripts(session_path: Path) -> list[Path]:
    """The subagent transcripts of a session, oldest first (none when it had no children)."""
    folder = subagents_dir(session_path)
    try:
        found = [p for p in folder.iterdir() if p.name.startswith(PREFIX)]
    except OSError:
        return []
    return sorted((p for p in found if p.suffix == ".jsonl"), key=_mtime)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
