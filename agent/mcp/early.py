"""Starting the MCP host (agent/mcp/host.py) before eddy knows its servers: ``eddy -p``.

The host's start is mostly the MCP SDK's import, CPU-bound Python that takes longer than the
rest of a headless start on a slow machine. So ``-p`` starts the host first thing, before its
own imports, where the run likely has servers (``--mcp-config``, a ``.mcp.json``,
``mcpServers`` in Claude Code's user file): the host imports the SDK while eddy starts, and
waits for the servers. The session's :class:`~agent.mcp.hosted.McpHost` takes the process
(:func:`take`), or :func:`end_early` ends it once the session is built without hosted
servers (it exits at its end of file). This module imports nothing heavy: it runs before the
rest of eddy is loaded.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import IO

HOST = "EDDY_MCP_HOST"
"""``0``: a headless run connects its servers from eddy's own process, as the other front ends
do, instead of from the MCP host."""
LOG_NAME = "mcp-host.log"
"""The host's stderr, in the project's ``mcp-logs`` beside its servers' logs."""

_early: subprocess.Popen[bytes] | None = None


def in_host() -> bool:
    """Whether a headless run may connect its stdio servers from the MCP host."""
    return os.environ.get(HOST, "").strip().lower() not in ("0", "false", "no", "off")


def start_early(workspace: Path, mcp_config: Iterable[str]) -> None:
    """Start a host now if the run likely has servers (see the module note)."""
    global _early
    from agent.paths import claude_json_path, project_data_dir

    if _early is not None or not in_host():
        return
    likely = any(True for _ in mcp_config) or (workspace / ".mcp.json").is_file()
    if likely or _names_servers(claude_json_path(), workspace):
        log_dir = project_data_dir(workspace) / "mcp-logs"  # (where the session puts it)
        with contextlib.suppress(OSError):
            log_dir.mkdir(parents=True, exist_ok=True)
            with open(log_dir / LOG_NAME, "ab") as log:
                _early = popen_host(log)


def _names_servers(claude_json: Path, workspace: Path) -> bool:
    """Whether Claude Code's user file gives this workspace servers: its own ``mcpServers``,
    or its project entry's (Claude Code writes an empty one for every project it opened)."""
    if not claude_json.is_file():
        return False
    import json

    from agent.mcp.config import project_entry

    try:
        with open(claude_json, "rb") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return False
    mine = project_entry(data, workspace)
    return any(isinstance(entry, dict) and bool(entry.get("mcpServers")) for entry in (data, mine))


def take() -> subprocess.Popen[bytes] | None:
    """The host :func:`start_early` started, still running, for the session to use."""
    global _early
    early, _early = _early, None
    return early if early is not None and early.poll() is None else None


def end_early() -> None:
    """End the host :func:`start_early` started if no session took it."""
    early = take()
    if early is not None:
        with contextlib.suppress(OSError, ValueError):
            assert early.stdin is not None
            early.stdin.close()  # its end of file before any servers: it exits
        # reaped beside the run: it exits once its own start lets it read (a few tenths of
        # a second into the SDK's import), which the run need not wait for
        threading.Thread(target=early.wait, name="mcp-host-end", daemon=True).start()


def popen_host(log: IO[bytes] | int) -> subprocess.Popen[bytes]:
    """A host process (``python -m agent.mcp``), its stderr to ``log``."""
    root = str(Path(__file__).resolve().parents[2])  # where the agent package is
    path = os.environ.get("PYTHONPATH")
    env = {**os.environ, "PYTHONPATH": root + (os.pathsep + path if path else "")}
    return subprocess.Popen(
        # -P: not the working directory (the workspace, a repository eddy does not trust)
        # first on the path, where an ``agent`` package of its own would run in place of eddy's
        [sys.executable, "-P", "-m", "agent.mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=log,
        env=env,
    )
