"""Commands run in an editor's terminal (ACP's ``terminal`` capability) instead of a child of
eddy: the editor shows them as it runs them.

Bash prepares the command line exactly as for a local run (the sandbox wrapper around it, the
trap that reports the working directory, the checkpoint hooks around it); only the process is
the editor's. Cancelling the call kills the editor's process; a timeout kills it too.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol


class ClientTerminal(Protocol):
    """What an editor offers for commands (an ACP client with ``terminal``)."""

    async def run(
        self,
        argv: list[str],
        cwd: Path,
        env: dict[str, str],
        timeout_s: float,
        on_text: Callable[[str], None],
    ) -> tuple[int | None, bool]:
        """Run ``argv`` in ``cwd`` with ``env`` added, feeding its output to ``on_text`` as it
        comes; return (the exit status, negative for a signal, or None when it timed out;
        whether it timed out). Cancelling the caller kills the command.

        Raises:
            OSError: the editor could not run it.
        """
        ...
