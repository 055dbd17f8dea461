"""Our fake MCP server (tests/fakes/mcp_stdio_server.py's tools) over streamable HTTP on
127.0.0.1, for the HTTP path: ``python mcp_http_server.py PORT [--token T]``.

With ``--token`` every request without ``Authorization: Bearer T`` gets 401 (headers from the
configuration reach the server; a server that wants auth is "needs-auth").
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import uvicorn  # noqa: E402
from mcp_stdio_server import build  # noqa: E402
from starlette.responses import PlainTextResponse  # noqa: E402


def main() -> None:
    port = int(sys.argv[1])
    token = sys.argv[sys.argv.index("--token") + 1] if "--token" in sys.argv else None
    app = build("web").streamable_http_app()

    async def guarded(scope, receive, send):  # type: ignore[no-untyped-def]
        if scope["type"] == "http" and token is not None:
            headers = dict(scope.get("headers") or [])
            if headers.get(b"authorization", b"").decode() != f"Bearer {token}":
                await PlainTextResponse("unauthorized", status_code=401)(scope, receive, send)
                return
        await app(scope, receive, send)

    uvicorn.run(guarded, host="127.0.0.1", port=port, log_level="warning", lifespan="on")


if __name__ == "__main__":
    main()
