"""The Anthropic Messages API over the official SDK, streaming.

``anthropic`` is imported on the first call, not at import time: it costs about 2 s of start-up.
Prompt caching uses two breakpoints: the end of the system prompt, and the last block of the
newest message (moving each call). The cached API form of earlier messages is never modified,
so their bytes stay identical between requests.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import threading
from typing import Any

from agent.model.protocol import ModelError, ModelRequest, ModelResponse, StreamSink
from agent.model.request_body import EncodedMessages
from agent.model.retry import (
    DEFAULT_SLEEP,
    NO_ANSWER_KINDS,
    RetryPolicy,
    Sleep,
    describe,
    retry_notice,
    should_retry,
)
from agent.model.stream import ResponseAccumulator, sse_events

CACHE = {"type": "ephemeral"}

_KIND_BY_STATUS = {
    400: "invalid_request",
    401: "authentication",
    403: "permission",
    404: "not_found",
    413: "request_too_large",
    429: "rate_limit",
    500: "api_error",
    529: "overloaded",
}

_ADVICE = {
    "authentication": "Check ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN).",
    "permission": "Your API key is not allowed to use this model or feature.",
    "not_found": "Check the model name (--model) and ANTHROPIC_BASE_URL.",
    "rate_limit": "You hit a rate limit; wait a moment and send a message to retry.",
    "overloaded": "The API is overloaded; wait a moment and send a message to retry.",
    "api_error": "The API had an internal error; send a message to retry.",
    "request_too_large": "The request is too large; compact the conversation (/compact).",
    "invalid_request": "The API rejected the request.",
}


PRECONNECT_TIMEOUT_S = 10.0
"""How long the start-up's connection to the API may take before it is given up."""
LOOKBACK_SAFE = 15
"""A breakpoint finds an earlier cache write only within 20 blocks; add one before that."""


UNCACHEABLE = ("thinking", "redacted_thinking")
"""Blocks the API refuses cache_control on (a 400)."""


def _mark(messages: list[dict[str, Any]], position: int, total: int) -> None:
    """Put a cache breakpoint on the block at ``position`` (counted over all ``total`` blocks
    of the messages), or on the nearest block before it that may carry one (never a thinking
    block). Walks back from the end: breakpoints sit near it, whatever the history's length."""
    end = total  # blocks up to the end of message i
    for i in range(len(messages) - 1, -1, -1):
        content = messages[i]["content"]
        start = end - len(content)
        end = start
        if start > position:
            continue
        for j in range(min(position - start, len(content) - 1), -1, -1):
            if content[j].get("type") in UNCACHEABLE:
                continue
            marked = list(content)
            marked[j] = {**content[j], "cache_control": CACHE}
            messages[i] = {"role": messages[i]["role"], "content": marked}
            return


def request_params(request: ModelRequest, previous_breakpoint: int | None = None) -> dict[str, Any]:
    """The keyword arguments of ``messages.stream`` for ``request``, breakpoints included.

    Breakpoints: the end of the system prompt; the last block of the newest message; and, when
    more than ``LOOKBACK_SAFE`` blocks were added since ``previous_breakpoint`` (the block
    position of the last request's moving breakpoint), one more within reach of it. At most 3.
    The cached params of the messages are copied, never modified.
    """
    messages = [m.to_param() for m in request.messages]
    total = sum(len(m.content) for m in request.messages)
    if total:
        _mark(messages, total - 1, total)
        if previous_breakpoint is not None and total - 1 - previous_breakpoint > LOOKBACK_SAFE:
            _mark(messages, previous_breakpoint + LOOKBACK_SAFE, total)
    params: dict[str, Any] = {
        "model": request.model,
        "max_tokens": request.max_tokens,
        "messages": EncodedMessages(messages, request.messages),
    }
    if request.system:
        system = [dict(b) for b in request.system]
        system[-1]["cache_control"] = CACHE
        params["system"] = system
    if request.tools:
        params["tools"] = request.tools
    if request.thinking:
        params["thinking"] = request.thinking
    return params


VERBATIM = ("messages", "system", "tools")
"""Request fields sent as the JSON dicts eddy built, past the SDK's request transform."""


