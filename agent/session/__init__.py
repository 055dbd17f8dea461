"""The session: what a front end talks to. It owns the history, the running turn, the queue of
corrections, the pending approvals and its own lifecycle (model, transcript, checkpoints).

- core.py: ``Session`` (submit ops, emit events) and the turn it runs.
- config.py: ``SessionConfig``, how a session runs (built by frontend/session_open.py).
- gate.py: the gate of LOOP-MODEL.md made interactive: policy first, then the user.
- budget.py, compaction.py, record.py, rewind.py: the spending cap, compaction, the
  transcript records and ``ops.Rewind`` as the session applies them.
"""

from typing import TYPE_CHECKING

from agent.lazy import exports

if TYPE_CHECKING:
    from agent.session.config import SessionConfig
    from agent.session.core import Emit, Session
    from agent.session.gate import PermissionGate

__all__ = ["Emit", "PermissionGate", "Session", "SessionConfig"]

__getattr__ = exports(
    __name__,
    {
        "Session": "agent.session.core",
        "Emit": "agent.session.core",
        "SessionConfig": "agent.session.config",
        "PermissionGate": "agent.session.gate",
    },
)
