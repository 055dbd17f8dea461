"""The request body on the wire is byte for byte what the SDK's own request path sends (issue 32).

``AnthropicModel`` hands the history, the system prompt and the tools to the SDK past its
request transform (``agent.model.anthropic.sdk_arguments``). Here the same params go once
through the SDK's ordinary ``messages.create`` (the transform on every field, as eddy sent them
before) and once through ``AnthropicModel.respond``; the fake API keeps both raw bodies.
"""

from __future__ import annotations

import base64
import dataclasses
from typing import Any

import pytest

from agent.messages import Message, message_from_param
from agent.model.anthropic import AnthropicModel, last_block_position, request_params
from agent.model.protocol import ModelRequest
from tests.fakes.fake_api import FakeAnthropic, Reply, text

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4).decode()
SEARCH_CALL = {
    "type": "server_tool_use",
    "id": "srvtoolu_01",
    "name": "web_search",
    "input": {"query": "textual markdown stream"},
}
SEARCH_FOUND = {
    "type": "web_search_tool_result",
    "tool_use_id": "srvtoolu_01",
    "content": [
        {
            "type": "web_search_result",
            "url": f"https://example.org/{i}",
            "title": f"Résultat {i} — “quoted” ✓",
            "encrypted_content": "EncRypt/+==" * 8,
            "page_age": None,
        }
        for i in range(3)
    ],
}
CITED = {
    "type": "text",
    "text": "Use Markdown.get_stream (see the docs).",
    "citations": [
        {
            "type": "web_search_result_location",
            "url": "https://example.org/0",
            "title": "Résultat 0",
            "encrypted_index": "idx==",
            "cited_text": "get_stream",
        }
    ],
}


def image(media: str = "image/png") -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": media, "data": PNG}}


def rich_history() -> list[Message]:
    """Every kind of block eddy sends back: images, documents, thinking with signatures,
    redacted thinking, server tool blocks, citations, tool results with content lists,
    error results, odd characters and numbers in tool input."""
    params: list[dict[str, Any]] = [
        {
            "role": "user",
            "content": [
                {
                    "type": "text",
                    "text": "Look at this screenshot and the spec \u00e9\u4e2d\U0001f600",
                },
                image(),
                {
                    "type": "document",
                    "source": {"type": "text", "media_type": "text/plain", "data": "spec: x < y"},
                    "title": "spec.txt",
                },
            ],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "Let me search.", "signature": "Sig+/=" * 20},
                {"type": "redacted_thinking", "data": "RedactedOpaque==" * 4},
                SEARCH_CALL,
                SEARCH_FOUND,
                CITED,
                {
                    "type": "tool_use",
                    "id": "toolu_01",
                    "name": "Read",
                    "input": {"file_path": '/tmp/a "b".py', "offset": 1.5e3, "limit": None},
                },
                {
                    "type": "tool_use",
                    "id": "toolu_02",
                    "name": "Bash",
                    "input": {"command": "printf '\\t\\n' | wc -c", "nested": {"a": [1, True]}},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_01",
                    "content": [
                        {"type": "text", "text": "1\tline \x1b[1mone\x1b[0m\n"},
                        image("image/jpeg"),
                    ],
                },
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_02",
                    "content": "bash: exit 1",
                    "is_error": True,
                },
                {"type": "text", "text": "and keep it short"},
            ],
        },
    ]
    for turn in range(12):  # enough blocks that a second moving breakpoint is placed
        params.append(
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": f"step {turn}", "signature": f"s{turn}=="},
                    {"type": "text", "text": f"Step {turn}."},
                    {"type": "tool_use", "id": f"toolu_1{turn:02d}", "name": "Grep", "input": {}},
                ],
            }
        )
        params.append(
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": f"toolu_1{turn:02d}", "content": "x"}
                ],
            }
        )
    return [message_from_param(p) for p in params]


