"""Bash's commands in the editor's terminals (ACP ``terminal/*``), when the client offers them
(see tools/client_terminal.py for what stays eddy's: sandbox wrapper, cwd, checkpoints)."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

from acp import schema

POLL_S = 0.1
"""How often the output is fetched while the command runs (ACP has no output push)."""
OUTPUT_LIMIT = 4_000_000
"""The bytes of output the editor keeps (Bash cuts its result far below this)."""


class EditorTerminal:
    """``tools.client_terminal.ClientTerminal`` over an ACP connection, for one session."""

    def __init__(self, conn: Any, session_id: str) -> None:
        self.conn = conn
        self.session_id = session_id

    async def run(
        self,
        argv: list[str],
        cwd: Path,
        env: dict[str, str],
        timeout_s: float,
        on_text: Callable[[str], None],
    ) -> tuple[int | None, bool]:
        """Create the terminal, follow its output until it exits (or the timeout, or a
        cancel: then kill it), release it."""
        ids = {"session_id": self.session_id}
        try:
            created = await self.conn.create_terminal(
                command=argv[0],
                args=argv[1:],
                cwd=str(cwd),
                env=[schema.EnvVariable(name=k, value=v) for k, v in env.items()],
                output_byte_limit=OUTPUT_LIMIT,
                **ids,
            )
        except Exception as exc:  # the editor's error: the call fails, the turn goes on
            raise OSError(str(exc)) from exc
        ids["terminal_id"] = created.terminal_id
        loop = asyncio.get_running_loop()
        exited = asyncio.ensure_future(self.conn.wait_for_terminal_exit(**ids))
        deadline = loop.time() + timeout_s
        seen = 0
        try:
            while True:
                await asyncio.wait({exited}, timeout=max(0.0, min(POLL_S, deadline - loop.time())))
                out = await self.conn.terminal_output(**ids)
                text = out.output
                if len(text) < seen:  # the editor dropped the start (its byte limit)
                    seen = 0
                if len(text) > seen:
                    on_text(text[seen:])
                    seen = len(text)
                if exited.done():
                    status = exited.result()
                    return _exit_code(status.exit_code, status.signal), False
                if loop.time() >= deadline:
                    await self.conn.kill_terminal(**ids)
                    return None, True
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                await asyncio.shield(self.conn.kill_terminal(**ids))
            raise
        except Exception as exc:
            raise OSError(str(exc)) from exc
        finally:
            exited.cancel()
            with contextlib.suppress(Exception):
                await asyncio.shield(self.conn.release_terminal(**ids))


def _exit_code(code: int | None, signal_name: str | None) -> int:
    """The status as Bash reports it: the exit code, or minus the signal's number."""
    if code is not None:
        return code
    try:
        return -signal.Signals[signal_name or ""].value
    except KeyError:
        return -signal.SIGKILL.value


def offers_terminal(capabilities: schema.ClientCapabilities | None) -> bool:
    """Whether the client runs commands for eddy."""
    return bool(capabilities is not None and capabilities.terminal)
