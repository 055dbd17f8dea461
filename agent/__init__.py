"""eddy's engine: the loop of docs/loop.md, the session around it, and what it keeps on disk.

It never imports a front end or a UI library (import-linter and tests/agent/test_import_hygiene.py
check it). Front ends open a session through the front door, ``agent.open.open_session``, and
then talk to it through the protocol only: ``agent.ops`` in, ``agent.events`` out.

The root holds the protocol: events.py, ops.py, messages.py (blocks and the pairing
invariant), paths.py, extension.py (the one plug), and open.py (the front door). The packages,
from the top of the engine's layers down (docs/architecture.md draws them):

- subagents/, mcp/, hooks/: capabilities that plug in as extensions;
- session/: the session (ops, the running turn, the queue, approvals, the gate);
- checkpoints/, memory/, store/: snapshots and rewind, memory files, transcripts;
- turn/: one turn of the loop, the tool runner and the tool set;
- prompt/, model/: what the model reads, and the model client;
- permissions/, sandbox/, settings/, shell/: rules, the OS sandbox, settings files, the bash
  model.
"""
