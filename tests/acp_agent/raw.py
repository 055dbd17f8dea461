"""A raw-line client of the real ``eddy --acp`` process: it writes any bytes, as a faulty or
hostile editor could, and reads back what eddy answers. Waits are bounded reads of eddy's
lines (conditions), never sleeps."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from tests.acp_agent.client import TIMEOUT, agent_env, eddy_command
from tests.fakes.fake_api import FakeAnthropic


class RawAcp:
    """``eddy --acp`` on pipes this test owns.

    Attributes:
        proc: the process.
        lines: every JSON value eddy wrote, in order.
        stderr: the file its stderr goes to.
    """

    def __init__(
        self,
        proc: asyncio.subprocess.Process,
        out: asyncio.StreamReader,
        out_transport: asyncio.ReadTransport,
        stderr: Path,
    ) -> None:
        self.proc = proc
        self._out = out
        self._out_transport = out_transport
        self.lines: list[Any] = []
        self.stderr = stderr
        self._next_id = 1000

    async def send(self, line: str | bytes) -> None:
        """Write ``line`` and a newline."""
        assert self.proc.stdin is not None
        data = line if isinstance(line, bytes) else line.encode()
        self.proc.stdin.write(data + b"\n")
        await self.proc.stdin.drain()

    async def read(self, timeout: float = TIMEOUT) -> Any:
        """The next JSON value eddy writes (fails the test if none comes in ``timeout``)."""
        raw = await asyncio.wait_for(self._out.readline(), timeout)
        assert raw, "eddy closed its output"
        value = json.loads(raw)
        self.lines.append(value)
        return value

    async def answer_to(self, request_id: Any, timeout: float = TIMEOUT) -> dict[str, Any]:
        """Read until the response with ``request_id`` (notifications before it are kept)."""
        while True:
            value = await self.read(timeout)
            if isinstance(value, dict) and value.get("id") == request_id and "method" not in value:
                return value
            if isinstance(value, list) and any(v.get("id") == request_id for v in value):
                return {"batch": value}

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """Send a request and return its response."""
        self._next_id += 1
        rid = f"req-{self._next_id}"  # a string: random test lines use numbers
        message = {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}
        await self.send(json.dumps(message))
        return await self.answer_to(rid)

    async def initialize(self) -> dict[str, Any]:
        return await self.request("initialize", {"protocolVersion": 1})

    def close_output(self) -> None:
        """The editor stops reading: its end of eddy's stdout closes."""
        self._out_transport.close()

    def stderr_text(self) -> str:
        return self.stderr.read_text(errors="replace")


@contextlib.asynccontextmanager
async def raw_acp(
    fake: FakeAnthropic, *args: str, cwd: Path, env: dict[str, str] | None = None
) -> AsyncIterator[RawAcp]:
    """``eddy --acp ARGS`` in ``cwd`` against the fake API (``env`` added to its
    environment); killed at the end if still up."""
    stderr = cwd.parent / "eddy-stderr.txt"
    loop = asyncio.get_running_loop()
    read_fd, write_fd = os.pipe()
    command = eddy_command()
    with stderr.open("wb") as err:
        proc = await asyncio.create_subprocess_exec(
            *command,
            "--acp",
            *args,
            cwd=str(cwd),
            env={**agent_env(fake), **(env or {})},
            stdin=asyncio.subprocess.PIPE,
            stdout=write_fd,
            stderr=err,
        )
    os.close(write_fd)
    out = asyncio.StreamReader(limit=64 * 1024 * 1024)
    transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(out), os.fdopen(read_fd, "rb", buffering=0)
    )
    client = RawAcp(proc, out, transport, stderr)
    try:
        yield client
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        transport.close()
