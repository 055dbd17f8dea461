"""MCP tools through the real loop, the real SDK and the fake Messages API: every request the
API sees is valid (``fake_api.violations``), whatever the server does.

The session is built as ``agent.open.open_session`` builds it (default tools, the MCP manager
registered as the session's extension), over our fake stdio server.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
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
from tests.agent.mcp.servers import config_of, fake
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.helpers.events import Events
from tests.helpers.wait import until
from tools import default_tools


def make_session(
    fake_api: FakeAnthropic, tmp_path: Path, *, allow: tuple[str, ...] = ("mcp__fake",), **kw: Any
) -> tuple[Session, McpManager, Events]:
    events = Events()
    policy = Policy(allow=[Rule.parse(r) for r in allow], **kw)
    config = SessionConfig(
        workspace=tmp_path, model="claude-sonnet-5-5", policy=policy, headless=True
    )
    model = AnthropicModel("claude-sonnet-5-5", api_key="t", base_url=fake_api.base_url)
    session = Session(config, model, default_tools(), events)
    manager = McpManager(
        config_of(fake("fake", log=tmp_path / "server.log")), wait_at_first_call=True
    )
    manager.bind(session.tools, session.emit)
    session.add_extension(manager)
    manager.start()
    return session, manager, events


@pytest.fixture
async def setup(fake_api: FakeAnthropic, tmp_path: Path) -> AsyncIterator[Any]:
    session, manager, events = make_session(fake_api, tmp_path)
    yield session, manager, events
    await session.close()
    assert manager._thread is None  # the session's close stopped the servers and their loop


def results_of(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for b in request["messages"][-1]["content"] if b["type"] == "tool_result"]


def tool_names(request: dict[str, Any]) -> list[str]:
    return [t["name"] for t in request.get("tools", [])]


async def test_the_model_calls_an_mcp_tool_and_the_next_request_is_valid(
    fake_api: FakeAnthropic, setup: Any
) -> None:
    session, _manager, events = setup
    fake_api.push(
        Reply(
            [
                tool_use("t1", "mcp__fake__echo", {"text": "hi"}),
                tool_use("t2", "mcp__fake__picture", {}),
            ],
            "tool_use",
        ),
        Reply([text("done")]),
    )
    session.submit(ops.SubmitPrompt("use the server"))
    await session.wait_idle()
    assert fake_api.violations == []
    first, second = fake_api.requests
    names = tool_names(first)
    builtin = [t.name for t in default_tools()]
    assert names[: len(builtin)] == builtin
    mcp = names[len(builtin) :]
    assert mcp == sorted(mcp) and "mcp__fake__echo" in mcp
    assert tool_names(second) == names  # nothing changed: byte-identical tool list
    assert first["tools"] == second["tools"]
    echo, picture = results_of(second)
    assert echo["tool_use_id"] == "t1" and "echo: hi" in str(echo["content"])
    assert not echo.get("is_error")
    assert [b["type"] for b in picture["content"]] == ["text", "image"]
    assert events.of(ev.TurnFinished)[-1].subtype == "success"


async def test_escape_during_a_slow_mcp_call_cancels_it_and_keeps_the_history_valid(
    fake_api: FakeAnthropic, setup: Any, tmp_path: Path
) -> None:
    session, manager, events = setup
    fake_api.push(Reply([tool_use("h1", "mcp__fake__hang", {})], "tool_use"))
    session.submit(ops.SubmitPrompt("wait for it"))
    await events.wait_for(ev.ToolCallRunning)
    log = tmp_path / "server.log"
    await until(lambda: "call hang" in _read(log))
    session.submit(ops.Interrupt())
    await session.wait_idle()
    assert events.of(ev.TurnFinished)[-1].subtype == "interrupted"
    last = session.history[-1]
    assert last.role == "user"
    result = last.content[0]
    assert result.tool_use_id == "h1" and result.is_error
    # the SDK told the server: it saw its call cancelled
    await until(lambda: "cancelled hang" in _read(log))
    # the server still serves, and the next prompt makes a valid request
    fake_api.push(Reply([tool_use("e1", "mcp__fake__echo", {"text": "again"})], "tool_use"))
    fake_api.push(Reply([text("ok")]))
    session.submit(ops.SubmitPrompt("go on"))
    await session.wait_idle()
    assert fake_api.violations == []
    assert "echo: again" in str(results_of(fake_api.requests[-1])[0]["content"])
    assert manager.connections["fake"].state == "connected"


async def test_a_crash_mid_call_is_an_error_result_and_the_next_call_says_it_is_down(
    fake_api: FakeAnthropic, setup: Any
) -> None:
    session, manager, events = setup
    fake_api.push(
        Reply([tool_use("c1", "mcp__fake__crash", {})], "tool_use"),
        Reply([tool_use("c2", "mcp__fake__echo", {"text": "x"})], "tool_use"),
        Reply([text("I see, it is down.")]),
    )
    session.submit(ops.SubmitPrompt("crash it"))
    await session.wait_idle()
    assert fake_api.violations == []
    crash = results_of(fake_api.requests[1])[0]
    assert crash["is_error"] and "/mcp" in str(crash["content"])
    down = results_of(fake_api.requests[2])[0]
    assert down["is_error"]
    assert "fake" in str(down["content"]) and "/mcp" in str(down["content"])
    # its tools are no longer offered, from the call after it crashed
    assert "mcp__fake__echo" not in tool_names(fake_api.requests[2])
    said = [e.message for e in events.of(ev.Error) if e.message.startswith("MCP server fake")]
    assert said and "failed" in said[0]
    assert manager.connections["fake"].state == "failed"


async def test_list_changed_refreshes_the_tools_between_model_calls(
    fake_api: FakeAnthropic, setup: Any
) -> None:
    session, manager, _events = setup
    fake_api.push(
        Reply([tool_use("a1", "mcp__fake__add_tool", {})], "tool_use"),
        Reply([text("added it")]),
    )
    session.submit(ops.SubmitPrompt("add a tool"))
    await session.wait_idle()
    conn = manager.connections["fake"]
    await until(lambda: any(t.name == "added" for t in conn.tools))
    fake_api.push(Reply([tool_use("n1", "mcp__fake__added", {})], "tool_use"))
    fake_api.push(Reply([text("it works")]))
    session.submit(ops.SubmitPrompt("use the new tool"))
    await session.wait_idle()
    assert fake_api.violations == []
    before, after = tool_names(fake_api.requests[0]), tool_names(fake_api.requests[2])
    assert "mcp__fake__added" not in before
    assert set(after) - set(before) == {"mcp__fake__added"}
    mcp_after = [n for n in after if n.startswith("mcp__")]
    assert mcp_after == sorted(mcp_after)
    assert "I was added" in str(results_of(fake_api.requests[3])[0]["content"])


@pytest.mark.parametrize(
    ("rules", "deny", "ran"),
    [
        (("mcp__fake",), (), True),
        (("mcp__fake__*",), (), True),
        (("mcp__fake__echo",), (), True),
        (("mcp__fake__hang",), (), False),
        ((), (), False),
        (("mcp__fake",), ("mcp__fake__echo",), False),
    ],
    ids=["server", "server-star", "tool", "other-tool", "no-rule", "deny-beats-allow"],
)
async def test_permission_rules_on_mcp_names(
    fake_api: FakeAnthropic,
    tmp_path: Path,
    rules: tuple[str, ...],
    deny: tuple[str, ...],
    ran: bool,
) -> None:
    session, _manager, _events = make_session(
        fake_api, tmp_path, allow=rules, deny=[Rule.parse(r) for r in deny]
    )
    try:
        fake_api.push(
            Reply([tool_use("p1", "mcp__fake__echo", {"text": "perm"})], "tool_use"),
            Reply([text("fine")]),
        )
        session.submit(ops.SubmitPrompt("echo"))
        await session.wait_idle()
    finally:
        await session.close()
    assert fake_api.violations == []
    result = results_of(fake_api.requests[1])[0]
    assert ("echo: perm" in str(result["content"])) is ran
    assert bool(result.get("is_error")) is not ran


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return ""


async def test_an_at_server_uri_mention_attaches_the_resource(
    fake_api: FakeAnthropic, setup: Any
) -> None:
    session, manager, _events = setup
    await manager.wait_started()
    fake_api.push(Reply([text("read it")]))
    session.submit(ops.SubmitPrompt("summarise @fake:memo://notes and @nobody:x please"))
    await session.wait_idle()
    assert fake_api.violations == []
    blocks = [b["text"] for b in fake_api.requests[0]["messages"][-1]["content"]]
    assert blocks[0] == "summarise @fake:memo://notes and @nobody:x please"
    attached = [b for b in blocks if b.startswith("Contents of @")]
    assert len(attached) == 1
    assert "@fake:memo://notes" in attached[0] and "the notes' text" in attached[0]


async def test_a_missing_resource_is_a_note_and_the_prompt_still_goes(
    fake_api: FakeAnthropic, setup: Any
) -> None:
    session, manager, _events = setup
    await manager.wait_started()
    fake_api.push(Reply([text("ok")]))
    session.submit(ops.SubmitPrompt("look at @fake:memo://missing"))
    await session.wait_idle()
    assert fake_api.violations == []
    blocks = [b["text"] for b in fake_api.requests[0]["messages"][-1]["content"]]
    assert any("@fake:memo://missing could not be read" in b for b in blocks)


async def test_read_only_annotated_mcp_calls_run_in_parallel(
    fake_api: FakeAnthropic, setup: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two ``barrier`` calls each wait for the other: they finish only if they run at once
    (one at a time, the first would wait until MCP_TOOL_TIMEOUT)."""
    monkeypatch.setenv("MCP_TOOL_TIMEOUT", "20000")
    session, _manager, _events = setup
    fake_api.push(
        Reply(
            [
                tool_use("b1", "mcp__fake__barrier", {"n": 2}),
                tool_use("b2", "mcp__fake__barrier", {"n": 2}),
            ],
            "tool_use",
        ),
        Reply([text("both met")]),
    )
    session.submit(ops.SubmitPrompt("meet"))
    await session.wait_idle()
    assert fake_api.violations == []
    first, second = results_of(fake_api.requests[1])
    assert (first["tool_use_id"], second["tool_use_id"]) == ("b1", "b2")
    assert "met 2" in str(first["content"]) and "met 2" in str(second["content"])
