"""Server configurations for the MCP tests: our fake stdio server, mcp-server-time,
server-everything, failures."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

from agent.mcp.config import McpConfig, ServerConfig

FAKE = Path(__file__).resolve().parents[2] / "fakes" / "mcp_stdio_server.py"


def fake(name: str = "fake", *, log: Path | None = None, scope: str = "user") -> ServerConfig:
    """Our own stdio server (tests/fakes/mcp_stdio_server.py)."""
    env = {"FAKE_MCP_LOG": str(log)} if log is not None else {}
    return ServerConfig(
        name,
        scope,
        "test",
        "stdio",
        sys.executable,
        (str(FAKE), "--name", name),
        env,  # type: ignore[arg-type]
    )


def time_server(name: str = "time") -> ServerConfig:
    """``mcp-server-time`` from PyPI, a real stdio server (works offline)."""
    return ServerConfig(
        name,
        "user",
        "test",
        "stdio",
        sys.executable,
        ("-m", "mcp_server_time", "--local-timezone", "UTC"),
    )


EVERYTHING = Path(__file__).resolve().parents[3] / ".ci" / "npm" / "node_modules" / ".bin"
EVERYTHING = EVERYTHING / "mcp-server-everything"
"""``@modelcontextprotocol/server-everything`` from npm, installed by .ci/run."""


def everything(name: str = "everything") -> ServerConfig:
    """The MCP reference server (``stdio``), as a user's server."""
    return ServerConfig(name, "user", "test", "stdio", str(EVERYTHING), ("stdio",))


def command(name: str, *argv: str) -> ServerConfig:
    return ServerConfig(name, "user", "test", "stdio", argv[0], tuple(argv[1:]))


def config_of(*servers: ServerConfig) -> McpConfig:
    return McpConfig({s.name: s for s in servers})


async def listening(port: int, proc: subprocess.Popen[bytes], what: str, deadline: float) -> None:
    """Wait until ``proc`` (a server being started) accepts connections on ``port``: fails if
    it dies first, or after ``deadline`` seconds."""
    async with asyncio.timeout(deadline):
        while True:
            try:
                _r, w = await asyncio.open_connection("127.0.0.1", port)
                w.close()
                return
            except OSError:
                assert proc.poll() is None, f"{what} died while starting"
                await asyncio.sleep(0.05)  # polled until it listens (the deadline bounds it)
