"""A model wrapper for ``eddy -p``: times every model call (the result's ``duration_api_ms``)
and, for stream-json with ``--include-partial-messages``, hands the main agent's raw API
stream events to the writer as they arrive (Claude Code's ``stream_event`` lines).

The engine is untouched: the wrapper passes the loop's sink on inside a sink that adds the
optional ``raw_event`` method ``agent/model/stream.py`` calls when a sink has one.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from agent.model.protocol import Model, ModelRequest, ModelResponse, StreamSink
from agent.turn.sink import TurnSink

RawEvent = Callable[[dict[str, Any]], None]


class _TapSink:
    """Forwards everything to the loop's sink; raw events also go to ``on_raw``."""

    def __init__(self, inner: StreamSink, on_raw: RawEvent) -> None:
        self._inner = inner
        self._on_raw = on_raw

    def __getattr__(self, name: str) -> Any:
        # text, thinking, block_done, retrying, and whatever the loop reads back (partial)
        return getattr(self._inner, name)

    def raw_event(self, event: dict[str, Any]) -> None:
        """One raw Messages API stream event (ping excluded)."""
        self._on_raw(event)


class TappedModel:
    """Wraps the session's model.

    Args:
        inner: the real model.
        on_raw: called with each raw stream event of a main-agent call (None: not wanted).
        is_main: whether a request is the main agent's (a subagent's or a compaction's
            calls go through the same model; Claude Code streams only the main agent's).
        on_answered: called once, when the first response of any call began (its first
            stream event arrived: the request is out and answered).
    """

    def __init__(
        self,
        inner: Model,
        on_raw: RawEvent | None = None,
        is_main: Callable[[ModelRequest], bool] = lambda request: True,
        on_answered: Callable[[], None] | None = None,
    ) -> None:
        self._inner = inner
        self._on_raw = on_raw
        self._is_main = is_main
        self._on_answered = on_answered
        self.api_seconds = 0.0
        """Seconds spent in model calls so far."""

    @property
    def name(self) -> str:
        """The inner model's name (``/model`` sets it there)."""
        return self._inner.name

    @name.setter
    def name(self, value: str) -> None:
        self._inner.name = value

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)  # aclose, ready_client, ... of the real model

    @property
    def api_ms(self) -> int:
        """Milliseconds spent in model calls so far (retry waits included, as they are
        the API's)."""
        return int(self.api_seconds * 1000)

    async def respond(self, request: ModelRequest, sink: StreamSink) -> ModelResponse:
        """The inner model's response, timed; raw events tapped for the main agent."""
        on_raw = self._on_raw
        if on_raw is not None and not (isinstance(sink, TurnSink) and self._is_main(request)):
            on_raw = None
        if self._on_answered is not None:
            on_raw = self._answered_then(on_raw)
        if on_raw is not None:
            sink = _TapSink(sink, on_raw)  # type: ignore[assignment]
        started = time.monotonic()
        try:
            return await self._inner.respond(request, sink)
        finally:
            self.api_seconds += time.monotonic() - started

    def _answered_then(self, on_raw: RawEvent | None) -> RawEvent:
        """A raw-event handler that calls ``on_answered`` at the first event, then ``on_raw``."""

        def raw(event: dict[str, Any]) -> None:
            answered, self._on_answered = self._on_answered, None
            if answered is not None:
                answered()
            if on_raw is not None:
                on_raw(event)

        return raw
