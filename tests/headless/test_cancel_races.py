"""Esc that comes as an answer arrives is not lost. On Python 3.11 ``asyncio.wait_for``
returns its inner result when a cancellation reaches it as that inner wait completes, and the
turn went on as if Esc had not been pressed (a hook run hung in CI so); the waits Esc can
cancel use ``asyncio.timeout`` instead."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest

from agent.extension import PermissionQuestion
from agent.mcp.resources import attach_resources
from agent.messages import ToolUseBlock
from headless.control import ControlChannel
from headless.sdk_extension import SdkExtension
from tools import default_tools


async def test_esc_as_can_use_tool_answers_stops_the_call() -> None:
    lines: list[dict[str, Any]] = []
    channel = ControlChannel(lines.append)
    sdk = SdkExtension(channel, can_use_tool=True)
    bash = next(t for t in default_tools() if t.name == "Bash")
    use = ToolUseBlock("toolu_1", "Bash", {"command": "ls"})
    asking = asyncio.create_task(sdk.ask(PermissionQuestion(use, bash, "ls")))
    while not channel.waiting:  # the request is out
        await asyncio.sleep(0)
    request_id = lines[-1]["request_id"]
    allow = {"behavior": "allow", "updatedInput": {"command": "ls"}}
    response = {"subtype": "success", "request_id": request_id, "response": allow}
    assert channel.resolve({"type": "control_response", "response": response})
    asking.cancel()  # Esc, in the same instant
    with pytest.raises(asyncio.CancelledError):
        await asking


class OneResourceServer:
    """A stand-in for the MCP manager: server ``docs`` offers resources; a read waits until
    the test answers it."""

    def __init__(self) -> None:
        self.connections = {"docs": SimpleNamespace(state="connected", resources=["x"])}
        self.answer: asyncio.Future[Any] | None = None

    async def read_resource(self, server: str, uri: str) -> Any:
        self.answer = asyncio.get_running_loop().create_future()
        return await self.answer


async def test_esc_as_an_mcp_resource_is_read_stops_the_prompt() -> None:
    server = OneResourceServer()
    mention = "see @docs:readme"
    reading = asyncio.create_task(attach_resources(server, mention))  # type: ignore[arg-type]
    while server.answer is None:
        await asyncio.sleep(0)
    server.answer.set_result(SimpleNamespace(contents=[SimpleNamespace(text="hello")]))
    reading.cancel()  # Esc, in the same instant
    with pytest.raises(asyncio.CancelledError):
        await reading
