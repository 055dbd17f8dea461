"""Line mode's text form of /mcp: the listing, and ``/mcp disable|enable|reconnect NAME``
changing what the next request offers the model (the real loop and the fake API)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from agent.mcp.manager import McpManager
from tests.agent.mcp.servers import FAKE
from tests.fakes.fake_api import FakeAnthropic, Reply, text
from tests.helpers.plain import ENTER


def user_servers(*names: str) -> None:
    path = Path(os.environ["CLAUDE_CONFIG_DIR"]) / ".claude.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    servers = {n: {"command": sys.executable, "args": [str(FAKE), "--name", n]} for n in names}
    path.write_text(json.dumps({"mcpServers": servers}))


def mcp_tools(request: dict[str, object]) -> set[str]:
    tools = request["tools"]
    assert isinstance(tools, list)
    return {t["name"] for t in tools if t["name"].startswith("mcp__")}


async def test_mcp_subcommands_change_the_tools_of_the_next_request(
    harness, workspace: Path, fake_api: FakeAnthropic
) -> None:
    user_servers("alpha", "beta")
    h = harness()
    await h.start()
    await h.app.session.extension(McpManager).wait_started()
    h.type("/mcp" + ENTER)
    await h.printed("/mcp disable|enable NAME|all switches a server off or on")
    assert "alpha  [user, stdio:" in h.output
    h.type("/mcp disable alpha" + ENTER)
    await h.printed("MCP server alpha disabled for this project: its tools are gone.")
    fake_api.push(Reply([text("one")]), Reply([text("two")]), Reply([text("three")]))
    h.type("first" + ENTER)
    await h.printed("one")
    await h.idle()
    h.type("/mcp enable alpha" + ENTER)
    await h.printed("MCP server alpha enabled: ")
    h.type("/mcp reconnect beta" + ENTER)
    await h.printed("MCP server beta reconnected: ")
    h.type("second" + ENTER)
    await h.printed("two")
    await h.idle()
    first, second = fake_api.requests
    assert "mcp__beta__echo" in mcp_tools(first)
    assert not any(n.startswith("mcp__alpha__") for n in mcp_tools(first))
    assert {"mcp__alpha__echo", "mcp__beta__echo"} <= mcp_tools(second)
    assert fake_api.violations == []
    assert await h.exit() == 0
