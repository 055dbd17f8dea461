"""eddy's engine: the loop of LOOP-MODEL.md, the session around it, and what it keeps on disk.

It never imports a front end or a UI library (import-linter and tests/agent/test_import_hygiene.py
check it). What front ends use is exported here, loaded on first use (start-up pays only for
what it touches):

- ``events``, ``ops``: the protocol, one closed union each (front ends submit ops, render events).
- ``Session``, ``SessionConfig``: a running session (agent/session/).
- ``Transcript``, ``list_sessions``: saved sessions (agent/store/).
- ``CheckpointStore``: rewind (agent/checkpoints/).

Also here: loop.py (one turn; its stream sink in turn_sink.py, its limits, outcome and early
exits in turn_outcome.py, its interrupt race in race.py), toolrun.py (a response's
calls: validate, gate, run, results in order), messages.py (blocks and the pairing invariant),
normalise.py (the one way an assistant message enters the history), model.py and
anthropic_model.py (the model client; retry.py its overload retries), response_stream.py (the
SSE reader), pricing.py, prompt.py, compact.py, context.py, preview.py, mentions.py,
user_shell.py, paths.py, side_model.py (one-shot questions to the small fast model); and the
packages permissions/ (pure policy), shell/ (the bash model), settings/, sandbox/ and subagents/
(agent definitions and the child loop behind the Agent tool).
"""

from typing import TYPE_CHECKING

from agent.lazy import exports

if TYPE_CHECKING:
    from agent.checkpoints.engine import CheckpointStore
    from agent.session.config import SessionConfig
    from agent.session.core import Session
    from agent.store.listing import list_sessions
    from agent.store.transcript import Transcript

__all__ = [
    "CheckpointStore",
    "Session",
    "SessionConfig",
    "Transcript",
    "events",
    "list_sessions",
    "ops",
]

__getattr__ = exports(
    __name__,
    {
        "Session": "agent.session.core",
        "SessionConfig": "agent.session.config",
        "Transcript": "agent.store.transcript",
        "list_sessions": "agent.store.listing",
        "CheckpointStore": "agent.checkpoints.engine",
    },
)