def sdk_arguments(params: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments of ``messages.create`` that send ``params`` byte for byte while
    the SDK's request transform walks only small values.

    That transform copies every nested dict of the body against the SDK's TypedDicts (aliases,
    base64 of file objects, dates); eddy's params are plain JSON values already, so it returns
    an equal copy, and over a long history it cost most of the CPU of a turn (712 ms per call
    at 401 messages, where encoding the body takes 12 ms). The heavy fields go as
    ``extra_body`` instead, which the SDK merges into the transformed body unchanged; each
    keeps its key, with an empty placeholder, so it stays at its place in the JSON object
    (a merge keeps the first mapping's key order). tests/agent/test_request_bytes.py checks the
    bytes against the SDK's own path.
    """
    arguments = dict(params)
    verbatim = {key: arguments[key] for key in VERBATIM if key in arguments}
    arguments.update({key: [] for key in verbatim})
    arguments["extra_body"] = verbatim
    return arguments


def last_block_position(request: ModelRequest) -> int:
    return sum(len(m.content) for m in request.messages) - 1


def _error(exc: Exception) -> ModelError:
    """Map an SDK or transport exception to a ModelError with advice for the user."""
    import anthropic

    if isinstance(exc, anthropic.APIStatusError):
        status = exc.status_code
        body = exc.body if isinstance(exc.body, dict) else {}
        err = body.get("error", {}) if isinstance(body.get("error"), dict) else {}
        api_type = str(err.get("type", ""))
        detail = str(err.get("message") or exc.message)
        kind = _KIND_BY_STATUS.get(status, "api_error")
        if api_type == "overloaded_error":
            kind = "overloaded"
        if status == 200:  # an SSE error event after the stream began
            msg = f"The response stream failed mid-way ({api_type or 'error'}: {detail})."
            return ModelError("stream_error", msg + " Send a message to retry.", status)
        advice = _ADVICE.get(kind, "")
        if status == 400 and "prompt is too long" in detail.lower():
            advice = (
                "The conversation no longer fits the model's context window: run /compact to "
                "summarise it (or /clear to start over), then send your message again."
            )
        msg = f"API error {status} ({api_type or kind}): {detail}. {advice}"
        return ModelError(kind, msg.strip(), status)
    if isinstance(exc, anthropic.APITimeoutError) or "Timeout" in type(exc).__name__:
        return ModelError(
            "timeout",
            "The API stopped responding (timed out). Send a message to retry.",
        )
    if isinstance(exc, anthropic.APIConnectionError):
        return ModelError(
            "connection",
            f"Could not reach the API ({exc}). Check your network or ANTHROPIC_BASE_URL.",
        )
    name = type(exc).__name__
    if _is_transport(exc):
        return ModelError(
            "connection",
            f"The connection to the API broke ({name}: {exc}). Send a message to retry.",
        )
    if isinstance(exc, UnicodeDecodeError):
        return ModelError(
            "bad_response", "The API sent bytes that are not UTF-8 text. Send a message to retry."
        )
    # not the network: say so rather than blame the connection
    return ModelError(
        "bad_response",
        f"eddy could not read the API's response ({name}: {exc or 'no details'}). "
        "Send a message to retry.",
    )


def _is_transport(exc: Exception) -> bool:
    """A network failure (the connection dropped, reset or refused), not a bad response.

    Named by class, not imported: the SDK talks through ``httpx2`` from 2.0 and ``httpx`` before,
    and eddy accepts both (see README, "The SDK's version")."""
    return isinstance(exc, OSError) or any(
        cls.__name__ == "TransportError" and cls.__module__.split(".")[0] in ("httpx", "httpx2")
        for cls in type(exc).__mro__
    )


class AnthropicModel:
    """A ``Model`` over ``AsyncAnthropic.messages.stream``.

    Args:
        name: the model id.
        api_key: defaults to ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN).
        base_url: defaults to ANTHROPIC_BASE_URL, else the real API.
        max_retries: retries of a call that failed before its body began (overload, 5xx,
            429; connection failures get ``retry.connection_attempts`` at most); 0 for none.
            Default: ``retry.attempts``.
        timeout: seconds; also the longest silence tolerated inside a stream.
        retry: the backoff schedule (see :mod:`agent.model.retry`).
        sleep: how a retry waits (tests inject one that does not sleep).
    """

    def __init__(
        self,
        name: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        max_retries: int | None = None,
        timeout: float | None = None,
        retry: RetryPolicy | None = None,
        sleep: Sleep | None = None,
    ) -> None:
        self.name = name
        self._api_key = api_key
        self._base_url = base_url
        self.retry = retry or RetryPolicy()
        if max_retries is not None:
            self.retry = dataclasses.replace(
                self.retry,
                attempts=max_retries,
                connection_attempts=min(max_retries, self.retry.connection_attempts),
            )
        self._sleep = sleep or DEFAULT_SLEEP
        if timeout is None:
            timeout = float(os.environ.get("API_TIMEOUT_MS", "600000")) / 1000
        self._timeout = timeout
        self._client: Any = None
        self._http: Any = None
        """The HTTP client the SDK client sends through (Anthropic's API only)."""
        self._client_lock = threading.Lock()
        self._last_breakpoint: int | None = None
        self._requested = False
        """Whether a request has been started: a connection opened ahead is then moot (that
        request opens its own, or already did)."""

    def client(self) -> Any:
        """The SDK client, made on first use; thread-safe, so a UI can make it ahead of the
        first prompt in a thread (``import anthropic`` and the TLS context take tens of ms
        to seconds) while the loop might ask for it too."""
        if self._client is None:
            with self._client_lock:
                if self._client is None:
                    self._client, self._http = self._make_client()
        return self._client

    async def preconnect(self) -> None:
        """Open the connection the first request will use, as Claude Code does at start-up
        (``HEAD /api/hello`` on the API's base URL): the TCP and TLS handshakes then happen
        while the user types, not after Enter. Only on Anthropic's API, not with
        ``CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC``, and only once the SDK client exists;
        whatever it gets back or fails with is ignored (the first request says what is
        wrong), and it gives up after ``PRECONNECT_TIMEOUT_S``. Not once a request has
        started: that one opens its own."""
        http, client = self._http, self._client
        if (
            http is None
            or client is None
            or self._requested
            or os.environ.get("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC")
        ):
            return
        url = str(client.base_url).rstrip("/") + "/api/hello"
        with contextlib.suppress(Exception):
            await asyncio.wait_for(http.head(url), PRECONNECT_TIMEOUT_S)

    def _make_client(self) -> tuple[Any, Any]:
        # no SDK retries: its waits are silent and honour any retry-after uncapped (see respond)
        kwargs: dict[str, Any] = {"max_retries": 0, "timeout": self._timeout}
        token = os.environ.get("ANTHROPIC_AUTH_TOKEN")
        if self._api_key is not None:
            kwargs["api_key"] = self._api_key
        elif not os.environ.get("ANTHROPIC_API_KEY") and token:
            kwargs["auth_token"] = token
        if self._base_url is not None:
            kwargs["base_url"] = self._base_url
        from agent.model.providers import (
            make_client,  # Bedrock, Vertex, Foundry by Claude Code's env
        )

        made = make_client(kwargs)
        _ask_the_platform(made[0])
        return made

    async def aclose(self) -> None:
        """Close the HTTP client (if one was made)."""
        if self._client is not None:
            client, self._client = self._client, None
            await client.close()

    async def ready_client(self) -> Any:
        """The SDK client; the first time, made in a daemon thread while the event loop goes
        on: ``import anthropic`` takes seconds, and Esc or a signal must act at once meanwhile
        (cancelling stops the wait; the import then finishes unwaited for, and does not delay
        the exit as an executor's thread would)."""
        if self._client is not None:
            return self._client
        loop = asyncio.get_running_loop()
        made: asyncio.Future[Any] = loop.create_future()

        def settle(client: Any, error: BaseException | None) -> None:
            if made.done():
                return  # the wait was cancelled
            if error is not None:
                made.set_exception(error)
            else:
                made.set_result(client)

        def make() -> None:
            try:
                client, error = self.client(), None
            except Exception as exc:  # reported by the awaiting call, as before
                client, error = None, exc
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
                loop.call_soon_threadsafe(settle, client, error)

        threading.Thread(target=make, name="eddy-sdk-client", daemon=True).start()
        return await made

    async def respond(self, request: ModelRequest, sink: StreamSink) -> ModelResponse:
        """Stream one response; retry visibly while it fails before its body begins.

        Each wait is announced through ``sink.retrying`` and is an ordinary ``await``: Esc
        (cancelling this task) stops it at once, with nothing sent and nothing to undo.
        """
        self._requested = True
        client = await self.ready_client()
        # the moving breakpoint follows the session's conversation, not side questions
        # (WebFetch's small-model calls go through this client with another model id)
        own = request.model == self.name
        params = request_params(request, self._last_breakpoint if own else None)
        if own:
            self._last_breakpoint = last_block_position(request)
        retry = 0
        while True:
            accumulator = ResponseAccumulator(sink)
            try:
                return await self._stream(client, params, accumulator)
            except _BeforeBody as failed:
                error, headers = failed.error, failed.headers
                connection = error.kind in NO_ANSWER_KINDS
                limit = self.retry.connection_attempts if connection else self.retry.attempts
                if retry >= limit or not (connection or should_retry(error.status, headers)):
                    if retry:
                        error.user_message += f" (eddy retried {retry} times.)"
                    raise error from failed.__cause__
                retry += 1
                delay = self.retry.delay(retry, headers)
                sink.retrying(retry_notice(describe(error.kind, error.status), retry, limit, delay))
                await self._sleep(delay)

    async def _stream(
        self, client: Any, params: dict[str, Any], accumulator: ResponseAccumulator
    ) -> ModelResponse:
        """One HTTP attempt. A failure before any event is a ``_BeforeBody`` (retryable)."""
        try:
            # The raw event stream, not the SDK's accumulator: see agent/model/stream.py.
            create = client.messages.with_streaming_response.create
            async with create(**sdk_arguments(params), stream=True) as http:
                kind = http.headers.get("content-type", "")
                if "event-stream" not in kind:
                    body = (await http.read())[:120].decode("utf-8", "replace")
                    raise ModelError(
                        "bad_response",
                        f"The API answered with {kind or 'no content type'} instead of an "
                        f"event stream ({body!r}). Check ANTHROPIC_BASE_URL.",
                        http.status_code,
                    )
                async for name, data in sse_events(http.iter_lines()):
                    accumulator.feed(name, data)
        except ModelError:
            raise
        except Exception as exc:  # CancelledError (Esc) is not an Exception: it passes
            error = _error(exc)
            if not accumulator.started and _before_body(exc):
                headers = getattr(getattr(exc, "response", None), "headers", None) or {}
                raise _BeforeBody(error, headers) from exc
            raise error from exc
        if not accumulator.started:
            raise ModelError(
                "bad_response",
                "The API's response held no message_start event: it was not a Messages API "
                "event stream. Check ANTHROPIC_BASE_URL; send a message to retry.",
            )
        return accumulator.response()


class _BeforeBody(Exception):
    """A call failed before its response body began: an HTTP error status, or no connection."""

    def __init__(self, error: ModelError, headers: Any) -> None:
        super().__init__(error.user_message)
        self.error = error
        self.headers = headers


def _before_body(exc: Exception) -> bool:
    """Whether ``exc`` is an HTTP error answer, a failure to connect, or a timeout waiting for
    the response headers (the SDK's ``APITimeoutError``; a stall after the headers is the
    transport's own ReadTimeout, not retried: the response had begun)."""
    import anthropic

    if isinstance(exc, anthropic.APIStatusError):
        return exc.status_code != 200  # 200: an SSE error event, after the body began
    return isinstance(exc, anthropic.APIConnectionError)


def _ask_the_platform(client: Any) -> None:
    """Ask what the SDK asks about the machine at its client's first request, for its
    ``X-Stainless-OS`` header (``uname -p`` in a subprocess, /etc/os-release: 20-40 ms), and
    hand the answer to ``client``. Called where the client is made, which is in a thread
    ahead of the first prompt. The SDK asks it in a worker thread when its client has no
    answer yet: the first request then waits for a thread, and the loop runs whatever is
    ready meanwhile (in the TUI, the prompt's first frame, 6 ms, went out before the request
    did in a third of the runs). An SDK without that function or that attribute is left
    alone (it asks at its first request, as it always did)."""
    from anthropic import _base_client

    get_platform = getattr(_base_client, "get_platform", None)
    if get_platform is None:
        return
    with contextlib.suppress(Exception):
        platform = get_platform()
        if getattr(client, "_platform", False) is None:
            client._platform = platform  # what the SDK's first request would set


async def warm_up(model: Any) -> None:
    """Make ``model``'s SDK client (in a thread: ``import anthropic``) and open its connection
    to the API (``preconnect``), while the user or the program driving eddy prepares the
    first prompt. A model without an SDK client (a scripted one) is left alone; a failure is
    left for the first request to report."""
    ready = getattr(model, "ready_client", None)
    preconnect = getattr(model, "preconnect", None)
    if ready is None or preconnect is None:
        return
    with contextlib.suppress(Exception):
        await ready()
        await preconnect()


def prepare_client(model: Any) -> None:
    """Make ``model``'s SDK client now, if it has one (an :class:`AnthropicModel`): the UIs
    call it in a thread after start-up. A failure is left for the first prompt, which makes
    the client again and says what went wrong."""
    client = getattr(model, "client", None)
    if callable(client):
        try:
            client()
        except Exception:
            pass
