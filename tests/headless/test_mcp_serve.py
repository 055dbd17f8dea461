"""``eddy mcp serve`` as a real process, driven by the ``mcp`` library's client over stdio:
eddy's tools under the same rules; an ask goes to the client through elicitation (on both
protocol generations), and without it the call is refused naming the rule that allows it."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters, types

pytestmark = pytest.mark.slow


def server(workspace: Path, *flags: str) -> StdioServerParameters:
    exe = Path(sys.executable).with_name("eddy")
    command = [str(exe)] if exe.exists() else [sys.executable, "-m", "cli.main"]
    return StdioServerParameters(
        command=command[0],
        args=[*command[1:], "mcp", "serve", "--cwd", str(workspace), *flags],
        env={k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")},
        cwd=str(workspace),
    )


def answering(allow: bool, asked: list[str]) -> Any:
    async def elicit(context: Any, params: Any) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"allow": allow})

    return elicit


def text_of(result: Any) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


async def test_the_tools_are_offered_and_a_read_runs(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("NOTES-TEXT\n")
    async with Client(server(tmp_path)) as client:
        names = [t.name for t in (await client.list_tools()).tools]
        assert names[:7] == ["Read", "Write", "Edit", "MultiEdit", "Bash", "Glob", "Grep"]
        assert "Agent" not in names and "AskUserQuestion" not in names
        result = await client.call_tool("Read", {"file_path": str(tmp_path / "notes.txt")})
    assert not result.is_error and "NOTES-TEXT" in text_of(result)


async def test_without_elicitation_an_ask_is_refused_naming_the_rule(tmp_path: Path) -> None:
    async with Client(server(tmp_path)) as client:
        result = await client.call_tool("Bash", {"command": "touch made.txt"})
    assert result.is_error
    said = text_of(result)
    assert "Bash was not run: the rules ask, and the MCP client cannot be asked" in said
    assert "--allowed-tools 'Bash(touch made.txt)'" in said or "Bash(touch" in said
    assert not (tmp_path / "made.txt").exists()


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_an_ask_goes_to_the_client_and_its_yes_runs_the_call(
    tmp_path: Path, mode: str
) -> None:
    asked: list[str] = []
    async with Client(
        server(tmp_path), mode=mode, elicitation_callback=answering(True, asked)
    ) as client:
        result = await client.call_tool("Bash", {"command": "touch made.txt"})
    assert not result.is_error, text_of(result)
    assert asked == ["eddy: allow Bash: touch made.txt?"]
    assert (tmp_path / "made.txt").exists()


async def test_a_no_is_a_refusal_and_a_deny_rule_is_never_asked(tmp_path: Path) -> None:
    asked: list[str] = []
    async with Client(
        server(tmp_path, "--disallowed-tools", "Bash(rm:*)"),
        elicitation_callback=answering(False, asked),
    ) as client:
        said_no = await client.call_tool("Bash", {"command": "touch made.txt"})
        denied = await client.call_tool("Bash", {"command": "rm -f anything"})
    assert said_no.is_error and "the MCP client said no" in text_of(said_no)
    assert denied.is_error and asked == ["eddy: allow Bash: touch made.txt?"]
    assert not (tmp_path / "made.txt").exists()


async def test_an_allow_rule_runs_without_asking(tmp_path: Path) -> None:
    asked: list[str] = []
    async with Client(
        server(tmp_path, "--allowed-tools", "Bash(touch:*)"),
        elicitation_callback=answering(False, asked),
    ) as client:
        result = await client.call_tool("Bash", {"command": "touch made.txt"})
    assert not result.is_error and asked == []
    assert (tmp_path / "made.txt").exists()


async def test_a_request_the_sdk_cannot_read_is_answered_with_an_error(tmp_path: Path) -> None:
    """A request whose params is not an object was dropped by the MCP SDK: its client waited
    for ever. Each one now gets an Invalid Request error with its id; the server goes on."""
    params = server(tmp_path)
    proc = await asyncio.create_subprocess_exec(
        params.command,
        *params.args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=params.env,
        cwd=params.cwd,
    )
    assert proc.stdin is not None and proc.stdout is not None

    async def send(message: dict[str, Any]) -> None:
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(message).encode() + b"\n")
        await proc.stdin.drain()

    async def answer() -> dict[str, Any]:
        assert proc.stdout is not None
        line = await asyncio.wait_for(proc.stdout.readline(), 30)
        return dict(json.loads(line))

    try:
        client = {"name": "t", "version": "1"}
        hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": client}
        await send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello})
        assert (await answer())["id"] == 1
        await send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        odd = [("tools/call", 5), ("tools/list", [1]), ("no/such", "x"), ("tools/call", True)]
        for number, (method, value) in enumerate(odd, start=2):
            await send({"jsonrpc": "2.0", "id": number, "method": method, "params": value})
            got = await answer()
            assert got["id"] == number and got["error"]["code"] == -32600, got
            assert "params must be an object" in got["error"]["message"]
        await send({"jsonrpc": "2.0", "id": "last", "method": "tools/list"})  # still serving
        got = await answer()
        assert got["id"] == "last" and "Read" in [t["name"] for t in got["result"]["tools"]]
        proc.stdin.close()
        assert await asyncio.wait_for(proc.wait(), 30) == 0
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
