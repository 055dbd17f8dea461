"""``eddy -p`` with MCP servers, as a real process against the fake Messages API: the first
request already offers the servers' tools (-p waits for them to start), project servers start
without asking, ``--mcp-config`` / ``--strict-mcp-config`` choose the servers."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.agent.mcp.servers import FAKE
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.helpers.headless import eddy

pytestmark = pytest.mark.slow


def servers_file(path: Path, name: str = "fake") -> Path:
    entry = {"command": sys.executable, "args": [str(FAKE), "--name", name]}
    path.write_text(json.dumps({"mcpServers": {name: entry}}), encoding="utf-8")
    return path


def script(fake_api: FakeAnthropic, name: str = "fake") -> None:
    fake_api.push(
        Reply([tool_use("t1", f"mcp__{name}__echo", {"text": "from -p"})], "tool_use"),
        Reply([text("done")]),
    )


def names(request: dict) -> list[str]:
    return [t["name"] for t in request.get("tools", [])]


def test_dash_p_with_mcp_config_offers_and_runs_the_tools(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    (tmp_path / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"other": {"command": "no-such-program-xyz"}}})
    )
    cfg = servers_file(tmp_path / "servers.json")
    script(fake_api)
    done = eddy(
        fake_api,
        tmp_path,
        "-p",
        "echo something",
        "--mcp-config",
        str(cfg),
        "--strict-mcp-config",
        "--allowed-tools",
        "mcp__fake",
    )
    assert done.returncode == 0, done.stderr
    assert fake_api.violations == []
    first, second = fake_api.requests
    assert "mcp__fake__echo" in names(first)
    assert not any(n.startswith("mcp__other") for n in names(first))  # strict: no .mcp.json
    result = second["messages"][-1]["content"][0]
    assert "echo: from -p" in str(result["content"]) and not result.get("is_error")


def test_dash_p_starts_project_servers_without_asking(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    servers_file(tmp_path / ".mcp.json", "proj")
    script(fake_api, "proj")
    done = eddy(fake_api, tmp_path, "-p", "echo", "--allowed-tools", "mcp__proj__echo")
    assert done.returncode == 0, done.stderr
    assert fake_api.violations == []
    assert "mcp__proj__echo" in names(fake_api.requests[0])
    result = fake_api.requests[1]["messages"][-1]["content"][0]
    assert "echo: from -p" in str(result["content"])


@pytest.mark.parametrize("hosted", [True, False], ids=["in-the-host", "EDDY_MCP_HOST=0"])
def test_dash_p_connects_stdio_servers_without_importing_the_mcp_sdk_itself(
    fake_api: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hosted: bool
) -> None:
    """The MCP host imports the SDK on the other core: eddy's own import log (its stderr with
    ``PYTHONPROFILEIMPORTTIME``) names no module of it; with the host off, it does."""
    cfg = servers_file(tmp_path / "servers.json")
    script(fake_api)
    monkeypatch.setenv("PYTHONPROFILEIMPORTTIME", "1")
    if not hosted:
        monkeypatch.setenv("EDDY_MCP_HOST", "0")
    done = eddy(
        fake_api, tmp_path, "-p", "echo", "--mcp-config", str(cfg), "--strict-mcp-config",
        "--allowed-tools", "mcp__fake",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    result = fake_api.requests[1]["messages"][-1]["content"][0]
    assert "echo: from -p" in str(result["content"])
    imported = [ln.rsplit("|", 1)[-1].strip() for ln in done.stderr.splitlines() if "|" in ln]
    sdk = [m for m in imported if m.split(".")[0] in ("mcp", "mcp_types")]
    assert (sdk == []) is hosted, sdk[:5]
