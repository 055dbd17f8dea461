"""The HTTP path: a streamable-HTTP server on 127.0.0.1 (a subprocess), configured headers,
401 as needs-auth, and a reconnect after the server went away and came back."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.mcp.config import ServerConfig
from agent.mcp.manager import McpManager
from tests.agent.mcp.servers import config_of, listening
from tests.helpers.wait import until

SERVER = Path(__file__).resolve().parents[2] / "fakes" / "mcp_http_server.py"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class HttpServer:
    def __init__(self, port: int, token: str | None = None) -> None:
        self.port = port
        argv = [sys.executable, str(SERVER), str(port)]
        if token:
            argv += ["--token", token]
        self.proc = subprocess.Popen(argv, stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL)

    async def ready(self) -> None:
        await listening(self.port, self.proc, "the HTTP server", 30)

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()


@pytest.fixture
def port() -> int:
    return free_port()


@pytest.fixture
def servers() -> Iterator[list[HttpServer]]:
    started: list[HttpServer] = []
    yield started
    for s in started:
        s.stop()


def http(port: int, headers: dict[str, str] | None = None) -> ServerConfig:
    url = f"http://127.0.0.1:{port}/mcp"
    return ServerConfig("web", "user", "test", "http", url=url, headers=headers or {})


async def test_an_http_server_connects_with_its_headers_and_serves_calls(
    port: int, servers: list[HttpServer]
) -> None:
    servers.append(HttpServer(port, token="s3cret"))
    await servers[-1].ready()
    mgr = McpManager(config_of(http(port, {"Authorization": "Bearer s3cret"})))
    mgr.start()
    await mgr.wait_started()
    try:
        conn = mgr.connections["web"]
        assert conn.state == "connected", conn.reason
        assert "mcp__web__echo" in [t.name for t in mgr.tools()]
        result = await mgr.call("web", "echo", {"text": "over http"})
        assert result.content == "echo: over http"
    finally:
        await mgr.aclose()


async def test_a_server_answering_401_needs_auth(port: int, servers: list[HttpServer]) -> None:
    servers.append(HttpServer(port, token="s3cret"))
    await servers[-1].ready()
    mgr = McpManager(config_of(http(port)))
    mgr.start()
    await mgr.wait_started()
    try:
        conn = mgr.connections["web"]
        assert conn.state == "needs-auth", conn.reason
        assert mgr.status() == "MCP 0/1, 1 failed"
    finally:
        await mgr.aclose()


async def test_an_http_server_that_went_away_is_reconnected_with_backoff(
    port: int, servers: list[HttpServer]
) -> None:
    servers.append(HttpServer(port))
    await servers[-1].ready()
    mgr = McpManager(config_of(http(port)))
    mgr.start()
    await mgr.wait_started()
    try:
        conn = mgr.connections["web"]
        assert conn.state == "connected", conn.reason
        servers[-1].stop()
        lost = await mgr.call("web", "echo", {"text": "x"})
        assert lost.is_error
        assert "reconnect" in str(lost.content)
        servers.append(HttpServer(port))
        await servers[-1].ready()

        await until(lambda: conn.state == "connected", 30, "the reconnection")
        again = await mgr.call("web", "echo", {"text": "back"})
        assert again.content == "echo: back"
    finally:
        await mgr.aclose()
