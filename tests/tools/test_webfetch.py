"""WebFetch alone, against a real HTTP server on 127.0.0.1 (no mocks of the HTTP stack)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.permissions.policy import Policy, Rule
from tests.tools.web_server import WebServer
from tools.base import ToolContext, ToolError
from tools.web_http import is_private_host, normalise_url
from tools.webfetch import CACHE_SECONDS, PageCache, WebFetchTool


@pytest.fixture
def web() -> Iterator[WebServer]:
    with WebServer() as server:
        yield server


class Asked:
    """A stand-in for the small fast model: records each prompt, answers with a fixed text."""

    def __init__(self) -> None:
        self.prompts: list[str] = []

    async def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        return "spin it three times"


def context(tmp_path: Path, asked: Asked | None = None) -> ToolContext:
    return ToolContext(tmp_path, ask_model=asked)


async def test_an_html_page_is_markdown_for_the_small_model_and_only_its_answer_returns(
    web: WebServer, tmp_path: Path
) -> None:
    asked = Asked()
    result = await WebFetchTool().run(
        {"url": web.url("/page"), "prompt": "How do I spin?"}, context(tmp_path, asked)
    )
    assert not result.is_error
    assert "spin it three times" in result.content and "HTTP 200" in result.content
    (prompt,) = asked.prompts
    assert "# Widget API" in prompt and "`widget.spin(3)`" in prompt
    assert "[three times](/more)" in prompt and "How do I spin?" in prompt
    assert "do not show" not in prompt and "color:red" not in prompt


async def test_without_a_small_model_the_page_text_is_returned_capped(
    web: WebServer, tmp_path: Path
) -> None:
    result = await WebFetchTool().run({"url": web.url("/text"), "prompt": "?"}, context(tmp_path))
    assert "just text" in result.content


async def test_a_redirect_on_the_same_host_is_followed(web: WebServer, tmp_path: Path) -> None:
    asked = Asked()
    await WebFetchTool().run({"url": web.url("/same"), "prompt": "q"}, context(tmp_path, asked))
    assert web.hits["/same"] == 1 and web.hits["/page"] == 1
    assert "Widget API" in asked.prompts[0]


async def test_a_redirect_to_another_host_is_returned_to_the_model_not_followed(
    web: WebServer, tmp_path: Path
) -> None:
    asked = Asked()
    result = await WebFetchTool().run(
        {"url": web.url("/other"), "prompt": "q"}, context(tmp_path, asked)
    )
    assert not result.is_error and asked.prompts == []
    assert "REDIRECT DETECTED" in result.content
    assert web.url("/page", host="localhost") in result.content
    assert web.hits["/page"] == 0


async def test_a_huge_page_is_cut_at_the_byte_cap(tmp_path: Path) -> None:
    with WebServer(huge_bytes=3_000_000) as web:
        asked = Asked()
        tool = WebFetchTool(max_bytes=100_000)
        result = await tool.run({"url": web.url("/huge"), "prompt": "q"}, context(tmp_path, asked))
    assert "cut at" in result.content
    assert len(asked.prompts[0]) < 110_000


async def test_binary_content_is_an_error_not_a_dump(web: WebServer, tmp_path: Path) -> None:
    with pytest.raises(ToolError, match="binary.*image/png"):
        await WebFetchTool().run({"url": web.url("/image"), "prompt": "q"}, context(tmp_path))


async def test_html_served_as_octet_stream_is_sniffed_and_read_as_a_page(
    web: WebServer, tmp_path: Path
) -> None:
    asked = Asked()
    result = await WebFetchTool().run(
        {"url": web.url("/octet-page"), "prompt": "How do I spin?"}, context(tmp_path, asked)
    )
    assert not result.is_error and "spin it three times" in result.content
    (prompt,) = asked.prompts
    assert "# Widget API" in prompt and "do not show" not in prompt


async def test_text_served_as_octet_stream_is_read_and_binary_still_refused(
    web: WebServer, tmp_path: Path
) -> None:
    result = await WebFetchTool().run(
        {"url": web.url("/octet-text"), "prompt": "?"}, context(tmp_path)
    )
    assert "plain words, ünïcode" in result.content
    with pytest.raises(ToolError, match="binary.*application/octet-stream"):
        await WebFetchTool().run(
            {"url": web.url("/octet-binary"), "prompt": "q"}, context(tmp_path)
        )


async def test_a_404_is_an_error_with_the_status(web: WebServer, tmp_path: Path) -> None:
    asked = Asked()
    with pytest.raises(ToolError, match="HTTP 404") as err:
        await WebFetchTool().run(
            {"url": web.url("/missing"), "prompt": "q"}, context(tmp_path, asked)
        )
    assert "No such page" in str(err.value) and asked.prompts == []


async def test_a_slow_server_is_stopped_at_the_time_cap(web: WebServer, tmp_path: Path) -> None:
    tool = WebFetchTool(timeout=0.3)
    with pytest.raises(ToolError, match="longer than 0.3 s"):
        await tool.run({"url": web.url("/slow"), "prompt": "q"}, context(tmp_path))
    assert web.slow_started.is_set()


async def test_a_connection_refused_is_an_error(tmp_path: Path) -> None:
    with WebServer() as web:
        url = web.url("/page")
    with pytest.raises(ToolError, match="could not fetch"):
        await WebFetchTool().run({"url": url, "prompt": "q"}, context(tmp_path))


async def test_pages_are_cached_for_fifteen_minutes(web: WebServer, tmp_path: Path) -> None:
    now = [1000.0]
    tool = WebFetchTool(cache=PageCache(clock=lambda: now[0]))
    args = {"url": web.url("/page"), "prompt": "q"}
    ctx = context(tmp_path, Asked())
    await tool.run(args, ctx)
    now[0] += CACHE_SECONDS - 1
    await tool.run({**args, "prompt": "another question"}, ctx)
    assert web.hits["/page"] == 1
    now[0] += 2
    await tool.run(args, ctx)
    assert web.hits["/page"] == 2


def test_http_is_upgraded_except_for_loopback_and_private_hosts() -> None:
    assert normalise_url("http://example.com/a?b=1") == "https://example.com/a?b=1"
    assert normalise_url("http://127.0.0.1:8000/x") == "http://127.0.0.1:8000/x"
    assert normalise_url("http://localhost:3000/") == "http://localhost:3000/"
    assert normalise_url("http://192.168.1.20/") == "http://192.168.1.20/"
    assert normalise_url("http://[::1]:80/") == "http://[::1]:80/"
    assert is_private_host("10.1.2.3") and not is_private_host("8.8.8.8")
    for bad in ("ftp://example.com/", "example.com", "https://u:p@example.com/", "file:///etc"):
        with pytest.raises(ToolError):
            normalise_url(bad)


def test_the_first_fetch_of_a_domain_asks_and_offers_that_domains_rule(tmp_path: Path) -> None:
    tool, ctx = WebFetchTool(), context(tmp_path)
    args = {"url": "https://docs.example.com/x", "prompt": "q"}
    decision = Policy().check(tool, args, ctx)
    assert decision.verdict == "ask" and decision.rule == "WebFetch(domain:docs.example.com)"
    allowed = Policy(allow=[Rule.parse("WebFetch(domain:example.com)")])
    assert allowed.check(tool, args, ctx).verdict == "allow"
    assert allowed.check(tool, {**args, "url": "https://example.org/"}, ctx).verdict == "ask"
    denied = Policy(mode="bypassPermissions", deny=[Rule.parse("WebFetch(domain:example.com)")])
    assert denied.check(tool, args, ctx).verdict == "deny"
    assert Policy(mode="plan").check(tool, args, ctx).verdict == "ask"  # reads: not refused
    assert Policy(allow=[Rule.parse("WebFetch")]).check(tool, args, ctx).verdict == "allow"
