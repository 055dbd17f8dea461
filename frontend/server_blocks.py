"""What the front ends show of the tools the API runs itself (the web search).

A response that searched holds ``server_tool_use`` (name ``web_search``, input ``{query}``)
and ``web_search_tool_result`` blocks. They reach the front ends inside the
``AssistantMessage`` event (live, and when a resumed history is replayed), and every front
end shows them through ``server_tool_lines``: one line per search, with its first results.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from frontend.sanitize import sanitize

RESULTS_SHOWN = 5


def _results(block: Mapping[str, Any]) -> tuple[list[str], str | None]:
    """(result lines, error code) of a ``web_search_tool_result`` block."""
    content = block.get("content")
    if isinstance(content, Mapping):  # web_search_tool_result_error
        return [], str(content.get("error_code") or "error")
    lines = []
    for item in content or []:
        if not isinstance(item, Mapping) or item.get("type") != "web_search_result":
            continue
        url = str(item.get("url", ""))
        host = urlsplit(url).hostname or url
        title = " ".join(str(item.get("title") or url).split())[:100]
        lines.append(sanitize(f"{title} ({host})"))
    return lines, None


def server_tool_lines(content: Sequence[Any]) -> list[tuple[str, list[str]]]:
    """For each server tool call in an assistant message's ``content`` (API blocks): its
    headline and the lines under it, e.g. ``('Web search "textual markdown": 7 results',
    ['Markdown - Textual (textual.textualize.io)', ...])``."""
    calls = _ServerCalls()
    for block in content:
        if isinstance(block, Mapping):
            calls.read(block)
    return calls.lines()


class _ServerCalls:
    """The server tool calls of one message, in order, and what each one's result says."""

    def __init__(self) -> None:
        self.calls: dict[str, tuple[str, str]] = {}
        """Each call's tool name and query."""
        self.order: list[str] = []
        self.done: dict[str, tuple[str, list[str]]] = {}
        """Each ended call's headline and lines."""

    def read(self, block: Mapping[str, Any]) -> None:
        """Take one block of the message (those of no server tool are passed over)."""
        kind = str(block.get("type", ""))
        if kind == "server_tool_use":
            self._use(block)
        elif kind == "web_search_tool_result":
            self._ended(str(block.get("tool_use_id")), self._search_result(block))
        elif kind.endswith("_tool_result") and kind != "tool_result":
            call_id = str(block.get("tool_use_id"))
            name, _ = self.calls.get(call_id, (kind.removesuffix("_tool_result"), ""))
            self._ended(call_id, (f"Server tool {sanitize(name)} ran", []))

    def _use(self, block: Mapping[str, Any]) -> None:
        call_id = str(block.get("id"))
        raw = block.get("input")
        inputs: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
        query = " ".join(str(inputs.get("query", "")).split())[:120]
        self.calls[call_id] = (str(block.get("name", "")), query)
        self.order.append(call_id)

    def _search_result(self, block: Mapping[str, Any]) -> tuple[str, list[str]]:
        """A web search's headline (its query, how many results or why it failed) and its
        first results."""
        _name, query = self.calls.get(str(block.get("tool_use_id")), ("web_search", ""))
        lines, error = _results(block)
        what = f'Web search "{sanitize(query)}"' if query else "Web search"
        if error is not None:
            return f"{what} failed: {sanitize(error)}", []
        n = len(lines)
        head = f"{what}: {n} result{'' if n == 1 else 's'}"
        more = [f"… {n - RESULTS_SHOWN} more"] if n > RESULTS_SHOWN else []
        return head, lines[:RESULTS_SHOWN] + more

    def _ended(self, call_id: str, shown: tuple[str, list[str]]) -> None:
        self.done[call_id] = shown
        if call_id not in self.order:
            self.order.append(call_id)

    def lines(self) -> list[tuple[str, list[str]]]:
        """Each call's headline and lines, in order; a call with no result says so (a paused
        turn continued elsewhere, or one cut short)."""
        out: list[tuple[str, list[str]]] = []
        for call_id in self.order:
            if call_id in self.done:
                out.append(self.done[call_id])
                continue
            name, query = self.calls[call_id]
            label = f'Web search "{sanitize(query)}"' if name == "web_search" else name
            out.append((f"{label}: no result", []))
        return out
