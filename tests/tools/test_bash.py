"""Bash: output and exit codes, streaming, cwd persistence, caps, timeout and cancellation."""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.sandbox import needs_bwrap, run_bash, sandboxed_ctx
from tests.helpers.tool_hooks import Hooks
from tools.base import Tool, ToolContext, ToolLimits, ToolResult
from tools.bash import TOOL
from tools.outbuf import HeadTail
from tools.schema import validate


def make_ctx(tmp_path: Path, **kw: Any) -> ToolContext:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    return ToolContext(workspace=ws, **kw)


async def bash(ctx: ToolContext, command: str, **args: Any) -> ToolResult:
    args = {"command": command, **args}
    assert validate(TOOL.input_schema, args) is None  # the loop validates before running
    return await TOOL.run(args, ctx)


def text_of(result: ToolResult) -> str:
    assert isinstance(result.content, str)
    return result.content


def group_gone(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    return False


def is_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:  # gone: no entry (ENOENT), or reaped while it was read (ESRCH)
        return False


def test_bash_is_a_writing_tool_with_a_strict_schema() -> None:
    assert isinstance(TOOL, Tool)
    assert TOOL.name == "Bash" and TOOL.read_only is False
    assert TOOL.input_schema["required"] == ["command"]
    assert validate(TOOL.input_schema, {"command": "ls", "cwd": "/"}) is not None
    assert TOOL.summary({"command": "make test"}) == "make test"
    assert TOOL.paths({"command": "rm -rf /"}, ToolContext(workspace=Path("/"))) == []


@pytest.mark.parametrize(
    ("command", "content", "is_error"),
    [
        ("echo out; echo err >&2", "out\nerr", False),
        ("echo partial; exit 3", "partial\nExit code 3", True),
        ("false", "Exit code 1", True),
        ("true", "(no output)", False),
        ("kill -KILL $$", "Exit code 137 (killed by SIGKILL)", True),
        ("printf 'caf\\303'; printf '\\251\\n'", "café", False),  # é split across writes
        ("printf '\\377ok\\n'", "\ufffdok", False),
        ("echo $EDDY $GIT_EDITOR $PAGER", "1 true cat", False),
    ],
)
async def test_output_and_exit_codes(
    tmp_path: Path, command: str, content: str, is_error: bool
) -> None:
    result = await bash(make_ctx(tmp_path), command)
    assert (text_of(result), result.is_error) == (content, is_error)


async def test_stdin_is_closed(tmp_path: Path) -> None:
    start = time.monotonic()
    result = await bash(make_ctx(tmp_path), "cat; read x || echo eof", timeout=5000)
    assert text_of(result) == "eof"
    assert time.monotonic() - start < 2


async def test_output_streams_before_the_command_ends(tmp_path: Path) -> None:
    first = asyncio.Event()
    chunks: list[str] = []

    def sink(text: str) -> None:
        chunks.append(text)
        if "first" in "".join(chunks):
            first.set()

    ctx = make_ctx(tmp_path).for_call(sink)
    gate = tmp_path / "gate"
    os.mkfifo(gate)
    task = asyncio.create_task(bash(ctx, f"echo first; read line < {gate}; echo second"))
    await asyncio.wait_for(first.wait(), 5)
    assert not task.done()  # the command is blocked on the FIFO: its output came before its end
    with open(gate, "w") as f:
        f.write("go\n")
    assert text_of(await task) == "first\nsecond"
    assert "".join(chunks) == "first\nsecond\n"


async def test_cd_persists_inside_the_workspace(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    (ctx.workspace / "sub" / "deeper").mkdir(parents=True)
    assert text_of(await bash(ctx, "cd sub")) == "(no output)"
    assert text_of(await bash(ctx, "pwd")) == str(ctx.workspace / "sub")
    assert text_of(await bash(ctx, "cd deeper && pwd")) == str(ctx.workspace / "sub" / "deeper")
    assert ctx.shell.cwd == ctx.workspace / "sub" / "deeper"
    assert text_of(await bash(ctx, "cd .. ; exit 4")) == "Exit code 4"  # exit keeps the cd
    assert text_of(await bash(ctx, "pwd")) == str(ctx.workspace / "sub")


async def test_cd_outside_the_workspace_resets(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    (ctx.workspace / "sub").mkdir()
    await bash(ctx, "cd sub")
    out = text_of(await bash(ctx, f"cd {tmp_path} && echo moved"))
    assert out.startswith("moved\nShell cwd was reset to " + str(ctx.workspace))
    assert text_of(await bash(ctx, "pwd")) == str(ctx.workspace)
    # a symlink pointing out of the workspace is judged by its real path
    (ctx.workspace / "out").symlink_to(tmp_path)
    assert "Shell cwd was reset" in text_of(await bash(ctx, "cd out"))
    assert ctx.shell.cwd is None


async def test_a_deleted_cwd_falls_back_to_the_workspace(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    (ctx.workspace / "gone").mkdir()
    await bash(ctx, "cd gone")
    (ctx.workspace / "gone").rmdir()
    out = text_of(await bash(ctx, "pwd"))
    assert out.startswith(str(ctx.workspace) + "\nShell cwd was reset")


async def test_huge_output_is_capped_fast_and_bounded(tmp_path: Path) -> None:
    received = [0]
    ctx = make_ctx(tmp_path, limits=ToolLimits(output_max_chars=2000))
    ctx = ctx.for_call(lambda text: received.__setitem__(0, received[0] + len(text)))
    start = time.monotonic()
    result = await bash(ctx, "yes 0123456789 | head -c 50000000")
    assert time.monotonic() - start < 5
    out, _, saved = text_of(result).rpartition("\n")
    assert received[0] == 50_000_000  # everything was streamed
    assert len(out) < 2100
    assert saved.startswith("The whole output is saved in ")  # the cut output, kept whole
    path = Path(saved.removeprefix("The whole output is saved in ").partition(":")[0])
    assert path.stat().st_size == 50_000_000
    head, note, tail = out.partition("\n... [")
    count, _, body = tail.partition(" lines omitted] ...\n")
    assert note and head.startswith("0123456789\n") and body.endswith("\n0123456789\n012345")
    # every full line is either shown or counted as omitted (the last line is cut by head -c)
    assert head.count("\n") + 1 + int(count) + body.count("\n") == 50_000_000 // 11


@pytest.mark.parametrize(
    ("chunks", "cap", "expected"),
    [
        (["abc\n", "def\n"], 100, "abc\ndef\n"),
        (["1\n2\n3\n4\n5\n6\n7\n8\n9\n"], 8, "1\n2\n... [5 lines omitted] ...\n8\n9\n"),
        (["x" * 50], 10, "xxxxx\n... [40 characters omitted] ...\nxxxxx"),
        (["1\n", "2\n", "3\n", "4\n", "5\n", "6\n"], 4, "1\n... [4 lines omitted] ...\n6\n"),
    ],
)
def test_head_tail_buffer(chunks: list[str], cap: int, expected: str) -> None:
    buf = HeadTail(cap)
    for chunk in chunks:
        buf.feed(chunk)
    assert buf.text() == expected


async def test_timeout_kills_the_group_and_keeps_partial_output(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    start = time.monotonic()
    result = await bash(ctx, "echo $$; echo started; sleep 30", timeout=300)
    assert time.monotonic() - start < 2
    out = text_of(result)
    pgid = int(out.split()[0])
    assert result.is_error
    assert out.endswith("started\nCommand timed out after 0.3s and was killed.")
    assert group_gone(pgid) and not is_zombie(pgid)


async def test_cancel_kills_the_whole_group_even_a_term_ignoring_child(tmp_path: Path) -> None:
    started = asyncio.Event()
    seen: list[str] = []

    def sink(text: str) -> None:
        seen.append(text)
        if "ready" in "".join(seen):
            started.set()

    ctx = make_ctx(tmp_path).for_call(sink)
    command = "echo $$; bash -c 'trap \"\" TERM; sleep 30' & sleep 0.2; echo ready; sleep 30"
    task = asyncio.create_task(bash(ctx, command))
    await asyncio.wait_for(started.wait(), 5)
    pgid = int("".join(seen).split()[0])
    start = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - start < 1.2
    assert group_gone(pgid)
    assert not is_zombie(pgid)
    # the next call has pipes of its own: nothing of the killed one shows up
    result = await bash(make_ctx(tmp_path), "echo next")
    assert text_of(result) == "next"


async def test_checkpoint_hooks_wrap_every_command(tmp_path: Path) -> None:
    calls: list[str] = []

    async def before() -> None:
        calls.append("before")

    async def after() -> None:
        calls.append("after")

    ctx = make_ctx(tmp_path, checkpoints=Hooks(before_shell=before, after_shell=after))
    await bash(ctx, "exit 1")
    await bash(ctx, "sleep 5", timeout=100)
    assert calls == ["before", "after", "before", "after"]


async def test_a_cancelled_call_leaves_no_file_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Esc while the checkpoint hook still runs (the first snapshot of a big tree can take
    a second), and Esc while the command runs: the call's record of its last directory goes
    with it (it was left in the temporary directory, one per Esc)."""
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    hooked = asyncio.Event()

    async def before() -> None:
        hooked.set()
        await asyncio.Event().wait()  # a snapshot that takes its time

    async def after() -> None:
        pass

    ctx = make_ctx(tmp_path, checkpoints=Hooks(before_shell=before, after_shell=after))
    task = asyncio.create_task(bash(ctx, "true"))
    await asyncio.wait_for(hooked.wait(), 5)
    # the file the test watches, named for this process
    assert [p.name.startswith(f"eddy-cwd-{os.getpid()}-") for p in temp.iterdir()] == [True]
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert list(temp.iterdir()) == []
    started = asyncio.Event()
    ctx = make_ctx(tmp_path).for_call(lambda text: started.set())
    task = asyncio.create_task(bash(ctx, "echo go; sleep 30"))
    await asyncio.wait_for(started.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert list(temp.iterdir()) == []


@needs_bwrap
async def test_a_read_only_grant_in_the_sandbox_skips_the_checkpoint_hooks(
    tmp_path: Path,
) -> None:
    calls: list[str] = []

    async def before() -> None:
        calls.append("before")

    async def after() -> None:
        calls.append("after")

    ws = tmp_path / "ws"
    ws.mkdir()
    ctx = sandboxed_ctx(ws)
    ctx.checkpoints = Hooks(before_shell=before, after_shell=after)
    result = await run_bash(ctx, "cat /etc/hostname", "read_only")
    assert not result.is_error and calls == []  # the read-only sandbox: nothing can change
    await run_bash(ctx, "true", "rule")
    assert calls == ["before", "after"]


async def test_background_job_does_not_hold_the_call(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    start = time.monotonic()
    result = await bash(ctx, "sleep 3 & echo spawned")
    assert time.monotonic() - start < 2
    out = text_of(result)
    assert out.startswith("spawned\n(Background processes started by the command")
    assert not result.is_error


SWEEP = """
import asyncio, sys, tempfile
from pathlib import Path
tempfile.tempdir = sys.argv[1]
from tests.tools.test_bash import bash, make_ctx
result = asyncio.run(bash(make_ctx(Path(sys.argv[2])), "true"))
print(result.is_error)
"""


def test_a_directory_file_a_killed_eddy_left_goes_at_the_next_ones_first_call(
    tmp_path: Path,
) -> None:
    """An eddy killed with SIGKILL during a Bash call leaves the file its shell writes its
    directory into (its ``finally`` never runs). The next eddy's first Bash call removes the
    ones whose process is gone, and only those: a running eddy's, another name's, stay."""
    import subprocess
    import sys

    temp = tmp_path / "temp"
    temp.mkdir()
    gone = subprocess.Popen(["true"])
    gone.wait()  # its process id now names no process
    left = temp / f"eddy-cwd-{gone.pid}-abcd1234"
    running = temp / f"eddy-cwd-{os.getpid()}-efgh5678"
    other = temp / "eddy-cwd-plain"
    for path in (left, running, other):
        path.write_text("/somewhere\n")
    out = subprocess.run(
        [sys.executable, "-c", SWEEP, str(temp), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert out.stdout.strip() == "False", out.stderr
    assert sorted(p.name for p in temp.iterdir()) == sorted([running.name, other.name])
