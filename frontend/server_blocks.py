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


def server_tool_lines(content: Sequence[Any]) -> list[tuple[str, list[str]]]:  # noqa: C901
    """For each server tool call in an assistant message's ``content`` (API blocks): its
    headline and the lines under it, e.g. ``('Web search "textual markdown": 7 results',
    ['Markdown - Textual (textual.textualize.io)', ...])``."""
    calls: dict[str, tuple[str, str]] = {}
    out: list[tuple[str, list[str]]] = []
    order: list[str] = []
    done: dict[str, tuple[str, list[str]]] = {}
    for block in content:
        if not isinstance(block, Mapping):
            continue
        kind = str(block.get("type", ""))
        if kind == "server_tool_use":
            call_id = str(block.get("id"))
            raw = block.get("input")
            inputs: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
            query = " ".join(str(inputs.get("query", "")).split())[:120]
            calls[call_id] = (str(block.get("name", "")), query)
            order.append(call_id)
        elif kind == "web_search_tool_result":
            call_id = str(block.get("tool_use_id"))
            name, query = calls.get(call_id, ("web_search", ""))
            lines, error = _results(block)
            what = f'Web search "{sanitize(query)}"' if query else "Web search"
            if error is not None:
                done[call_id] = (f"{what} failed: {sanitize(error)}", [])
            else:
                n = len(lines)
                head = f"{what}: {n} result{'' if n == 1 else 's'}"
                more = [f"… {n - RESULTS_SHOWN} more"] if n > RESULTS_SHOWN else []
                done[call_id] = (head, lines[:RESULTS_SHOWN] + more)
            if call_id not in order:
                order.append(call_id)
        elif kind.endswith("_tool_result") and kind != "tool_result":
            call_id = str(block.get("tool_use_id"))
            name, _ = calls.get(call_id, (kind.removesuffix("_tool_result"), ""))
            done[call_id] = (f"Server tool {sanitize(name)} ran", [])
            if call_id not in order:
                order.append(call_id)
    for call_id in order:
        if call_id in done:
            out.append(done[call_id])
        else:  # no result (a paused turn continued elsewhere, or one cut short)
            name, query = calls[call_id]
            label = f'Web search "{sanitize(query)}"' if name == "web_search" else name
            out.append((f"{label}: no result", []))
    return out
