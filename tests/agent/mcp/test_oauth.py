"""OAuth with the SDK's OAuthClientProvider against a fake authorisation server on loopback
(tests/fakes/mcp_oauth_server.py): needs-auth without a login, the browser hand-off with a
loopback callback, tokens kept 0600, an expired token refreshed without asking, logout."""

from __future__ import annotations

import json
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.mcp.config import ServerConfig
from agent.mcp.manager import McpManager
from agent.mcp.oauth import has_tokens, token_path
from tests.agent.mcp.servers import config_of
from tests.agent.mcp.test_http import HttpServer, free_port

OAUTH = Path(__file__).resolve().parents[2] / "fakes" / "mcp_oauth_server.py"


class OAuthServer(HttpServer):
    def __init__(self, port: int, log: Path) -> None:
        import os
        import subprocess
        import sys

        self.port = port
        env = {**os.environ, "FAKE_MCP_LOG": str(log)}
        self.proc = subprocess.Popen(
            [sys.executable, str(OAUTH), str(port)],
            env=env,
            stderr=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
        )


@pytest.fixture
def server(tmp_path: Path) -> Iterator[OAuthServer]:
    srv = OAuthServer(free_port(), tmp_path / "grants.log")
    yield srv
    srv.stop()


def secure(port: int) -> ServerConfig:
    return ServerConfig("secure", "user", "test", "http", url=f"http://127.0.0.1:{port}/mcp")


class Browser:
    """The user's browser: opens the authorization URL and follows the server's redirect to
    eddy's loopback callback (the fake server grants at once)."""

    def __init__(self) -> None:
        self.opened: list[str] = []

    async def __call__(self, url: str) -> None:
        import httpx2

        self.opened.append(url)
        async with httpx2.AsyncClient() as http:
            answer = await http.get(url)
            assert answer.status_code in (302, 303, 307), answer.text
            callback = await http.get(answer.headers["location"])
            assert "logged in" in callback.text


async def never(url: str) -> None:
    raise AssertionError(f"a browser was opened unasked: {url}")


async def test_login_hands_off_to_the_browser_and_keeps_the_tokens_0600(
    server: OAuthServer, tmp_path: Path
) -> None:
    await server.ready()
    config = secure(server.port)
    mgr = McpManager(config_of(config))
    mgr.opener = never
    mgr.start()
    await mgr.wait_started()
    try:
        conn = mgr.connections["secure"]
        assert conn.state == "needs-auth"
        assert "/mcp login secure" in conn.reason
        browser = Browser()
        mgr.opener = browser
        await mgr.login("secure")
        assert conn.state == "connected", conn.reason
        assert len(browser.opened) == 1 and "/authorize?" in browser.opened[0]
        assert "code_challenge=" in browser.opened[0]  # PKCE
        assert (await mgr.call("secure", "echo", {"text": "authorised"})).content == (
            "echo: authorised"
        )
        path = token_path(config)
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert json.loads(path.read_text())["tokens"]["access_token"]
    finally:
        await mgr.aclose()


async def test_stored_tokens_are_used_and_an_expired_one_is_refreshed_without_asking(
    server: OAuthServer, tmp_path: Path
) -> None:
    await server.ready()
    config = secure(server.port)
    first = McpManager(config_of(config))
    first.opener = Browser()
    first.start()
    await first.wait_started()
    await first.login("secure")
    await first.aclose()
    # a later run, after the access token expired
    path = token_path(config)
    data = json.loads(path.read_text())
    data["expires_at"] = 1.0
    path.write_text(json.dumps(data))
    later = McpManager(config_of(config))
    later.opener = never
    later.start()
    await later.wait_started()
    try:
        assert later.connections["secure"].state == "connected"
        grants = (tmp_path / "grants.log").read_text().splitlines()
        assert grants == ["grant authorization_code", "grant refresh_token"]
        assert (await later.call("secure", "echo", {"text": "again"})).content == "echo: again"
    finally:
        await later.aclose()


async def test_logout_forgets_the_tokens(server: OAuthServer) -> None:
    await server.ready()
    config = secure(server.port)
    mgr = McpManager(config_of(config))
    mgr.opener = Browser()
    mgr.start()
    await mgr.wait_started()
    try:
        await mgr.login("secure")
        assert has_tokens(config)
        assert await mgr.logout("secure")
        assert not has_tokens(config)
        assert mgr.connections["secure"].state == "needs-auth"
    finally:
        await mgr.aclose()
