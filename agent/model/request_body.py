"""A request's JSON body with the history encoded once per message, not once per request.

The SDK hands a request's body to its HTTP client as ``json=``, and httpx encodes all of it
on every call (:func:`agent.messages.compact_json`): in a long session each request encoded
every earlier message again (4 ms at 400 short messages, 110 ms at 2,000 messages with large
tool results). A :class:`Message` keeps its own JSON (``Message.to_json``, also read back from
the transcript on resume), so the body is put together from it instead:

- ``request_params`` gives the SDK the messages as :class:`EncodedMessages`, a list of their
  params (what the SDK and its tests see) that also knows how to encode itself from the
  messages' cached JSON;
- the SDK's HTTP client is a :func:`body_client` (passed as ``http_client``, the SDK's way to
  configure its transport): a body that holds an ``EncodedMessages`` is sent as the bytes
  :func:`encode_body` makes, every other body as httpx encodes it.

The bytes are those httpx would send: tests/agent/test_request_bytes.py compares them with
the SDK's own path.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from agent.messages import Message, compact_json


class EncodedMessages(list):  # type: ignore[type-arg]
    """A request's messages: their params (``messages[i].to_param()``, or a copy of it that
    carries a cache breakpoint), and the messages, whose cached JSON encodes the former.

    Args:
        params: the params to send, one per message.
        messages: the messages they come from, in the same order.
    """

    def __init__(self, params: Iterable[dict[str, Any]], messages: Sequence[Message]) -> None:
        super().__init__(params)
        self.messages = tuple(messages)

    def encode(self) -> bytes:
        """The list as :func:`compact_json` encodes it (see :meth:`pieces`)."""
        return b"".join(self.pieces())

    def pieces(self) -> list[bytes]:
        """The list's JSON in pieces to join: a param that is its message's own comes from
        that message's cached JSON, a copy (a breakpoint on it) is encoded now.

        Raises:
            ValueError: a value JSON cannot hold (see ``compact_json``).
        """
        pieces = [b"["]
        for param, message in zip(self, self.messages, strict=True):
            pieces.append(message.to_json() if param is message.to_param() else compact_json(param))
            pieces.append(b",")
        pieces[-1] = b"]" if len(pieces) > 1 else b"[]"
        return pieces


def encode_body(body: Mapping[str, Any]) -> bytes | None:
    """``body`` as :func:`compact_json` encodes it, its :class:`EncodedMessages` put together
    from their messages' JSON; None when it holds none (nothing to gain: httpx encodes it).

    Raises:
        ValueError: a value JSON cannot hold (see ``compact_json``).
    """
    if not any(isinstance(value, EncodedMessages) for value in body.values()):
        return None
    pieces = [b"{"]
    for key, value in body.items():
        pieces.append(json.dumps(str(key)).encode() + b":")
        if isinstance(value, EncodedMessages):
            pieces.extend(value.pieces())
        else:
            pieces.append(compact_json(value))
        pieces.append(b",")
    pieces[-1] = b"}"
    return b"".join(pieces)  # one copy of a body that can be tens of MB


def body_client(anthropic: Any, **options: Any) -> Any:
    """An HTTP client for the SDK (its ``http_client``) that sends bodies holding
    :class:`EncodedMessages` from their cached JSON.

    Args:
        anthropic: the imported SDK (the client is a subclass of its default async client,
            httpx's or httpx2's: its defaults for limits, timeouts and redirects stay).
        options: for that client (a ``transport``).
    """
    base = anthropic.DefaultAsyncHttpxClient

    class BodyClient(base):  # type: ignore[misc, valid-type]
        def build_request(self, *args: Any, **kwargs: Any) -> Any:
            body = kwargs.get("json")
            encoded = encode_body(body) if isinstance(body, Mapping) else None
            if encoded is not None:
                # Content-Type is among the SDK's own headers; httpx adds Content-Length
                del kwargs["json"]
                kwargs["content"] = encoded
            return super().build_request(*args, **kwargs)

    return BodyClient(**options)
