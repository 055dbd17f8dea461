"""The ``result`` line an Agent SDK reads at the end of each turn, in Claude Code's terms.

Claude Code ends every turn of a stream-json session with one result: ``subtype``
(``success``, ``error_max_turns``, ``error_max_budget_usd``, ``error_during_execution`` for a
failure or an interrupt, ``error_max_structured_output_retries``), ``is_error``,
``num_turns`` (the turn's model calls), ``duration_ms`` (the turn's), and, over the whole
process, ``duration_api_ms``, ``total_cost_usd`` and ``modelUsage`` (per model); the turn's
``usage``, ``stop_reason``, ``terminal_reason``, ``errors``, ``result`` and
``structured_output``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from agent import events as ev
from agent.model.pricing import context_window

TERMINAL_REASONS = {
    "success": "completed",
    "error_max_turns": "max_turns",
    "error_max_budget_usd": "budget_exhausted",
    "error_during_execution": "model_error",
    "interrupted": "aborted_streaming",
    "error_max_structured_output_retries": "structured_output_retry_exhausted",
}
"""Claude Code's ``terminal_reason`` for each way a turn ends."""

MAX_OUTPUT_TOKENS = 32_000


@dataclass
class ModelUsage:
    """What the process spent per model (the result's ``modelUsage``)."""

    models: dict[str, dict[str, Any]] = field(default_factory=dict)

    def add(self, model: str, usage: dict[str, int], cost: float) -> None:
        """Count one response of ``model``."""
        entry = self.models.setdefault(
            model,
            {
                "inputTokens": 0,
                "outputTokens": 0,
                "cacheReadInputTokens": 0,
                "cacheCreationInputTokens": 0,
                "webSearchRequests": 0,
                "costUSD": 0.0,
                "contextWindow": context_window(model),
                "maxOutputTokens": MAX_OUTPUT_TOKENS,
            },
        )
        entry["inputTokens"] += int(usage.get("input_tokens", 0))
        entry["outputTokens"] += int(usage.get("output_tokens", 0))
        entry["cacheReadInputTokens"] += int(usage.get("cache_read_input_tokens", 0))
        entry["cacheCreationInputTokens"] += int(usage.get("cache_creation_input_tokens", 0))
        entry["costUSD"] = round(entry["costUSD"] + cost, 8)


def sdk_result(
    finished: ev.TurnFinished,
    *,
    session_id: str,
    total_cost_usd: float,
    duration_api_ms: int,
    model_usage: ModelUsage,
    structured: dict[str, Any] | None = None,
    structured_missing: bool = False,
) -> dict[str, Any]:
    """The result line of the turn ``finished`` ended.

    Args:
        finished: the turn's end.
        session_id: the session's id.
        total_cost_usd: what the process has spent so far.
        duration_api_ms: the process's time in model calls so far.
        model_usage: the process's spend per model.
        structured: the turn's structured output (``--json-schema``), if any.
        structured_missing: a structured output was asked for and not given.
    """
    subtype: str = finished.subtype
    errors: list[str] = []
    if subtype == "interrupted":
        subtype = "error_during_execution"  # Claude Code's name for an interrupted turn
        errors.append("The turn was interrupted.")
    elif subtype == "success" and structured_missing:
        subtype = "error_max_structured_output_retries"
        errors.append("The model did not give the structured output the schema asks for.")
    elif subtype != "success":
        errors.append(finished.error or subtype)
    line: dict[str, Any] = {
        "type": "result",
        "subtype": subtype,
        "is_error": subtype != "success",
        "duration_ms": finished.duration_ms,
        "duration_api_ms": duration_api_ms,
        "num_turns": finished.num_calls,
        "result": finished.result,
        "stop_reason": finished.stop_reason,
        "session_id": session_id,
        "total_cost_usd": round(total_cost_usd, 6),
        "usage": finished.usage,
        "modelUsage": model_usage.models,
        "terminal_reason": TERMINAL_REASONS.get(subtype)
        or TERMINAL_REASONS.get(finished.subtype, "completed"),
    }
    if finished.subtype == "interrupted":
        line["terminal_reason"] = "aborted_streaming"
    if errors:
        line["errors"] = errors
    if structured is not None:
        line["structured_output"] = structured
        line["result"] = json.dumps(structured, separators=(",", ":"))
    return line
