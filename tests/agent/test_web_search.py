"""WebSearch: the API's server-side search in every request, its blocks round-tripped and shown
by every front end, pause_turn continued, and a clear error where the provider has none."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent import events as ev
from agent import ops
from agent.messages import assistant, check_invariant, message_from_param
from agent.model.anthropic import AnthropicModel
from agent.model.web_search import server_search_problem, server_tools, web_search_param
from agent.permissions.policy import Policy, Rule
from cli.main import parse_launch
from frontend.server_blocks import server_tool_lines
from frontend.session_open import build_session
from headless.run import stderr_line
from plain.render import Renderer
from plain.style import Painter
from tests.fakes.fake_api import FakeAnthropic, Reply, text
from tests.fakes.scripted import ScriptedModel, tool_call
from tests.helpers.events import Events

CALL = {
    "type": "server_tool_use",
    "id": "srvtoolu_1",
    "name": "web_search",
    "input": {"query": "textual markdown stream"},
}
FOUND = {
    "type": "web_search_tool_result",
    "tool_use_id": "srvtoolu_1",
    "content": [
        {
            "type": "web_search_result",
            "url": f"https://textual.textualize.io/widgets/markdown/{i}",
            "title": f"Markdown {i} - Textual",
            "encrypted_content": "enc",
            "page_age": None,
        }
        for i in range(7)
    ],
}
CITED = {
    "type": "text",
    "text": "Use Markdown.get_stream.",
    "citations": [
        {
            "type": "web_search_result_location",
            "url": "https://textual.textualize.io/widgets/markdown/0",
            "title": "Markdown 0 - Textual",
            "encrypted_index": "idx",
            "cited_text": "get_stream",
        }
    ],
}


def plain_block(block: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in block.items() if k != "cache_control"}


def test_the_search_tool_follows_the_permission_rules() -> None:
    assert web_search_param(Policy()) == {
        "type": "web_search_20250305",
        "name": "web_search",
        "max_uses": 8,
    }
    allow = Policy(allow=[Rule.parse("WebSearch(domain:docs.python.org)")])
    assert web_search_param(allow)["allowed_domains"] == ["docs.python.org"]
    deny = Policy(deny=[Rule.parse("WebSearch(domain:spam.example)")])
    assert web_search_param(deny)["blocked_domains"] == ["spam.example"]
    both = Policy(allow=allow.allow, deny=deny.deny)
    assert "blocked_domains" not in web_search_param(both)  # the API takes one list
    assert web_search_param(Policy(deny=[Rule.parse("WebSearch")])) is None
    assert server_tools(Policy(), {"CLAUDE_CODE_USE_BEDROCK": "1"}) == []
    assert server_search_problem({}) is None


async def test_a_search_round_trips_unchanged_and_every_request_is_valid(
    fake_api: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CLAUDE_CODE_USE_BEDROCK", raising=False)
    fake_api.push(Reply([CALL, FOUND, CITED]), Reply([text("You're welcome.")]))
    model = AnthropicModel("claude-sonnet-5-5", api_key="t", base_url=fake_api.base_url)
    events = Events()
    args = parse_launch(["--model", "claude-sonnet-5-5"]).replace(cwd=tmp_path)
    opened = build_session(args, events, headless=True, model=model, persist=False)
    session, problems = opened.session, opened.problems
    assert problems == []
    for prompt in ("how do I stream markdown in textual?", "thanks"):
        session.submit(ops.SubmitPrompt(prompt))
        await session.wait_idle()
    await session.close()
    assert fake_api.violations == []
    for body in fake_api.requests:
        check_invariant([message_from_param(m) for m in body["messages"]])
        assert body["tools"][-1]["type"] == "web_search_20250305"
    kept = [plain_block(b) for b in fake_api.requests[1]["messages"][1]["content"]]
    assert kept == [CALL, FOUND, CITED]  # citations and encrypted content unchanged
    shown = events.of(ev.AssistantMessage)[0]
    assert server_tool_lines(shown.message["content"])[0][0].startswith(
        'Web search "textual markdown stream": 7 results'
    )


async def test_a_pause_between_the_call_and_its_result_is_continued_and_shown_whole(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    fake_api.push(Reply([text("Searching."), CALL], "pause_turn"), Reply([FOUND, CITED]))
    model = AnthropicModel("claude-sonnet-5-5", api_key="t", base_url=fake_api.base_url)
    events = Events()
    args = parse_launch([]).replace(cwd=tmp_path)
    opened = build_session(args, events, headless=True, model=model, persist=False)
    session = opened.session
    session.submit(ops.SubmitPrompt("search"))
    await session.wait_idle()
    await session.close()
    assert fake_api.violations == []
    assert fake_api.requests[1]["messages"][-1]["role"] == "assistant"  # the paused response
    (message,) = events.of(ev.AssistantMessage)
    lines = Renderer(Painter(False)).render(message)
    assert any('⌕ Web search "textual markdown stream": 7 results' in line for line in lines)
    assert any("Markdown 0 - Textual (textual.textualize.io)" in line for line in lines)
    assert any("… 2 more" in line for line in lines)
    assert stderr_line(message, "text") == 'eddy: Web search "textual markdown stream": 7 results'


def test_a_failed_search_and_a_call_without_result_say_so() -> None:
    failed = {
        **FOUND,
        "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"},
    }
    assert server_tool_lines([CALL, failed]) == [
        ('Web search "textual markdown stream" failed: max_uses_exceeded', [])
    ]
    assert server_tool_lines([CALL]) == [('Web search "textual markdown stream": no result', [])]
    assert server_tool_lines([text("no search")]) == []


async def test_on_bedrock_websearch_is_a_client_tool_that_says_why_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CODE_USE_BEDROCK", "1")
    model = ScriptedModel([assistant(tool_call("s1", "WebSearch", query="eddy docs")), "ok"])
    events = Events()
    args = parse_launch([]).replace(cwd=tmp_path)
    opened = build_session(args, events, headless=True, model=model, persist=False)
    session = opened.session
    assert not any(t.get("type") == "web_search_20250305" for t in session.tools.params())
    session.submit(ops.SubmitPrompt("search the web"))
    await session.wait_idle()
    await session.close()
    (finished,) = events.of(ev.ToolCallFinished)
    assert finished.is_error and "not available on Amazon Bedrock" in str(finished.content)
    check_invariant(model.requests[-1].messages)
