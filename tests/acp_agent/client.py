"""A recording ACP client that drives the real ``eddy --acp`` process, as an editor would.

It uses the package's own client side (``acp.spawn_agent_process``) and the fake Messages
API; tests wait on what the client received (conditions), never on time.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import acp
from acp import schema

from tests.fakes.fake_api import FakeAnthropic

TIMEOUT = 60.0
"""How long a wait may take before the test fails (a loaded 2-core machine is slow)."""


def eddy_command() -> list[str]:
    """The installed ``eddy`` (or the module in a bare checkout)."""
    exe = Path(sys.executable).with_name("eddy")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "cli.main"]


def agent_env(fake: FakeAnthropic, *, key: bool = True) -> dict[str, str]:
    """This process's environment (the test's data dirs) pointed at the fake API."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env["ANTHROPIC_BASE_URL"] = fake.base_url
    if key:
        env["ANTHROPIC_API_KEY"] = "test-key"
    return env


class RecordingClient:
    """An ``acp.Client`` that keeps every update and answers permission questions.

    Attributes:
        updates: (session id, update) in arrival order.
        asked: the permission requests, in arrival order.
        answer: how a permission request is answered: an option id, or None to leave it
            pending until :meth:`release` (or until the client cancels it).
    """

    def __init__(self) -> None:
        self.updates: list[tuple[str, Any]] = []
        self.asked: list[schema.RequestPermissionRequest] = []
        self.answer: str | None = "allow_once"
        self.queues: list[list[str]] = []
        """The ``_eddy/queue`` notifications: the queued corrections after each change."""
        self.ended: list[dict[str, Any]] = []
        """The ``_eddy/turn_ended`` notifications (turns background reports started)."""
        self.buffers: dict[str, str] = {}
        """Unsaved editor buffers by path (``fs/read_text_file`` answers with them)."""
        self.reads: list[str] = []
        self.before_read: Callable[[str], None] | None = None
        """Called with the path before each read is answered (the user typing meanwhile)."""
        self.writes: list[tuple[str, str]] = []
        self.terminals: dict[str, tuple[Any, list[str], Any]] = {}
        self.commands: list[list[str]] = []
        """The command lines the agent ran in terminals."""
        self.killed: list[str] = []
        self.released: list[str] = []
        self.answers: list[str] = []
        """Answers for the next requests, in order (then ``answer``)."""
        self._changed = asyncio.Condition()
        self._pending: list[asyncio.Future[schema.RequestPermissionResponse]] = []

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    async def wait_for(self, check: Callable[[], Any], timeout: float = TIMEOUT) -> Any:
        """Wait until ``check()`` is truthy; return its value."""

        async def until() -> Any:
            async with self._changed:
                while not (value := check()):
                    await self._changed.wait()
                return value

        return await asyncio.wait_for(until(), timeout)

    def kinds(self, session_id: str | None = None) -> list[str]:
        """The ``sessionUpdate`` tags received (for one session, or all)."""
        return [u.session_update for s, u in self.updates if session_id in (None, s)]

    def of(self, tag: str) -> list[Any]:
        """The updates with ``sessionUpdate`` ``tag``."""
        return [u for _, u in self.updates if u.session_update == tag]

    def text(self, tag: str = "agent_message_chunk") -> str:
        """The text of every chunk of kind ``tag``, joined."""
        return "".join(u.content.text for u in self.of(tag) if hasattr(u.content, "text"))

    def cancel_pending(self) -> None:
        """What an editor does on session/cancel: answer the open questions "cancelled"."""
        for fut in self._pending:
            if not fut.done():
                fut.set_result(
                    schema.RequestPermissionResponse(
                        outcome=schema.DeniedOutcome(outcome="cancelled")
                    )
                )
        self._pending.clear()

    # -- acp.Client ------------------------------------------------------------------------
    async def request_permission(
        self, options: list[schema.PermissionOption], session_id: str, tool_call: Any, **kw: Any
    ) -> schema.RequestPermissionResponse:
        self.asked.append(
            schema.RequestPermissionRequest(
                session_id=session_id, tool_call=tool_call, options=options
            )
        )
        self.updates.append((session_id, _Asked(tool_call)))
        answer = self.answers.pop(0) if self.answers else self.answer
        if answer is None:
            fut: asyncio.Future[schema.RequestPermissionResponse] = (
                asyncio.get_running_loop().create_future()
            )
            self._pending.append(fut)
            await self._notify()
            return await fut
        await self._notify()
        return schema.RequestPermissionResponse(
            outcome=schema.AllowedOutcome(outcome="selected", option_id=answer)
        )

    async def session_update(self, session_id: str, update: Any, **kw: Any) -> None:
        self.updates.append((session_id, update))
        await self._notify()

    async def read_text_file(
        self,
        path: str,
        session_id: str,
        line: int | None = None,
        limit: int | None = None,
        **kw: Any,
    ) -> schema.ReadTextFileResponse:
        """An editor's read: the unsaved buffer if there is one, else the file."""
        self.reads.append(path)
        if self.before_read is not None:
            self.before_read(path)
        if path in self.buffers:
            return schema.ReadTextFileResponse(content=self.buffers[path])
        try:
            return schema.ReadTextFileResponse(content=Path(path).read_text())
        except OSError as exc:
            raise acp.RequestError.resource_not_found(path) from exc

    async def write_text_file(
        self, content: str, path: str, session_id: str, **kw: Any
    ) -> schema.WriteTextFileResponse:
        """An editor's write: the buffer takes the text and is saved."""
        self.writes.append((path, content))
        self.buffers.pop(path, None)
        Path(path).write_text(content)
        await self._notify()
        return schema.WriteTextFileResponse()

    # -- terminals: a local process each, as an editor's terminal would run it --------------
    async def create_terminal(
        self,
        command: str,
        session_id: str,
        args: list[str] | None = None,
        cwd: str | None = None,
        env: list[Any] | None = None,
        output_byte_limit: int | None = None,
        **kw: Any,
    ) -> schema.CreateTerminalResponse:
        extra = {e.name: e.value for e in env or []}
        proc = await asyncio.create_subprocess_exec(
            command,
            *(args or []),
            cwd=cwd,
            env={**os.environ, **extra},
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
        terminal_id = f"term-{len(self.terminals) + 1}"
        output: list[str] = []

        async def pump() -> None:
            assert proc.stdout is not None
            while chunk := await proc.stdout.read(4096):
                output.append(chunk.decode(errors="replace"))

        self.terminals[terminal_id] = (proc, output, asyncio.create_task(pump()))
        self.commands.append([command, *(args or [])])
        await self._notify()
        return schema.CreateTerminalResponse(terminal_id=terminal_id)

    async def terminal_output(
        self, session_id: str, terminal_id: str, **kw: Any
    ) -> schema.TerminalOutputResponse:
        proc, output, _ = self.terminals[terminal_id]
        status = None
        if proc.returncode is not None:
            status = schema.TerminalExitStatus(exit_code=proc.returncode)
        return schema.TerminalOutputResponse(
            output="".join(output), truncated=False, exit_status=status
        )

    async def wait_for_terminal_exit(
        self, session_id: str, terminal_id: str, **kw: Any
    ) -> schema.WaitForTerminalExitResponse:
        proc, _, pump = self.terminals[terminal_id]
        code = await proc.wait()
        await pump
        if code < 0:
            return schema.WaitForTerminalExitResponse(signal=signal.Signals(-code).name)
        return schema.WaitForTerminalExitResponse(exit_code=code)

    async def kill_terminal(self, session_id: str, terminal_id: str, **kw: Any) -> None:
        proc, _, _ = self.terminals[terminal_id]
        self.killed.append(terminal_id)
        if proc.returncode is None:
            os.killpg(proc.pid, signal.SIGKILL)
            await proc.wait()
        await self._notify()

    async def release_terminal(self, session_id: str, terminal_id: str, **kw: Any) -> None:
        proc, _, pump = self.terminals[terminal_id]
        if proc.returncode is None:
            os.killpg(proc.pid, signal.SIGKILL)
            await proc.wait()
        await pump
        self.released.append(terminal_id)

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise acp.RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        if method == "eddy/queue":
            self.queues.append(list(params["queue"]))
            await self._notify()
        elif method == "eddy/turn_ended":
            self.ended.append(params)
            self.updates.append((params["sessionId"], _Ended(params)))
            await self._notify()

    def on_connect(self, conn: Any) -> None:
        return None


class _Ended:
    """A marker in ``updates`` where ``_eddy/turn_ended`` arrived (to check the order)."""

    session_update = "turn_ended"

    def __init__(self, params: dict[str, Any]) -> None:
        self.params = params


class _Asked:
    """A marker in ``updates`` where a permission request arrived (to check the order)."""

    session_update = "request_permission"

    def __init__(self, tool_call: Any) -> None:
        self.tool_call = tool_call
        self.tool_call_id = tool_call.tool_call_id


@contextlib.asynccontextmanager
async def eddy_acp(
    fake: FakeAnthropic,
    *args: str,
    cwd: Path,
    client: RecordingClient | None = None,
    stderr: Path | None = None,
    key: bool = True,
    capabilities: schema.ClientCapabilities | None = None,
) -> AsyncIterator[tuple[Any, RecordingClient, Any]]:
    """``eddy --acp`` running, initialized; yields (connection, client, process). Its stderr
    goes to ``stderr`` (default: ``cwd``'s parent / "eddy-stderr.txt")."""
    client = client or RecordingClient()
    command = eddy_command()
    log = stderr or cwd.parent / "eddy-stderr.txt"
    with log.open("wb") as err:
        async with acp.spawn_agent_process(
            client,
            command[0],
            *command[1:],
            "--acp",
            *args,
            env=agent_env(fake, key=key),
            cwd=str(cwd),
            transport_kwargs={"stderr": err, "shutdown_timeout": 20.0},
        ) as (conn, process):
            await asyncio.wait_for(
                conn.initialize(
                    protocol_version=acp.PROTOCOL_VERSION,
                    client_capabilities=capabilities or schema.ClientCapabilities(),
                    client_info=schema.Implementation(name="test-client", version="1"),
                ),
                TIMEOUT,
            )
            yield conn, client, process
