"""``eddy -p`` with MCP servers that cannot start (issue 34), as a real process against the fake
Messages API: each one is named on stderr with why (exited, hung past ``MCP_TIMEOUT``, garbage
on stdout), stream-json lists every server's status in its init line and says each failure as
a system message, the run itself goes on, and no traceback reaches eddy's stderr."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.agent.mcp.test_odd_servers import ODD
from tests.fakes.fake_api import FakeAnthropic, Reply, text
from tests.helpers.headless import eddy

pytestmark = pytest.mark.slow

SERVERS = {"good": "ok", "exiter": "exit", "hanger": "hang", "garbler": "garbage"}
WHY = {
    "exiter": "the server process exited while starting",
    "hanger": "did not start within 5 s (MCP_TIMEOUT",
    "garbler": "this is not json",
}


def servers_file(path: Path) -> Path:
    entries = {
        name: {"command": sys.executable, "args": [str(ODD), "--start", start]}
        for name, start in SERVERS.items()
    }
    path.write_text(json.dumps({"mcpServers": entries}), encoding="utf-8")
    return path


@pytest.fixture(autouse=True)
def short_start(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_TIMEOUT", "5000")  # the hanging server fails after 5 s


def test_dash_p_names_each_server_that_failed_to_start_on_stderr_and_goes_on(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    cfg = servers_file(tmp_path / "servers.json")
    fake_api.push(Reply([text("done")]))
    done = eddy(fake_api, tmp_path, "-p", "hi", "--mcp-config", str(cfg), "--strict-mcp-config")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "done"
    lines = done.stderr.splitlines()
    for name, why in WHY.items():
        said = [ln for ln in lines if ln.startswith(f"eddy: MCP server {name}: failed")]
        assert len(said) == 1 and why in said[0], done.stderr
    assert not any("MCP server good" in ln for ln in lines)
    assert "Traceback" not in done.stderr
    assert "mcp__good__echo" in [t["name"] for t in fake_api.requests[0]["tools"]]


def test_stream_json_lists_each_servers_status_in_init_and_says_each_failure(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    cfg = servers_file(tmp_path / "servers.json")
    fake_api.push(Reply([text("done")]))
    done = eddy(
        fake_api,
        tmp_path,
        "-p",
        "hi",
        "--output-format",
        "stream-json",
        "--verbose",
        "--mcp-config",
        str(cfg),
        "--strict-mcp-config",
    )
    assert done.returncode == 0, done.stderr
    messages = [json.loads(line) for line in done.stdout.splitlines()]
    init = messages[0]
    assert init["subtype"] == "init"
    statuses = {s["name"]: s["status"] for s in init["mcp_servers"]}
    assert statuses == {"good": "connected", "exiter": "failed", "hanger": "failed",
                        "garbler": "failed"}  # fmt: skip
    failures = [m for m in messages if m.get("subtype") == "informational"]
    assert len(failures) == 3
    for name, why in WHY.items():
        (said,) = [m for m in failures if m["content"].startswith(f"MCP server {name}:")]
        assert why in said["content"] and said["level"] == "error"
        assert said["session_id"] == init["session_id"]
    assert messages[-1]["type"] == "result" and messages[-1]["subtype"] == "success"
    assert "Traceback" not in done.stderr
