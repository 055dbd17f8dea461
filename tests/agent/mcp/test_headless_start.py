"""``eddy -p`` makes its API client while the MCP servers start, not after they are up
(issue 32): the first request waits for both, so one after the other made it later."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from agent.paths import config_dir
from tests.agent.mcp.servers import FAKE
from tests.fakes.fake_api import FakeAnthropic, Reply, text
from tests.helpers.headless import eddy

pytestmark = pytest.mark.slow


def run_with_late_server(
    fake_api: FakeAnthropic, tmp_path: Path, marker: Path, *, key: bool = True
) -> list[str]:
    """``eddy -p hi`` with one MCP server, ``late``, that answers only once ``marker`` exists
    (it polls for the file: another process); the names of the tools its one request
    offered (``mcp__late__echo`` once the server answered in time)."""
    server = tmp_path / "late_server.py"
    server.write_text(
        "import pathlib, runpy, sys, time\n"
        f"while not pathlib.Path({str(marker)!r}).exists():\n"
        "    time.sleep(0.02)\n"
        f"sys.argv = [{str(FAKE)!r}, '--name', 'late']\n"
        f"runpy.run_path({str(FAKE)!r}, run_name='__main__')\n"
    )
    servers = tmp_path / "servers.json"
    entry = {"command": sys.executable, "args": [str(server)]}
    servers.write_text(json.dumps({"mcpServers": {"late": entry}}))
    fake_api.push(Reply([text("done")]))
    done = eddy(
        fake_api,
        tmp_path,
        "-p",
        "hi",
        "--mcp-config",
        str(servers),
        "--strict-mcp-config",
        key=key,
        timeout=90,
    )
    assert done.returncode == 0, done.stderr
    assert fake_api.violations == []
    (first,) = fake_api.requests
    return [tool["name"] for tool in first.get("tools", [])]


def test_the_api_client_is_made_while_the_servers_start(
    fake_api: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The key comes from an apiKeyHelper, which eddy runs as it makes its client; the server
    answers only once that happened. Made after the servers were up, the client would wait
    for a server that waits for it: the server's start would time out (MCP_TIMEOUT) and the
    first request would offer no tool of it."""
    made = tmp_path / "client-made"
    helper = tmp_path / "key.py"
    helper.write_text(f"import pathlib\npathlib.Path({str(made)!r}).touch()\nprint('test-key')\n")
    config_dir().mkdir(parents=True, exist_ok=True)
    (config_dir() / "settings.json").write_text(
        json.dumps({"apiKeyHelper": f"{sys.executable} {helper}"})
    )
    monkeypatch.setenv("MCP_TIMEOUT", "20000")
    assert "mcp__late__echo" in run_with_late_server(fake_api, tmp_path, made, key=False)


