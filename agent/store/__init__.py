"""Transcripts: append-only JSONL files, one per session.

- transcript.py: ``Transcript``, the open file a session appends to; forks.
- format.py: what each record holds and how it is written as a line.
- listing.py: listing a project's sessions fast (``--continue``, ``--resume``, the picker).
- load.py: replaying a transcript into a history, with what a crash left behind repaired.
- repair.py: the history repairs that make a replayed history pass ``check_invariant``.
"""

from typing import TYPE_CHECKING

from agent.lazy import exports

if TYPE_CHECKING:
    from agent.store.listing import SessionInfo, find_session, latest_session, list_sessions
    from agent.store.load import TranscriptError
    from agent.store.transcript import Transcript, fork

__all__ = [
    "SessionInfo",
    "Transcript",
    "TranscriptError",
    "find_session",
    "fork",
    "latest_session",
    "list_sessions",
]

__getattr__ = exports(
    __name__,
    {
        "Transcript": "agent.store.transcript",
        "fork": "agent.store.transcript",
        "list_sessions": "agent.store.listing",
        "latest_session": "agent.store.listing",
        "find_session": "agent.store.listing",
        "SessionInfo": "agent.store.listing",
        "TranscriptError": "agent.store.load",
    },
)
