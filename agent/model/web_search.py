"""WebSearch: the API's server-side web search tool, offered in every request of a session.

The API runs the search itself: the model's ``server_tool_use`` (name ``web_search``, input
``{query}``) and its ``web_search_tool_result`` come back in the same assistant message and
are kept in the history unchanged (they are not client calls: the pairing invariant does not
concern them). A long search may pause the turn (``stop_reason: pause_turn``); the loop sends
the paused response back as the API documents (agent/turn/loop.py ``_call_model``).

The tool's ``allowed_domains`` / ``blocked_domains`` come from permission rules, the way a
user already writes them for WebFetch: ``WebSearch(domain:docs.python.org)`` in ``allow``
restricts results to those domains, in ``deny`` keeps those domains out, and a bare
``WebSearch`` deny rule removes the tool. (The API takes one of the two lists, not both: an
allow list wins, as the narrower.) Amazon Bedrock has no server-side search: there the model
gets Claude Code's client ``WebSearch`` tool, which answers every call with an error saying so
(tools/websearch.py).
"""

from __future__ import annotations

import os
from typing import Any

from agent.permissions.policy import Policy, Rule

WEB_SEARCH_TYPE = "web_search_20250305"
MAX_USES = 8
"""Searches the API runs for one request at most."""


def server_search_problem(env: dict[str, str] | None = None) -> str | None:
    """Why the provider has no server-side web search, or None when it has one."""
    env = dict(os.environ) if env is None else env
    if env.get("CLAUDE_CODE_USE_BEDROCK", "").strip().lower() in ("1", "true", "yes"):
        return (
            "Web search is not available on Amazon Bedrock: the API's server-side web_search "
            "tool is not offered there. Use WebFetch on a page you know (for example a "
            "search engine's results URL), or run eddy against the Anthropic API."
        )
    return None


def _domains(rules: list[Rule]) -> list[str]:
    out = []
    for rule in rules:
        spec = rule.specifier or ""
        if rule.tool == "WebSearch" and spec.startswith("domain:"):
            domain = spec[len("domain:") :].strip().lower()
            if domain and domain not in out:
                out.append(domain)
    return out


def web_search_param(policy: Policy) -> dict[str, Any] | None:
    """The ``tools`` entry of the server-side search under ``policy``; None when a bare
    ``WebSearch`` deny rule forbids searching."""
    if any(r.tool == "WebSearch" and r.specifier is None for r in policy.deny):
        return None
    param: dict[str, Any] = {"type": WEB_SEARCH_TYPE, "name": "web_search", "max_uses": MAX_USES}
    allowed, blocked = _domains(policy.allow), _domains(policy.deny)
    if allowed:
        param["allowed_domains"] = allowed
    elif blocked:
        param["blocked_domains"] = blocked
    return param


def server_tools(policy: Policy, env: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """The server tools a session offers: the web search, unless the provider has none."""
    if server_search_problem(env) is not None:
        return []
    param = web_search_param(policy)
    return [param] if param is not None else []
