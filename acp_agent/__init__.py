"""``eddy --acp``: eddy as an Agent Client Protocol server (JSON-RPC on stdio), so editors such
as Zed and Toad drive it.

A fourth front end over the same ops and events as the TUI, line mode and headless: it builds
sessions with :mod:`frontend.session_open`, submits :mod:`agent.ops` and turns
:mod:`agent.events` into ``session/update`` notifications. It never changes the history except
through the engine.

- ``main.py``: the process: stdout kept for protocol lines only, logs to stderr, the server run.
- ``server.py``: the ``acp.Agent``: initialize, session/new|load|list|prompt|cancel|set_mode and
  the ``_eddy/...`` extension methods (checkpoints, rewind).
- ``live.py``: one open session: its ordered update pump, permission requests, prompts.
- ``updates.py``: engine events -> ACP session updates (pure apart from reading edited files).
- ``prompts.py``: ACP prompt content blocks -> the prompt text eddy sends.
- ``commands.py``: the slash commands over ACP (the one table of frontend/commands.py).
- ``client_fs.py``, ``client_terminal.py``: the editor's files and terminals for eddy's tools,
  when the client offers them (tools/client_files.py, tools/client_terminal.py).
"""
