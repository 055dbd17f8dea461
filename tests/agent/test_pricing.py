"""Pricing from usage, with cache writes and reads, from the data table."""

from __future__ import annotations

import pytest

from agent.model.pricing import Usage, context_window, cost_usd


@pytest.mark.parametrize(
    ("model", "usage", "expected"),
    [
        ("claude-sonnet-5-5", Usage(1_000_000, 0), 2.0),
        ("claude-sonnet-5-5", Usage(0, 1_000_000), 10.0),
        ("claude-sonnet-5-5", Usage(0, 0, 1_000_000, 0), 2.5),  # 5-minute write: 1.25x
        ("claude-sonnet-5-5", Usage(0, 0, 1_000_000, 0, 1_000_000), 4.0),  # 1-hour write: 2x
        ("claude-sonnet-5-5", Usage(0, 0, 0, 1_000_000), 0.2),  # read: 0.1x
        ("claude-opus-5-5", Usage(0, 0, 0, 1_000_000), 0.2),  # Opus 5.5 reads: 0.05x of 4
        ("claude-opus-5", Usage(1_000_000, 1_000_000), 30.0),
        ("claude-haiku-4-5", Usage(1_000_000, 1_000_000), 6.0),
        ("claude-haiku-5-5", Usage(100_000, 1_000_000), 0.01 + 0.5),  # at the tier edge
        ("claude-haiku-5-5", Usage(200_000, 1_000_000), 0.1 + 2.5),  # above 100K prompt
        ("claude-sonnet-5-5-20261001", Usage(1_000_000, 0), 2.0),  # dated id -> family
    ],
)
def test_cost(model: str, usage: Usage, expected: float) -> None:
    assert cost_usd(model, usage) == pytest.approx(expected)


def test_prompt_tokens_and_windows() -> None:
    u = Usage(10, 5, 20, 30)
    assert u.prompt_tokens == 60
    assert (u + u).prompt_tokens == 120
    assert context_window("claude-haiku-4-5") == 200_000
    assert context_window("claude-opus-5-5") == 1_000_000
