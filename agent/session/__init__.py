"""The session: what a front end talks to. It owns the history, the running turn, the queue of
corrections, the pending approvals and its own lifecycle (model, transcript, checkpoints).

- core.py: ``Session`` (submit ops, emit events) and the turn it runs.
- config.py: ``SessionConfig``, how a session runs (built by the front door, agent/open.py).
- gate.py: the gate of docs/loop.md made interactive: policy first, then the user.
- turns.py, command_prompt.py: a prompt's turn, a custom command's prompt.
- conversation.py, dialogs.py, status.py: the history and the queue, AskUserQuestion and
  ExitPlanMode, the status snapshot.
- budget.py, compaction.py, record.py: the spending cap, compaction, the transcript records.
"""
