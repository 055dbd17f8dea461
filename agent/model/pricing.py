"""Cost of a response from its usage, with the price table kept as data (prices.json)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

DEFAULT_MODEL = "claude-sonnet-5-5"


@dataclass(frozen=True)
class Usage:
    """Token counts of one response. ``input_tokens`` is only the uncached remainder."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_1h_input_tokens: int = 0
    """The part of cache_creation_input_tokens written with the 1-hour TTL."""

    @property
    def prompt_tokens(self) -> int:
        """The whole prompt: uncached input + cache writes + cache reads."""
        return self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_creation_input_tokens + other.cache_creation_input_tokens,
            self.cache_read_input_tokens + other.cache_read_input_tokens,
            self.cache_creation_1h_input_tokens + other.cache_creation_1h_input_tokens,
        )

    def to_dict(self) -> dict[str, int]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_creation_input_tokens": self.cache_creation_input_tokens,
            "cache_read_input_tokens": self.cache_read_input_tokens,
        }


@cache
def _table() -> dict[str, Any]:
    path = Path(__file__).with_name("prices.json")
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def _model_entry(model: str) -> dict[str, Any]:
    models: dict[str, Any] = _table()["models"]
    if model in models:
        return dict(models[model])
    # dated or suffixed ids ("claude-sonnet-5-5-20261001") price as their family
    for name in sorted(models, key=len, reverse=True):
        if model.startswith(name):
            return dict(models[name])
    return dict(models[DEFAULT_MODEL])


def context_window(model: str) -> int:
    """The model's context window in tokens."""
    return int(_model_entry(model)["context_window"])


def known_models() -> list[str]:
    return list(_table()["models"])


def cost_usd(model: str, usage: Usage) -> float:
    """The list-price cost of one response.

    Args:
        model: the model id (unknown ids are priced as the default model).
        usage: the response's usage, cache writes and reads included.

    Returns:
        The cost in USD.
    """
    entry = _model_entry(model)
    for tier in entry.get("tiers", []):
        if usage.prompt_tokens > tier["above_prompt_tokens"]:
            entry.update(input=tier["input"], output=tier["output"])
    mult = _table()["cache_multipliers"]
    read_mult = entry.get("cache_read_multiplier", mult["read"])
    write_5m = usage.cache_creation_input_tokens - usage.cache_creation_1h_input_tokens
    per_m_input = entry["input"] / 1e6
    return (
        usage.input_tokens * per_m_input
        + write_5m * per_m_input * mult["write_5m"]
        + usage.cache_creation_1h_input_tokens * per_m_input * mult["write_1h"]
        + usage.cache_read_input_tokens * per_m_input * read_mult
        + usage.output_tokens * entry["output"] / 1e6
    )