def rich_request() -> ModelRequest:
    return ModelRequest(
        model="claude-opus-5-5",
        messages=rich_history(),
        system=[
            {"type": "text", "text": "You are eddy.\n" * 40},
            {"type": "text", "text": "Environment: /work"},
        ],
        tools=[
            {
                "name": "Read",
                "description": "Read a file.",
                "input_schema": {
                    "type": "object",
                    "properties": {"file_path": {"type": "string"}},
                    "required": ["file_path"],
                    "additionalProperties": False,
                },
            },
            {"type": "web_search_20250305", "name": "web_search", "max_uses": 8},
        ],
        max_tokens=32_000,
        thinking={"type": "enabled", "budget_tokens": 8_000},
    )


async def sent_by_the_sdk(fake: FakeAnthropic, params: dict[str, Any]) -> bytes:
    """The body the SDK's ordinary path sends: its own client and HTTP client, its request
    transform on every field, httpx encoding the whole body."""
    import anthropic

    client = anthropic.AsyncAnthropic(api_key="k", base_url=fake.base_url, max_retries=0)
    try:
        async with client.messages.with_streaming_response.create(**params, stream=True) as http:
            await http.read()
    finally:
        await client.close()
    return fake.raw_bodies[-1]


class Sink:
    def text(self, delta: str) -> None: ...

    def thinking(self, delta: str) -> None: ...

    def block_done(self, block: Any) -> None: ...

    def retrying(self, notice: str) -> None: ...


async def sent_by_eddy(fake: FakeAnthropic, *requests: ModelRequest) -> bytes:
    """The body of the last of ``requests``, sent one after the other by one model (the
    earlier ones place the moving breakpoint the last one starts from)."""
    model = AnthropicModel("claude-opus-5-5", api_key="k", base_url=fake.base_url)
    try:
        for request in requests:
            await model.respond(request, Sink())
    finally:
        await model.aclose()
    return fake.raw_bodies[-1]


@pytest.mark.parametrize("earlier", [0, 1], ids=["one-moving-breakpoint", "two-breakpoints"])
async def test_eddy_sends_the_bytes_the_sdks_own_path_sends(fake_api, earlier) -> None:
    fake_api.default = Reply([text("ok")])
    request = rich_request()
    # a request of the first three messages before: 20+ blocks since its breakpoint
    first = dataclasses.replace(request, messages=request.messages[:3])
    previous = last_block_position(first) if earlier else None
    reference = await sent_by_the_sdk(fake_api, request_params(request, previous))
    sent = await sent_by_eddy(fake_api, *[first] * earlier, request)
    assert fake_api.violations == []
    assert sent == reference
    body = fake_api.requests[-1]
    assert body["messages"][0]["content"][1] == image()
    assert sent.count(b'"cache_control"') == (3 if earlier else 2)  # system, moving (, look-back)
    assert list(body) == [
        "max_tokens",
        "messages",
        "model",
        "stream",
        "system",
        "thinking",
        "tools",
    ]


async def test_a_request_without_system_or_tools_is_sent_as_the_sdk_sends_it(fake_api) -> None:
    fake_api.default = Reply([text("ok")])
    request = ModelRequest(model="claude-opus-5-5", messages=rich_history()[:1], max_tokens=10)
    reference = await sent_by_the_sdk(fake_api, request_params(request))
    assert await sent_by_eddy(fake_api, request) == reference
    assert list(fake_api.requests[-1]) == ["max_tokens", "messages", "model", "stream"]


async def test_a_resumed_history_is_sent_as_the_sdk_sends_it(fake_api, tmp_path) -> None:
    """Messages read back from a transcript keep the JSON their lines hold: the body is still
    the SDK's, byte for byte."""
    from agent.store.load import load
    from agent.store.transcript import Transcript

    fake_api.default = Reply([text("ok")])
    request = rich_request()
    with Transcript.create(tmp_path, model="claude-opus-5-5", directory=tmp_path) as saved:
        saved.record_history(request.messages)
    resumed = dataclasses.replace(request, messages=load(saved.path).history)
    assert resumed.messages == request.messages
    reference = await sent_by_the_sdk(fake_api, request_params(resumed))
    assert await sent_by_eddy(fake_api, resumed) == reference
    assert fake_api.violations == []
