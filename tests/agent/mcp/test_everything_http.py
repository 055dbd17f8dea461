"""eddy over the HTTP transports of a server no one here wrote: the MCP reference server
(``@modelcontextprotocol/server-everything`` from npm, installed by .ci/run) run in its
``streamableHttp`` and ``sse`` modes on a free loopback port. eddy connects over each, lists
its tools, calls one through the real loop and the fake Messages API, and a server killed
in the middle of a call ends that call as an is_error result (long before MCP_TOOL_TIMEOUT)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent import events as ev
from agent import ops
from agent.mcp.config import ServerConfig
from agent.mcp.manager import McpManager
from agent.model.anthropic import AnthropicModel
from agent.permissions.policy import Policy, Rule
from agent.session.config import SessionConfig
from agent.session.core import Session
from tests.agent.mcp.servers import EVERYTHING, config_of, listening
from tests.agent.mcp.test_http import free_port
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.helpers.events import Events
from tools import default_tools

pytestmark = pytest.mark.skipif(
    not EVERYTHING.exists(),
    reason="server-everything is not installed (.ci/run installs it with npm)",
)
TOOL = "mcp__everything__"
MODES = {"streamableHttp": ("http", "/mcp"), "sse": ("sse", "/sse")}


class Everything:
    """server-everything in one HTTP mode on a free port (its own process group)."""

    def __init__(self, mode: str, log: Path) -> None:
        self.port = free_port()
        kind, path = MODES[mode]
        self.config = ServerConfig(
            "everything", "user", "test", kind, url=f"http://127.0.0.1:{self.port}{path}"
        )
        self._log = log.open("wb")
        self.proc = subprocess.Popen(
            [str(EVERYTHING), mode],
            env={**os.environ, "PORT": str(self.port)},
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    async def ready(self) -> None:
        await listening(self.port, self.proc, "server-everything", 60)

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, 9)
        self.proc.wait()
        self._log.close()


@pytest.fixture(params=list(MODES))
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Everything]:
    srv = Everything(request.param, tmp_path / "everything.log")
    yield srv
    srv.kill()


def session_with(
    fake_api: FakeAnthropic, workspace: Path, config: ServerConfig
) -> tuple[Session, Events, McpManager]:
    events = Events()
    session_config = SessionConfig(
        workspace=workspace,
        model="claude-sonnet-5-5",
        policy=Policy(allow=[Rule.parse("mcp__everything")]),
        headless=True,
    )
    model = AnthropicModel("claude-sonnet-5-5", api_key="t", base_url=fake_api.base_url)
    session = Session(session_config, model, default_tools(), events)
    manager = McpManager(config_of(config), wait_at_first_call=True, roots=session.ctx.roots)
    manager.bind(session.tools, session.emit)
    session.add_extension(manager)
    manager.start()
    return session, events, manager


def results(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for b in request["messages"][-1]["content"] if b["type"] == "tool_result"]


async def test_eddy_lists_and_calls_the_reference_servers_tools_over_http_and_sse(
    fake_api: FakeAnthropic, tmp_path: Path, server: Everything
) -> None:
    await server.ready()
    session, _events, manager = session_with(fake_api, tmp_path, server.config)
    fake_api.push(
        Reply([tool_use("e1", f"{TOOL}echo", {"message": "over the wire"})], "tool_use"),
        Reply([text("ok")]),
    )
    session.submit(ops.SubmitPrompt("echo something"))
    await asyncio.wait_for(session.wait_idle(), 120)
    state = manager.connections["everything"].state
    await session.close()
    assert state == "connected"
    offered = [t["name"] for t in fake_api.requests[0]["tools"]]
    assert f"{TOOL}echo" in offered and f"{TOOL}get-sum" in offered, offered
    (echoed,) = results(fake_api.requests[1])
    assert not echoed.get("is_error"), echoed
    assert "over the wire" in json.dumps(echoed["content"])
    assert fake_api.violations == []


async def test_a_server_that_dies_mid_call_is_an_error_result_not_a_hang(
    fake_api: FakeAnthropic, tmp_path: Path, server: Everything, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCP_TOOL_TIMEOUT", "600000")  # the call must not wait for this
    await server.ready()
    session, events, _manager = session_with(fake_api, tmp_path, server.config)
    fake_api.push(
        Reply(
            [
                tool_use(
                    "p1", f"{TOOL}trigger-long-running-operation", {"duration": 300, "steps": 300}
                )
            ],
            "tool_use",
        ),
        Reply([text("ok")]),
    )
    session.submit(ops.SubmitPrompt("a long job"))
    await events.wait_until(
        lambda: any(e.call_id == "p1" for e in events.of(ev.ToolOutputDelta)), timeout=120
    )  # the call runs on the server: its first progress report came
    server.kill()
    await asyncio.wait_for(session.wait_idle(), 120)  # the deadline: no hang until 600 s
    await session.close()
    (ended,) = results(fake_api.requests[1])
    assert ended.get("is_error") is True, ended
    said = json.dumps(ended["content"])
    assert "everything" in said and ("lost" in said or "stopped" in said), said
    assert fake_api.violations == []
