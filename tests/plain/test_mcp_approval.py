"""Line mode asks once, before the first prompt, about the project's new MCP servers
(.mcp.json): a numbered question; approved servers start at once and their tools reach the
model through the real loop and the fake API."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from agent.mcp.approval import answer_of
from agent.mcp.manager import McpManager
from tests.agent.mcp.servers import FAKE
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.helpers.plain import ENTER
from tests.plain.test_line_mode import line_app


def project_servers(workspace: Path, *names: str) -> None:
    servers = {n: {"command": sys.executable, "args": [str(FAKE), "--name", n]} for n in names}
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))


async def test_use_these_starts_them_and_the_model_calls_one(
    harness, workspace: Path, fake_api: FakeAnthropic
) -> None:
    project_servers(workspace, "alpha", "beta")
    h = harness("--allowedTools", "mcp__alpha")
    await h.start()
    await h.printed("New MCP servers found in .mcp.json: alpha, beta")
    assert "not approved" not in h.output and "wait for your answer" not in h.output  # asked
    assert "1. Use this and all future MCP servers in this project" in h.output
    assert "2. Use these MCP servers" in h.output
    assert "3. Continue without using these MCP servers" in h.output
    h.type("2" + ENTER)
    await h.printed("MCP: approved for this project, starting: alpha, beta.")
    manager = h.app.session.extension(McpManager)
    await manager.wait_started()
    assert answer_of(workspace, "alpha") is True and answer_of(workspace, "beta") is True
    fake_api.push(
        Reply([tool_use("t1", "mcp__alpha__echo", {"text": "hi"})], "tool_use"),
        Reply([text("done")]),
    )
    h.type("use alpha" + ENTER)
    await h.printed("done")
    await h.idle()
    assert fake_api.violations == []
    first, second = fake_api.requests
    assert "mcp__alpha__echo" in [t["name"] for t in first["tools"]]
    result = second["messages"][-1]["content"][0]
    assert result["tool_use_id"] == "t1" and not result.get("is_error")
    assert "echo: hi" in json.dumps(result["content"])
    assert await h.exit() == 0


async def test_continue_without_is_remembered_and_not_asked_again(harness, workspace: Path) -> None:
    project_servers(workspace, "alpha")
    h = harness()
    await h.start()
    await h.printed("New MCP server found in .mcp.json: alpha")
    h.type("3" + ENTER)
    await h.printed("MCP: not using alpha")
    assert answer_of(workspace, "alpha") is False
    assert h.app.session.extension(McpManager).connections["alpha"].state == "needs-approval"
    assert await h.exit() == 0

    h = harness()
    await h.start()
    await h.printed("MCP: not started, you said no for this project: alpha.")
    assert "New MCP server found" not in h.output
    assert await h.exit() == 0


async def test_line_mode_from_a_pipe_waits_for_its_servers_and_names_those_not_answered(
    workspace: Path, fake_api: FakeAnthropic
) -> None:
    """Fed from a pipe, nobody answers the question: the first line waits for the servers
    that start (their tools are in its request) and the project's new ones are named once."""
    project_servers(workspace, "alpha")
    beta = {"command": sys.executable, "args": [str(FAKE), "--name", "beta"]}
    fake_api.push(Reply([text("done")]))
    app, out, _events = line_app(
        fake_api,
        workspace,
        "use beta\n",
        "--mcp-config",
        json.dumps({"mcpServers": {"beta": beta}}),
    )
    assert await asyncio.wait_for(app.run(), 60) == 0
    assert "mcp__beta__echo" in [t["name"] for t in fake_api.requests[0]["tools"]]
    printed = out.getvalue()
    assert "MCP: this project's new servers wait for your answer: alpha." in printed
    assert "New MCP server found" not in printed
