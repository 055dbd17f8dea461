"""The smallest stdio MCP server, standard library only, for bench_mcp.py: one tool ("now").

It starts in the time Python itself takes, so a benchmark of an agent's MCP start-up measures
the agent (its MCP client, the handshake, what it waits for), not the servers' own imports
(a server built on the ``mcp`` package imports for about as long as the agent does).
Newline-delimited JSON-RPC on stdin/stdout: ``initialize`` (the client's protocol version is
accepted), ``tools/list``, ``tools/call``, ``ping``; anything else is "method not found".
"""

from __future__ import annotations

import json
import sys
from typing import Any


def reply(request_id: Any, result: Any = None, error: dict[str, Any] | None = None) -> None:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id}
    if error is not None:
        message["error"] = error
    else:
        message["result"] = result
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


TOOL = {
    "name": "now",
    "description": "The time.",
    "inputSchema": {"type": "object", "properties": {}},
}


def main() -> None:
    for line in sys.stdin:
        try:
            request = json.loads(line)
        except ValueError:
            continue
        method, request_id = request.get("method"), request.get("id")
        if request_id is None:  # a notification
            continue
        if method == "initialize":
            version = (request.get("params") or {}).get("protocolVersion", "2025-06-18")
            info = {"name": "mini", "version": "1"}
            reply(
                request_id,
                {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": info},
            )
        elif method == "tools/list":
            reply(request_id, {"tools": [TOOL]})
        elif method == "tools/call":
            reply(request_id, {"content": [{"type": "text", "text": "12:00"}], "isError": False})
        elif method == "ping":
            reply(request_id, {})
        else:
            reply(request_id, error={"code": -32601, "message": f"Method not found: {method}"})


if __name__ == "__main__":
    main()
