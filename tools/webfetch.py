"""WebFetch ``{url, prompt}``: fetch a page, turn it into markdown, answer ``prompt`` over it.

The page never reaches the main conversation: the small fast model (``ctx.ask_model``) reads
it and answers the prompt, and only that answer is the result. Pages are cached for 15
minutes. The gate asks before the first fetch of a domain in default mode (rules
``WebFetch(domain:example.com)``); see :mod:`tools.web_http` for the URL, redirect and size
rules.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tools.base import ResolvedPath, ToolContext, ToolError, ToolResult
from tools.textfile import human_size
from tools.web_http import Page, Redirect, fetch, normalise_url
from tools.web_page import page_text

CACHE_SECONDS = 15 * 60
CACHE_ENTRIES = 64
MAX_BODY_BYTES = 10 * 1024 * 1024
"""The most of a response body read; the rest is cut."""
MAX_PAGE_CHARS = 100_000
"""The most of a page's markdown the small model reads."""
MAX_RAW_CHARS = 20_000
"""The most of a page returned as it is when there is no small model to ask."""
FETCH_TIMEOUT_S = 60.0

SIDE_PROMPT = """Web page content ({url}):
---
{content}
---

{prompt}

Answer from the content above only, concisely. Quote exact wording where it matters (code,
commands, error messages, version numbers); do not reproduce long passages of the page, and
say so plainly when the page does not answer the question."""


@dataclass(frozen=True)
class _Cached:
    at: float
    url: str
    status: int
    text: str
    note: str


class PageCache:
    """Pages by URL for ``CACHE_SECONDS`` (at most ``CACHE_ENTRIES``, oldest dropped first)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._pages: OrderedDict[str, _Cached] = OrderedDict()

    def get(self, url: str) -> _Cached | None:
        hit = self._pages.get(url)
        if hit is None or self.clock() - hit.at > CACHE_SECONDS:
            self._pages.pop(url, None)
            return None
        return hit

    def put(self, url: str, entry: _Cached) -> None:
        self._pages[url] = entry
        self._pages.move_to_end(url)
        while len(self._pages) > CACHE_ENTRIES:
            self._pages.popitem(last=False)


def redirect_message(r: Redirect, prompt: str) -> str:
    """What the model reads when a page redirects to another host (not followed)."""
    return (
        f"REDIRECT DETECTED: {r.url} redirects (HTTP {r.status}) to a different host: "
        f"{r.location}\nIt was not followed. To read it, call WebFetch again with "
        f'url="{r.location}" and the same prompt ("{prompt}").'
    )


class WebFetchTool:
    """The WebFetch tool (Claude Code's name and input fields)."""

    name = "WebFetch"
    description = (
        "Fetches content from a URL and answers a prompt about it.\n"
        "- Takes a URL and a prompt; fetches the page, converts HTML to markdown and has a "
        "small, fast model answer the prompt over it. The result is that answer, not the "
        "page: say in the prompt exactly what you need from the page.\n"
        "- The URL must be a fully-formed valid URL. HTTP URLs are upgraded to HTTPS, "
        "except for localhost and private-network hosts.\n"
        "- When a URL redirects to a different host, the tool says so and gives the "
        "redirect URL: call WebFetch again with it.\n"
        "- Read-only: it changes nothing. Results are cached for 15 minutes, so fetching "
        "the same URL again is cheap. Large pages are cut.\n"
        "- Prefer a specialised tool (an MCP tool for the site) when one is available."
    )
    input_schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "url": {"type": "string", "format": "uri", "description": "The URL to fetch"},
            "prompt": {"type": "string", "description": "What to find out from the page"},
        },
        "required": ["url", "prompt"],
        "additionalProperties": False,
    }
    read_only = True

    def __init__(
        self,
        cache: PageCache | None = None,
        timeout: float = FETCH_TIMEOUT_S,
        max_bytes: int = MAX_BODY_BYTES,
    ) -> None:
        self.cache = cache or PageCache()
        self.timeout = timeout
        self.max_bytes = max_bytes

    def paths(self, args: dict[str, Any], ctx: ToolContext) -> list[ResolvedPath]:
        """No file paths: the permission layer matches the URL's domain."""
        return []

    def summary(self, args: dict[str, Any]) -> str:
        """The URL."""
        return str(args.get("url", ""))[:200]

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Fetch (or take from the cache) and answer; see the module docstring."""
        url, prompt = normalise_url(args["url"]), str(args["prompt"]).strip()
        if not prompt:
            raise ToolError("prompt must say what to find out from the page")
        entry = self.cache.get(url)
        if entry is None:
            got = await fetch(url, max_bytes=self.max_bytes, timeout=self.timeout)
            if isinstance(got, Redirect):
                return ToolResult(redirect_message(got, prompt), display=_display(got.url, 0))
            entry = self._entry(got)
            if got.status < 400:
                self.cache.put(url, entry)
        if entry.status >= 400:
            excerpt = entry.text[:2000] or "(empty body)"
            raise ToolError(f"{entry.url} answered HTTP {entry.status}.\n\n{excerpt}")
        header = f"{entry.url} (HTTP {entry.status}{entry.note})"
        if not entry.text:
            return ToolResult(f"{header}: the page has no text.", display=_display(entry.url, 0))
        if ctx.ask_model is None:
            cut = entry.text[:MAX_RAW_CHARS]
            more = "\n[page cut]" if len(entry.text) > MAX_RAW_CHARS else ""
            return ToolResult(f"{header}\n\n{cut}{more}", display=_display(entry.url, len(cut)))
        content = entry.text[:MAX_PAGE_CHARS]
        answer = await ctx.ask_model(
            SIDE_PROMPT.format(url=entry.url, content=content, prompt=prompt)
        )
        display = _display(entry.url, len(entry.text))
        return ToolResult(f"{header}\n\n{answer.strip() or '(no answer)'}", display=display)

    def _entry(self, page: Page) -> _Cached:
        text = page_text(page.content_type, page.charset, page.body)
        note = f", {human_size(len(page.body))}"
        if page.truncated:
            note += f", cut at {human_size(self.max_bytes)}"
        if len(text) > MAX_PAGE_CHARS:
            note += f", markdown cut to {MAX_PAGE_CHARS} of {len(text)} characters"
        return _Cached(self.cache.clock(), page.url, page.status, text, note)


def _display(url: str, chars: int) -> dict[str, Any]:
    return {"kind": "webfetch", "url": url, "chars": chars}


TOOL = WebFetchTool()
