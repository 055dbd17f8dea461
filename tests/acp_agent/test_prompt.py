"""``eddy --acp`` driven by the package's client side: initialize, a new session, a prompt
whose turn thinks, talks, reads, edits, plans and runs a command; what the editor receives."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from acp import schema, text_block

from tests.acp_agent.client import TIMEOUT, agent_env, eddy_acp, eddy_command
from tests.fakes.fake_api import FakeAnthropic, Reply, text, thinking, tool_use
from tests.helpers.wait import until

TODOS = [
    {"content": "Fix a.py", "status": "completed", "activeForm": "Fixing a.py"},
    {"content": "Say hi", "status": "in_progress", "activeForm": "Saying hi"},
]


def script() -> list[Reply]:
    edit = {"file_path": "a.py", "old_string": "broken", "new_string": "fixed"}
    return [
        Reply(
            [
                thinking("The file first."),
                text("Reading a.py."),
                tool_use("toolu_1", "Read", {"file_path": "a.py"}),
            ],
            "tool_use",
        ),
        Reply(
            [tool_use("toolu_2", "Edit", edit), tool_use("toolu_3", "TodoWrite", {"todos": TODOS})],
            "tool_use",
        ),
        Reply([tool_use("toolu_4", "Bash", {"command": "echo hi", "description": ""})], "tool_use"),
        Reply([text("Done: a.py is fixed.")]),
    ]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.py").write_text("x = 'broken'\n")
    return ws


def final_updates(updates: list[Any], call_id: str) -> list[Any]:
    return [
        u
        for u in updates
        if u.session_update == "tool_call_update"
        and u.tool_call_id == call_id
        and u.status in ("completed", "failed")
    ]


async def test_a_prompt_streams_thoughts_text_tool_calls_plan_and_usage_in_order(
    fake_api: FakeAnthropic, workspace: Path
) -> None:
    fake_api.push(*script())
    async with eddy_acp(fake_api, "--permission-mode", "bypassPermissions", cwd=workspace) as (
        conn,
        client,
        _,
    ):
        new = await asyncio.wait_for(conn.new_session(cwd=str(workspace), mcp_servers=[]), TIMEOUT)
        sid = new.session_id
        assert new.modes is not None
        assert new.modes.current_mode_id == "bypassPermissions"
        assert {m.id for m in new.modes.available_modes} == {
            "default",
            "acceptEdits",
            "plan",
            "bypassPermissions",
        }
        commands = await client.wait_for(lambda: client.of("available_commands_update"))
        names = [c.name for c in commands[0].available_commands]
        assert "compact" in names and "theme" not in names

        answer = await asyncio.wait_for(
            conn.prompt(session_id=sid, prompt=[text_block("fix a.py")]), TIMEOUT
        )
        assert answer.stop_reason == "end_turn"

    assert (workspace / "a.py").read_text() == "x = 'fixed'\n"
    updates = [u for s, u in client.updates if s == sid]
    kinds = [u.session_update for u in updates]
    assert kinds.index("agent_thought_chunk") < kinds.index("agent_message_chunk")
    assert client.text("agent_thought_chunk") == "The file first."
    assert client.text().startswith("Reading a.py.") and client.text().endswith("a.py is fixed.")

    starts = {u.tool_call_id: u for u in updates if u.session_update == "tool_call"}
    assert list(starts) == ["toolu_1", "toolu_2", "toolu_3", "toolu_4"]
    assert [starts[c].kind for c in starts] == ["read", "edit", "think", "execute"]
    read = starts["toolu_1"]
    assert read.title == "Read a.py"
    assert read.raw_input == {"file_path": "a.py"}
    assert read.locations[0].path == str(workspace / "a.py")
    for call_id, start in starts.items():
        ends = final_updates(updates, call_id)
        assert len(ends) == 1, call_id  # one final status per tool call
        assert updates.index(start) < updates.index(ends[0])
        assert ends[0].status == "completed"

    diff = final_updates(updates, "toolu_2")[0].content[0]
    assert diff.type == "diff"
    assert diff.path == str(workspace / "a.py")
    assert (diff.old_text, diff.new_text) == ("x = 'broken'\n", "x = 'fixed'\n")
    bash = final_updates(updates, "toolu_4")[0].content[0]
    assert bash.type == "content" and "hi" in bash.content.text

    plan = client.of("plan")[-1]
    assert [(e.content, e.status) for e in plan.entries] == [
        ("Fix a.py", "completed"),
        ("Say hi", "in_progress"),
    ]
    usage = client.of("usage_update")
    assert len(usage) == 4 and usage[-1].used > 0 and usage[-1].size > 0
    assert usage[-1].cost.currency == "USD"
    assert len(fake_api.requests) == 4
    assert fake_api.violations == []


FDS = "readlink /proc/$PPID/fd/1 /proc/$PPID/fd/2"
"""What eddy's own fd 1 and fd 2 are (the command's parent is eddy)."""


async def test_stdout_carries_only_protocol_lines_and_logs_go_to_stderr(
    fake_api: FakeAnthropic, workspace: Path
) -> None:
    """The raw stdout of ``eddy --acp``: every line a JSON-RPC 2.0 message; the log line about
    the client's MCP servers is on stderr; eddy's fd 1 itself is its stderr
    (so a stray print cannot corrupt the stream: the protocol has its own copy of stdout)."""
    fake_api.push(
        Reply([tool_use("toolu_1", "Bash", {"command": FDS})], "tool_use"),
        Reply([text("ok")]),
    )
    command = eddy_command()
    proc = await asyncio.create_subprocess_exec(
        *command,
        "--acp",
        "--permission-mode",
        "bypassPermissions",
        cwd=workspace,
        env=agent_env(fake_api),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None

    async def call(id_: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
        assert proc.stdin is not None and proc.stdout is not None
        line = {"jsonrpc": "2.0", "id": id_, "method": method, "params": params}
        proc.stdin.write((json.dumps(line) + "\n").encode())
        await proc.stdin.drain()
        while True:
            message = json.loads(await asyncio.wait_for(proc.stdout.readline(), TIMEOUT))
            lines.append(message)
            if message.get("id") == id_ and "method" not in message:
                return message

    lines: list[dict[str, Any]] = []
    await call(0, "initialize", {"protocolVersion": 1})
    stdio = {"name": "files", "command": "mcp-files", "args": [], "env": []}
    new = await call(1, "session/new", {"cwd": str(workspace), "mcpServers": [stdio]})
    sid = new["result"]["sessionId"]
    go = {"sessionId": sid, "prompt": [{"type": "text", "text": "go"}]}
    done = await call(2, "session/prompt", go)
    assert done["result"]["stopReason"] == "end_turn"
    proc.stdin.close()
    rest, err = await asyncio.wait_for(proc.communicate(), TIMEOUT)
    for raw in rest.splitlines():
        lines.append(json.loads(raw))
    assert all(m.get("jsonrpc") == "2.0" for m in lines)
    assert any(m.get("method") == "session/update" for m in lines)
    assert b"the client's MCP servers" in err and b"files" in err
    assert proc.returncode == 0
    result = fake_api.requests[1]["messages"][-1]["content"][0]["content"]
    fd1, fd2 = str(result).split()[:2]
    assert fd1 == fd2 and fd1.startswith("pipe:")
    assert fake_api.violations == []


async def test_embedded_context_and_images_reach_the_model_as_text_it_can_use(
    fake_api: FakeAnthropic, workspace: Path
) -> None:
    fake_api.push(Reply([text("seen")]))
    png = (
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"
        "+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    )
    async with eddy_acp(fake_api, cwd=workspace) as (conn, client, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        blocks = [
            text_block("look at"),
            schema.EmbeddedResourceContentBlock(
                type="resource",
                resource=schema.TextResourceContents(uri="file:///ws/sel.py", text="print(1)"),
            ),
            schema.ImageContentBlock(type="image", data=png, mime_type="image/png"),
        ]
        answer = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=blocks), TIMEOUT)
        assert answer.stop_reason == "end_turn"
    sent = fake_api.requests[0]["messages"][0]["content"][0]["text"]
    assert sent.startswith("look at")
    assert '<context uri="file:///ws/sel.py">\nprint(1)\n</context>' in sent
    image = sent.split("attached an image: ", 1)[1].split(" ", 1)[0]
    assert Path(image).read_bytes().startswith(b"\x89PNG")
    assert fake_api.violations == []


async def test_a_new_session_opens_the_connection_its_first_prompt_uses(
    fake_api: FakeAnthropic, workspace: Path
) -> None:
    """The SDK client is made and its connection opened while the user writes the first
    prompt (``HEAD /api/hello``, as Claude Code at start-up), not after it is sent."""
    fake_api.push(Reply([text("Hi.")]))
    async with eddy_acp(fake_api, cwd=workspace) as (conn, _client, _):
        new = await asyncio.wait_for(conn.new_session(cwd=str(workspace), mcp_servers=[]), TIMEOUT)
        await until(lambda: bool(fake_api.probes), TIMEOUT, "the probe")
        ((path, peer),) = fake_api.probes
        assert path == "/api/hello" and fake_api.requests == []
        prompt = [text_block("hello")]
        answer = await asyncio.wait_for(
            conn.prompt(session_id=new.session_id, prompt=prompt), TIMEOUT
        )
        assert answer.stop_reason == "end_turn"
    assert fake_api.peers == [peer]
