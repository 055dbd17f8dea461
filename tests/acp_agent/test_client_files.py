"""With the client's ``fs`` capability, Read sees the editor's unsaved buffer and changes are
written through the editor, with a checkpoint before each (rewind still restores the file)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from acp import schema, text_block

from tests.acp_agent.client import TIMEOUT, eddy_acp
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use

FS = schema.ClientCapabilities(
    fs=schema.FileSystemCapabilities(read_text_file=True, write_text_file=True)
)
ARGS = ("--permission-mode", "bypassPermissions")


def result_text(body: dict) -> str:
    content = body["messages"][-1]["content"][0]["content"]
    return content if isinstance(content, str) else "".join(b.get("text", "") for b in content)


async def test_reads_see_the_buffer_and_writes_go_through_the_editor_checkpointed(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    a = ws / "a.py"
    a.write_text("x = 'disk'\n")
    edit = {"file_path": "a.py", "old_string": "buffer", "new_string": "fixed"}
    fake_api.push(
        Reply([tool_use("toolu_1", "Read", {"file_path": "a.py"})], "tool_use"),
        Reply([tool_use("toolu_2", "Edit", edit)], "tool_use"),
        Reply(
            [tool_use("toolu_3", "Write", {"file_path": "b.py", "content": "new\n"})], "tool_use"
        ),
        Reply([text("done")]),
    )
    async with eddy_acp(fake_api, *ARGS, cwd=ws, capabilities=FS) as (conn, client, _):
        client.buffers[str(a)] = "x = 'buffer'\n"  # typed in the editor, not saved
        sid = (await conn.new_session(cwd=str(ws), mcp_servers=[])).session_id
        answer = await asyncio.wait_for(
            conn.prompt(session_id=sid, prompt=[text_block("fix a.py")]), TIMEOUT
        )
        assert answer.stop_reason == "end_turn"
        assert "x = 'buffer'" in result_text(fake_api.requests[1])  # the model read the buffer
        assert client.writes == [(str(a), "x = 'fixed'\n"), (str(ws / "b.py"), "new\n")]
        assert a.read_text() == "x = 'fixed'\n"
        diff = [
            u.content[0]
            for u in client.of("tool_call_update")
            if u.tool_call_id == "toolu_2" and u.status == "completed"
        ][0]
        assert (diff.old_text, diff.new_text) == ("x = 'buffer'\n", "x = 'fixed'\n")

        rewound = await conn.ext_method(
            "eddy/rewind", {"sessionId": sid, "number": 1, "mode": "code"}
        )
        assert sorted(rewound["restored"] + rewound["deleted"]) == ["a.py", "b.py"]
    assert a.read_text() == "x = 'disk'\n"  # the checkpoint taken before the editor's write
    assert not (ws / "b.py").exists()
    assert fake_api.violations == []


async def test_a_buffer_changed_after_the_read_is_not_overwritten(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    a = ws / "a.py"
    a.write_text("v = 1\n")
    edit = {"file_path": "a.py", "old_string": "v = 1", "new_string": "v = 2"}
    fake_api.push(
        Reply([tool_use("toolu_1", "Read", {"file_path": "a.py"})], "tool_use"),
        Reply([tool_use("toolu_2", "Edit", edit)], "tool_use"),
        Reply([text("ok")]),
    )
    async with eddy_acp(fake_api, *ARGS, cwd=ws, capabilities=FS) as (conn, client, _):
        sid = (await conn.new_session(cwd=str(ws), mcp_servers=[])).session_id

        def typing_meanwhile(path: str) -> None:
            if len(client.reads) == 2:  # the check just before the write: the user typed
                client.buffers[path] = "v = 1  # mine\n"

        client.before_read = typing_meanwhile
        answer = await asyncio.wait_for(
            conn.prompt(session_id=sid, prompt=[text_block("bump v")]), TIMEOUT
        )
        assert answer.stop_reason == "end_turn"
    assert client.writes == []
    assert "changed in the editor" in result_text(fake_api.requests[2])
    assert a.read_text() == "v = 1\n"
    assert fake_api.violations == []
