"""A misbehaving MCP server over stdio, for fault tests: raw JSON-RPC lines (stdlib only), so it
can answer anything at all.

Run as ``python tests/fakes/mcp_odd_server.py [--start MODE]``. MODE:

- ``ok`` (default): a correct handshake (``server/discover`` is "method not found", so the SDK
  falls back to ``initialize``);
- ``exit``: write a last word on stderr and exit 3 before answering;
- ``hang``: read requests, never answer;
- ``garbage``: answer every request of the handshake with a line that is not JSON;
- ``banner``: print a banner line on stdout first, then a correct handshake.

Tools:

- ``echo {text}``: ``echo: TEXT``;
- ``answer {lines: [str], newline: bool}``: write each line (``{id}`` is replaced by the
  request's id as JSON), each followed by a newline unless ``newline`` is false for the last
  one; then answer nothing more for this call;
- ``noise {text}``: write stderr noise, then echo;
- ``tick``: send a progress notification every 50 ms, forever, never answering (it reads
  nothing more).

``FAKE_MCP_LOG`` names a file where it appends one line per request method;
``FAKE_MCP_PIDS`` one where it appends its process id when it starts (a test checks that no
server outlives eddy).
"""

from __future__ import annotations

import itertools
import json
import os
import sys
import time
from typing import Any

TOOLS = [
    {
        "name": "echo",
        "description": "Echo the text back.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
    },
    {
        "name": "answer",
        "description": "Answer with the given raw lines.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "lines": {"type": "array", "items": {"type": "string"}},
                "newline": {"type": "boolean"},
            },
        },
    },
    {
        "name": "noise",
        "description": "Write to stderr, then echo.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
    },
    {
        "name": "tick",
        "description": "Report progress forever.",
        "inputSchema": {"type": "object", "properties": {}},
    },
]


def write(line: str, newline: bool = True) -> None:
    sys.stdout.write(line + ("\n" if newline else ""))
    sys.stdout.flush()


def reply(request_id: Any, result: dict[str, Any]) -> None:
    write(json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}))


def error(request_id: Any, code: int, message: str) -> None:
    write(
        json.dumps(
            {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
        )
    )


def log(text: str) -> None:
    path = os.environ.get("FAKE_MCP_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(text + "\n")


def call(request_id: Any, params: dict[str, Any]) -> None:
    name, args = params.get("name"), params.get("arguments") or {}
    if name == "echo":
        reply(request_id, {"content": [{"type": "text", "text": f"echo: {args.get('text')}"}]})
    elif name == "noise":
        sys.stderr.write(f"noise on stderr: {args.get('text')}\n")
        sys.stderr.flush()
        reply(request_id, {"content": [{"type": "text", "text": f"echo: {args.get('text')}"}]})
    elif name == "answer":
        lines = list(args.get("lines") or [])
        for i, line in enumerate(lines):
            last = i == len(lines) - 1
            write(
                line.replace("{id}", json.dumps(request_id)),
                newline=not last or args.get("newline", True),
            )
    elif name == "tick":
        token = ((params.get("_meta") or {}).get("progressToken")) or request_id
        for step in itertools.count():
            note = {"progressToken": token, "progress": step}
            write(
                json.dumps({"jsonrpc": "2.0", "method": "notifications/progress", "params": note})
            )
            time.sleep(0.05)
    else:
        error(request_id, -32602, f"no tool {name}")


def main() -> None:
    start = sys.argv[sys.argv.index("--start") + 1] if "--start" in sys.argv else "ok"
    pids = os.environ.get("FAKE_MCP_PIDS")
    if pids:
        with open(pids, "a", encoding="utf-8") as f:
            f.write(f"{os.getpid()}\n")
    if start == "exit":
        sys.stderr.write("odd server: cannot start, no config\n")
        sys.stderr.flush()
        sys.exit(3)
    if start == "banner":
        write("odd server 1.0 ready")
    for raw in sys.stdin:
        try:
            message = json.loads(raw)
        except ValueError:
            continue
        method, request_id = message.get("method"), message.get("id")
        log(str(method))
        if request_id is None or start == "hang":
            continue  # a notification (or a server that never answers)
        if start == "garbage":
            write("this is not json")
        elif method == "initialize":
            version = (message.get("params") or {}).get("protocolVersion", "2025-06-18")
            reply(
                request_id,
                {
                    "protocolVersion": version,
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "odd", "version": "1"},
                },
            )
        elif method == "tools/list":
            reply(request_id, {"tools": TOOLS})
        elif method == "tools/call":
            call(request_id, message.get("params") or {})
        elif method == "ping":
            reply(request_id, {})
        else:
            error(request_id, -32601, f"method not found: {method}")


if __name__ == "__main__":
    main()
