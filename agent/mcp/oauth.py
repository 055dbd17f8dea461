"""OAuth for HTTP MCP servers, through the SDK's ``OAuthClientProvider``.

``/mcp login NAME`` runs the authorization-code flow with PKCE: eddy listens on a loopback
port (127.0.0.1, a random port), opens the browser at the server's authorization page (and
says the URL, for a browser elsewhere), and takes the code from the redirect to
``http://127.0.0.1:PORT/callback``. The client registration and the tokens are kept in the
user's data directory (``mcp-auth/<server>-<hash>.json``, mode 0600); later starts use them and
the SDK refreshes an expired token with the refresh token without asking again. A server
that needs a login again (no tokens, refresh refused) is ``needs-auth``, never a browser
opened unasked. ``/mcp logout NAME`` deletes the file.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

from agent.mcp.config import ServerConfig
from agent.paths import data_dir

LOGIN_TIMEOUT = 300.0
"""How long the browser hand-off may take (the user logs in)."""

Opener = Callable[[str], Awaitable[None]]


class NeedsLogin(Exception):
    """The server wants an authorization and nobody asked for a login: ``/mcp login``."""


def token_path(config: ServerConfig) -> Path:
    """The file of ``config``'s registration and tokens (one per server name and URL)."""
    digest = hashlib.sha256(f"{config.name}\n{config.url}".encode()).hexdigest()[:12]
    return data_dir() / "mcp-auth" / f"{config.name}-{digest}.json"


def has_tokens(config: ServerConfig) -> bool:
    """Whether eddy logged in to ``config`` (a token file exists)."""
    return token_path(config).exists()


def logout(config: ServerConfig) -> bool:
    """Forget ``config``'s tokens; whether there were any."""
    try:
        token_path(config).unlink()
        return True
    except FileNotFoundError:
        return False


class FileTokenStorage:
    """The SDK's ``TokenStorage`` over one JSON file written 0600 (replaced atomically)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _write(self, key: str, value: Any) -> None:
        data = self._read()
        data[key] = value
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = self.path.with_name(self.path.name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f)
        os.chmod(tmp, 0o600)  # whatever the umask did
        os.replace(tmp, self.path)

    async def get_tokens(self) -> Any:
        from mcp.shared.auth import OAuthToken

        raw = self._read().get("tokens")
        return OAuthToken.model_validate(raw) if raw else None

    async def set_tokens(self, tokens: Any) -> None:
        self._write("tokens", tokens.model_dump(mode="json", exclude_none=True))
        if tokens.expires_in is not None:  # the SDK keeps the expiry in memory only
            self._write("expires_at", time.time() + float(tokens.expires_in))

    def expires_at(self) -> float | None:
        """When the stored access token expires (epoch seconds), if known."""
        value = self._read().get("expires_at")
        return float(value) if isinstance(value, (int, float)) else None

    async def get_client_info(self) -> Any:
        from mcp.shared.auth import OAuthClientInformationFull

        raw = self._read().get("client_info")
        return OAuthClientInformationFull.model_validate(raw) if raw else None

    async def set_client_info(self, client_info: Any) -> None:
        self._write("client_info", client_info.model_dump(mode="json", exclude_none=True))

    def forget_client(self) -> None:
        """Drop the registration (its redirect URI names another loopback port)."""
        data = self._read()
        if data.pop("client_info", None) is not None:
            self._write("tokens", data.get("tokens"))


class LoopbackCallback:
    """A one-shot HTTP listener on 127.0.0.1 for the authorization redirect."""

    def __init__(self) -> None:
        self.port = 0
        self._server: asyncio.Server | None = None
        self._result: asyncio.Future[Any] | None = None

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}/callback"

    async def start(self) -> None:
        self._result = asyncio.get_running_loop().create_future()
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = int(self._server.sockets[0].getsockname()[1])

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = (await reader.readline()).decode("latin-1")
            while (await reader.readline()).strip():
                pass  # the headers
            target = line.split(" ")[1] if line.count(" ") >= 2 else ""
            query = parse_qs(urlparse(target).query)
            ok = urlparse(target).path == "/callback" and "code" in query
            body = (
                "eddy: logged in; you can close this tab."
                if ok
                else "eddy: the login did not succeed; see the terminal."
            )
            writer.write(
                f"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: "
                f"{len(body)}\r\nConnection: close\r\n\r\n{body}".encode()
            )
            await writer.drain()
            if self._result is not None and not self._result.done():
                if ok:
                    self._result.set_result(query)
                elif "error" in query:
                    self._result.set_exception(NeedsLogin(f"the login failed: {query['error'][0]}"))
        finally:
            writer.close()

    async def wait(self) -> Any:
        """The ``AuthorizationCodeResult`` of the redirect."""
        from mcp.client.auth import AuthorizationCodeResult

        assert self._result is not None
        query = await asyncio.wait_for(self._result, LOGIN_TIMEOUT)
        return AuthorizationCodeResult(
            code=query["code"][0],
            state=query.get("state", [None])[0],
            iss=query.get("iss", [None])[0],
        )

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()


async def open_in_browser(url: str) -> None:
    """The default opener: the system browser (in a thread: it may block)."""
    import webbrowser

    await asyncio.to_thread(webbrowser.open, url)


async def provider(
    config: ServerConfig,
    stack: contextlib.AsyncExitStack,
    *,
    interactive: bool,
    opener: Opener,
    say: Callable[[str], None],
) -> Any:
    """An ``OAuthClientProvider`` for ``config``; with ``interactive``, a login may hand off
    to the browser (``opener``, and ``say`` tells the URL); without, it raises NeedsLogin."""
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import OAuthClientMetadata

    storage = FileTokenStorage(token_path(config))
    callback = LoopbackCallback()
    redirect = "http://127.0.0.1/callback"
    if interactive:
        await callback.start()
        stack.push_async_callback(callback.close)
        redirect = callback.redirect_uri
        info = await storage.get_client_info()
        if info is not None and redirect not in [str(u) for u in info.redirect_uris or []]:
            storage.forget_client()  # registered for another port: register again

    async def redirect_handler(url: str) -> None:
        if not interactive:
            raise NeedsLogin(f"{config.name} needs a login: /mcp login {config.name}")
        say(f"Log in to the MCP server {config.name} in your browser: {url}")
        await opener(url)

    async def callback_handler() -> Any:
        return await callback.wait()

    metadata = OAuthClientMetadata(
        client_name="eddy",
        redirect_uris=[redirect],  # type: ignore[list-item]
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method="none",
    )

    class Provider(OAuthClientProvider):
        async def _initialize(self) -> None:
            # tokens from an earlier run: with their expiry known, an expired one is
            # refreshed with the refresh token instead of asking for a login again
            await super()._initialize()
            self.context.token_expiry_time = storage.expires_at()

    return Provider(
        server_url=config.url,
        client_metadata=metadata,
        storage=storage,
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
    )
