"""eddy as the client of a server no one here wrote: the MCP reference server
(``@modelcontextprotocol/server-everything`` from npm, installed by .ci/run) through the real
loop, the real SDK and the fake Messages API. It offers its roots, elicitation and progress
tools only to a client that declares those capabilities."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent import events as ev
from agent import ops
from agent.mcp.manager import McpManager
from agent.model.anthropic import AnthropicModel
from agent.permissions.policy import Policy, Rule
from agent.session.config import SessionConfig
from agent.session.core import Session
from tests.agent.mcp.servers import EVERYTHING, config_of, everything
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.helpers.events import Events
from tools import default_tools

pytestmark = pytest.mark.skipif(
    not EVERYTHING.exists(),
    reason="server-everything is not installed (.ci/run installs it with npm)",
)
TOOL = "mcp__everything__"


def session_with_everything(
    fake_api: FakeAnthropic, workspace: Path, *, headless: bool
) -> tuple[Session, Events]:
    events = Events()
    config = SessionConfig(
        workspace=workspace,
        model="claude-sonnet-5-5",
        policy=Policy(allow=[Rule.parse("mcp__everything")]),
        headless=headless,
    )
    model = AnthropicModel("claude-sonnet-5-5", api_key="t", base_url=fake_api.base_url)
    session = Session(config, model, default_tools(), events)
    roots = session.ctx.roots
    manager = McpManager(config_of(everything()), wait_at_first_call=True, roots=roots)
    manager.bind(session.tools, session.emit)
    session.add_extension(manager)
    manager.start()
    return session, events


def result_of(request: dict[str, Any]) -> dict[str, Any]:
    (result,) = [b for b in request["messages"][-1]["content"] if b["type"] == "tool_result"]
    return result


async def test_the_reference_server_sees_the_roots_and_reports_progress(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    session, events = session_with_everything(fake_api, tmp_path, headless=True)
    fake_api.push(
        Reply(
            [
                tool_use("r1", f"{TOOL}get-roots-list", {}),
                tool_use(
                    "p1", f"{TOOL}trigger-long-running-operation", {"duration": 1, "steps": 2}
                ),
            ],
            "tool_use",
        ),
        Reply([text("ok")]),
    )
    session.submit(ops.SubmitPrompt("roots and a long job"))
    await session.wait_idle()
    await session.close()
    offered = [t["name"] for t in fake_api.requests[0]["tools"]]
    assert f"{TOOL}get-roots-list" in offered  # offered only to a client with roots
    assert f"{TOOL}trigger-elicitation-request" in offered  # ... and with elicitation
    roots, progress = (b for b in fake_api.requests[1]["messages"][-1]["content"])
    assert not roots.get("is_error") and tmp_path.resolve().as_uri() in json.dumps(roots)
    assert not progress.get("is_error")
    shown = [e.text for e in events.of(ev.ToolOutputDelta) if e.call_id == "p1"]
    assert shown and all(line.startswith("progress ") for line in shown), shown
    assert fake_api.violations == []


async def test_the_reference_servers_question_is_declined_in_headless(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    session, events = session_with_everything(fake_api, tmp_path, headless=True)
    fake_api.push(
        Reply([tool_use("e1", f"{TOOL}trigger-elicitation-request", {})], "tool_use"),
        Reply([text("ok")]),
    )
    session.submit(ops.SubmitPrompt("ask me"))
    await session.wait_idle()
    await session.close()
    result = result_of(fake_api.requests[1])
    assert "decline" in json.dumps(result).lower()
    said = "".join(e.text for e in events.of(ev.ToolOutputDelta) if e.call_id == "e1")
    assert "headless" in said
    assert events.of(ev.QuestionsAsked) == []
