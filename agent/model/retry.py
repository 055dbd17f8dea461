"""Retrying an API call that failed before its response began: overload, 5xx, rate limits,
no connection, no response headers within the timeout.

The SDK's own retries are off (its waits honour any ``retry-after``, uncapped, and say nothing
to the user); this loop waits with exponential backoff, honours ``retry-after-ms`` /
``retry-after`` up to a cap, tells the user each wait ("API overloaded, retrying (3/10) in
4 s"), and is cancelled at once by Esc (the wait is an ordinary ``await``). Only a call whose
response body had not started is retried: nothing of it reached the user or the history.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

RETRYABLE_STATUS = frozenset({408, 409, 429, 529}) | frozenset(range(500, 600))
"""HTTP statuses worth another try (as the SDK and Claude Code judge them)."""
NO_ANSWER_KINDS = frozenset({"connection", "timeout"})
"""Failures where the API never answered: no connection, or no response headers within the
timeout. Retried ``connection_attempts`` times (an earlier eddy, with the SDK's retries,
tried a header timeout 3 times too); a stall after the headers is not retried."""


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry (Claude Code: 10 attempts; here about a minute in all).

    Attributes:
        attempts: retries after the first try, for status errors.
        connection_attempts: retries after a connection failure (refused, reset, no response
            headers within the timeout): few, so a wrong ANTHROPIC_BASE_URL is said at once.
        base_delay: seconds before the first retry; doubled each time.
        max_delay: the longest backoff wait.
        retry_after_cap: the longest wait a ``retry-after`` header can ask for.
        jitter: up to this fraction is added at random (clients retrying together spread).
    """

    attempts: int = 10
    connection_attempts: int = 2
    base_delay: float = 0.5
    max_delay: float = 8.0
    retry_after_cap: float = 30.0
    jitter: float = 0.25

    def delay(self, retry: int, headers: Mapping[str, str] | None = None) -> float:
        """Seconds to wait before retry number ``retry`` (1-based)."""
        asked = retry_after(headers or {})
        if asked is not None:
            return min(max(asked, 0.0), self.retry_after_cap)
        backoff = min(self.base_delay * 2 ** (retry - 1), self.max_delay)
        return backoff * (1 + self.jitter * random.random())


def retry_after(headers: Mapping[str, str]) -> float | None:
    """The wait a response asks for, in seconds (``retry-after-ms``, then ``retry-after``)."""
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        raw = headers.get(name)
        if raw is None:
            continue
        try:
            return float(raw) / scale
        except ValueError:
            continue  # an HTTP date: rare from this API; fall back to the backoff
    return None


def should_retry(status: int | None, headers: Mapping[str, str]) -> bool:
    """Whether an HTTP error is worth retrying; the server's ``x-should-retry`` decides first."""
    told = headers.get("x-should-retry", "").lower()
    if told in ("true", "false"):
        return told == "true"
    return status in RETRYABLE_STATUS


def describe(kind: str, status: int | None) -> str:
    """The failure in the words of the retry notice: ``API overloaded``, ``API error 503``."""
    if kind == "overloaded":
        return "API overloaded"
    if kind == "rate_limit":
        return "API rate limit reached"
    if kind == "connection":
        return "Could not reach the API"
    if kind == "timeout":
        return "The API did not answer in time"
    return f"API error {status}" if status else "API error"


def is_retry_notice(text: str) -> bool:
    """Whether a Notice's ``text`` is one of :func:`retry_notice`'s (status lines show it)."""
    return ", retrying (" in text and text.endswith(" s (Esc stops)")


def retry_notice(what: str, retry: int, attempts: int, delay: float) -> str:
    """``API overloaded, retrying (3/10) in 4 s`` (Esc stops the wait)."""
    seconds = f"{delay:.0f}" if delay >= 1 else f"{delay:.1f}"
    return f"{what}, retrying ({retry}/{attempts}) in {seconds} s (Esc stops)"


Sleep = Callable[[float], Awaitable[Any]]
"""Waits that many seconds; tests inject one that records the waits and returns at once."""

DEFAULT_SLEEP: Sleep = asyncio.sleep