def test_the_connection_is_opened_while_the_servers_start(
    fake_api: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the client exists, ``eddy -p`` opens the connection its first request will use
    (``HEAD /api/hello``, as Claude Code does at start-up) while the first request waits for
    the servers: the server here answers only once that probe came, and the request then
    goes on the probe's connection."""
    monkeypatch.delenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", raising=False)
    probed = tmp_path / "probed"
    fake_api.on_probe = probed.touch  # the server, another process, waits for this file
    monkeypatch.setenv("MCP_TIMEOUT", "20000")
    assert "mcp__late__echo" in run_with_late_server(fake_api, tmp_path, probed)
    assert [path for path, _ in fake_api.probes] == ["/api/hello"]
    assert fake_api.peers == [fake_api.probes[0][1]]


def test_the_servers_of_a_headless_run_start_at_its_own_priority(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    """The first request waits for them: a lower priority (which keeps a UI responsive while
    they start) would only make ``-p`` wait longer on a busy machine."""
    seen = tmp_path / "nice"
    server = tmp_path / "report_nice.py"
    server.write_text(
        "import os, pathlib, runpy, sys\n"
        f"pathlib.Path({str(seen)!r}).write_text(str(os.getpriority(os.PRIO_PROCESS, 0)))\n"
        f"sys.argv = [{str(FAKE)!r}, '--name', 'nice']\n"
        f"runpy.run_path({str(FAKE)!r}, run_name='__main__')\n"
    )
    servers = tmp_path / "servers.json"
    entry = {"command": sys.executable, "args": [str(server)]}
    servers.write_text(json.dumps({"mcpServers": {"nice": entry}}))
    fake_api.push(Reply([text("done")]))
    done = eddy(fake_api, tmp_path, "-p", "hi", "--mcp-config", str(servers), timeout=90)
    assert done.returncode == 0, done.stderr
    assert "mcp__nice__echo" in [t["name"] for t in fake_api.requests[0].get("tools", [])]
    assert int(seen.read_text()) == os.getpriority(os.PRIO_PROCESS, 0)


def _with_a_mute_server(tmp_path: Path) -> Path:
    """A config of our fake server and one that never answers ``initialize``."""
    mute = {"command": sys.executable, "args": ["-c", "import time; time.sleep(600)"]}
    fast = {"command": sys.executable, "args": [str(FAKE), "--name", "fast"]}
    servers = tmp_path / "servers.json"
    servers.write_text(json.dumps({"mcpServers": {"mute": mute, "fast": fast}}))
    return servers


def test_with_mcp_connection_nonblocking_the_first_request_does_not_wait_for_a_server(
    fake_api: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Claude Code's MCP_CONNECTION_NONBLOCKING: the request goes, valid, offering no tool
    of the server still starting (which would hold the run for MCP_TIMEOUT's ten minutes)."""
    monkeypatch.setenv("MCP_TIMEOUT", "600000")
    monkeypatch.setenv("MCP_CONNECTION_NONBLOCKING", "1")
    servers = _with_a_mute_server(tmp_path)
    fake_api.push(Reply([text("done")]))
    done = eddy(fake_api, tmp_path, "-p", "hi", "--mcp-config", str(servers), timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "done"
    assert fake_api.violations == []
    (first,) = fake_api.requests
    assert not [t for t in first.get("tools", []) if t["name"].startswith("mcp__mute__")]


def test_with_mcp_connection_nonblocking_stream_json_says_a_starting_server_is_pending(
    fake_api: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCP_TIMEOUT", "600000")
    monkeypatch.setenv("MCP_CONNECTION_NONBLOCKING", "true")
    servers = _with_a_mute_server(tmp_path)
    fake_api.push(Reply([text("done")]))
    args = ["-p", "hi", "--mcp-config", str(servers), "--output-format", "stream-json"]
    done = eddy(fake_api, tmp_path, *args, "--verbose", timeout=120)
    assert done.returncode == 0, done.stderr
    init = json.loads(done.stdout.splitlines()[0])
    assert {"name": "mute", "status": "pending"} in init["mcp_servers"]


LOGGING_SERVER = """\
import json, sys
log = sys.argv[1]
for line in sys.stdin:
    message = json.loads(line)
    with open(log, "a") as f:
        f.write(str(message.get("method")) + "\\n")
    if "id" not in message:
        continue
    method, result = message.get("method"), {}
    if method == "initialize":
        result = {"protocolVersion": message["params"]["protocolVersion"],
                  "capabilities": {"tools": {}}, "serverInfo": {"name": "logs", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": []}
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
"""


def test_with_mcp_connection_nonblocking_no_server_hears_from_eddy_before_the_first_request(
    fake_api: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The connections (and the MCP SDK's import, CPU-bound, which would slow the first
    request down by as long as it takes) start only once the first response began: the
    server's first message from eddy comes after the API got the first request."""
    monkeypatch.setenv("MCP_CONNECTION_NONBLOCKING", "1")
    server, log = tmp_path / "logs_methods.py", tmp_path / "methods.log"
    server.write_text(LOGGING_SERVER)
    servers = tmp_path / "servers.json"
    entry = {"command": sys.executable, "args": [str(server), str(log)]}
    servers.write_text(json.dumps({"mcpServers": {"logs": entry}}))
    heard_before: list[str] = []

    def respond(body: dict[str, object]) -> Reply:
        if not heard_before:
            heard_before.append(log.read_text() if log.exists() else "")
        return Reply([text("done")])

    fake_api.responder = respond
    done = eddy(fake_api, tmp_path, "-p", "hi", "--mcp-config", str(servers), timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "done"
    assert heard_before == [""]
