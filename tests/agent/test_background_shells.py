"""Background shells (issue 22) through the real loop and the fake Messages API: Bash
run_in_background, BashOutput, KillShell, Ctrl+B; Esc leaves them running, closing the session
(eddy's exit) kills their whole process trees, and checkpoints catch what they changed."""

from __future__ import annotations

import asyncio
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent import events as ev
from agent import ops
from agent.checkpoints.engine import CheckpointStore
from agent.model.anthropic import AnthropicModel
from agent.session.config import SessionConfig
from agent.session.core import Session
from agent.session.shells import BackgroundShell, ShellRegistry
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use
from tests.helpers.events import Events
from tests.helpers.sandbox import needs_bwrap, sandboxed_ctx
from tools import default_tools
from tools.bash import BashTool


def make_session(
    fake: FakeAnthropic, ws: Path, *, store: Path | None = None
) -> tuple[Session, Events]:
    ws.mkdir(exist_ok=True)
    events = Events()
    config = SessionConfig(workspace=ws, model="claude-sonnet-5-5")
    config.policy.mode = "bypassPermissions"
    model = AnthropicModel("claude-sonnet-5-5", api_key="t", base_url=fake.base_url)
    session = Session(config, model, default_tools(), events)
    if store is not None:
        session.attach_checkpoints(CheckpointStore(ws, store))
    return session, events


def call(call_id: str, name: str, **args: Any) -> Reply:
    return Reply([tool_use(call_id, name, args)], "tool_use")


def results(fake: FakeAnthropic) -> dict[str, dict[str, Any]]:
    """Every tool_result the API was sent, by tool_use id."""
    out = {}
    for body in fake.requests:
        for message in body["messages"]:
            for block in message["content"]:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    out[block["tool_use_id"]] = block
    return out


def text_of(block: dict[str, Any]) -> str:
    content = block["content"]
    return content if isinstance(content, str) else "".join(b["text"] for b in content)


async def until(shell: BackgroundShell, predicate: Callable[[], bool]) -> None:
    async def wait() -> None:
        while not predicate():
            shell.changed.clear()
            await shell.changed.wait()

    await asyncio.wait_for(wait(), 20)


def group_members(pgid: int) -> list[int]:
    """Live (non-zombie) processes of group ``pgid``, from /proc."""
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            pids.append(int(name))
    return pids


def group_gone(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    return False


async def prompt(session: Session, text_: str) -> None:
    session.submit(ops.SubmitPrompt(text_))
    await session.wait_idle()


async def test_a_background_shell_outlives_its_turn_and_bash_output_reads_it(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    go = tmp_path / "go"
    command = f"echo started; while [ ! -e {go} ]; do sleep 0.02; done; echo finished; exit 3"
    fake_api.push(
        call("toolu_bg", "Bash", command=command, run_in_background=True),
        Reply([text("started it")]),
        call("toolu_out1", "BashOutput", bash_id="bash_1"),
        Reply([text("still running")]),
        call("toolu_out2", "BashOutput", bash_id="bash_1", filter="^fin"),
        call("toolu_kill", "KillShell", shell_id="bash_1"),
        Reply([text("done")]),
    )
    session, events = make_session(fake_api, tmp_path / "ws")
    await prompt(session, "start the server")
    shell = session.shells.shells["bash_1"]
    assert shell.status == "running"  # the turn is over; the shell is not
    await until(shell, lambda: "started" in "".join(shell.unread))
    await prompt(session, "how is it")
    go.touch()
    await asyncio.wait_for(shell.done.wait(), 20)
    await prompt(session, "and now")
    await session.close()

    assert fake_api.violations == []
    got = results(fake_api)
    assert text_of(got["toolu_bg"]).startswith("Command running in background with ID: bash_1")
    assert "You will be told when it finishes" in text_of(got["toolu_bg"])  # reports.py does
    first = text_of(got["toolu_out1"])
    assert "<status>running</status>" in first and "<stdout>\nstarted\n</stdout>" in first
    assert "<exit_code>" not in first
    second = text_of(got["toolu_out2"])  # only new output, filtered
    assert "<status>failed</status>" in second and "<exit_code>3</exit_code>" in second
    assert "<stdout>\nfinished\n</stdout>" in second and "started" not in second
    killed = got["toolu_kill"]
    assert killed["is_error"] and "not running" in text_of(killed)
    assert [e.subtype for e in events.of(ev.TurnFinished)] == ["success"] * 3


async def test_kill_shell_ends_the_whole_group(fake_api: FakeAnthropic, tmp_path: Path) -> None:
    fake_api.push(
        call("toolu_bg", "Bash", command="sleep 300 & sleep 300 & wait", run_in_background=True),
        Reply([text("running")]),
        call("toolu_kill", "KillShell", shell_id="bash_1"),
        call("toolu_nope", "BashOutput", bash_id="bash_9"),
        Reply([text("killed")]),
    )
    session, _ = make_session(fake_api, tmp_path / "ws")
    await prompt(session, "start")
    pgid = session.shells.shells["bash_1"].pgid
    await prompt(session, "kill it")
    try:
        got = results(fake_api)
        assert text_of(got["toolu_kill"]).startswith("Successfully killed shell: bash_1")
        assert not got["toolu_kill"].get("is_error")
        assert group_gone(pgid)
        assert got["toolu_nope"]["is_error"] and "No shell found with ID: bash_9" in text_of(
            got["toolu_nope"]
        )
        assert fake_api.violations == []
    finally:
        await session.close()


async def test_esc_stops_the_turn_but_leaves_background_shells_running(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    fake_api.push(
        call("toolu_bg", "Bash", command="sleep 300", run_in_background=True),
        call("toolu_fg", "Bash", command="sleep 300"),
        Reply([text("after esc")]),
    )
    session, events = make_session(fake_api, tmp_path / "ws")
    session.submit(ops.SubmitPrompt("go"))
    await events.wait_until(
        lambda: any(e.call_id == "toolu_fg" for e in events.of(ev.ToolCallRunning))
    )
    session.submit(ops.Interrupt())
    finished = await events.wait_for(ev.TurnFinished)
    assert finished.subtype == "interrupted"
    shell = session.shells.shells["bash_1"]
    assert shell.status == "running" and group_members(shell.pgid)
    await prompt(session, "carry on")  # the history Esc left is valid
    assert fake_api.violations == []
    assert shell.status == "running" and group_members(shell.pgid)
    await session.close()
    assert group_gone(shell.pgid)


async def test_closing_the_session_kills_every_process_tree_no_orphans(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    ready = tmp_path / "ready"
    tree = (
        f"sleep 300 & (sleep 300 & sleep 300 & touch {ready}.1; wait) & "
        f"bash -c 'touch {ready}.2; sleep 300' & wait"
    )
    fake_api.push(
        call("toolu_a", "Bash", command=tree, run_in_background=True),
        call("toolu_b", "Bash", command="sleep 300", run_in_background=True),
        Reply([text("two trees")]),
    )
    session, _ = make_session(fake_api, tmp_path / "ws")
    await prompt(session, "start")
    shells = session.shells.listing()
    assert [s.id for s in shells] == ["bash_1", "bash_2"]
    pgids = [s.pgid for s in shells]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 20
    # the tree says when its deepest processes exist (no event can tell eddy a grandchild forked)
    while not (Path(f"{ready}.1").exists() and Path(f"{ready}.2").exists()):
        assert loop.time() < deadline
        await asyncio.sleep(0.02)
    assert len(group_members(pgids[0])) >= 6  # bash, 3 sleeps, a subshell, bash -c ...
    assert group_members(pgids[1])
    await session.close()
    for pgid in pgids:
        assert group_gone(pgid) and group_members(pgid) == []
    assert [s.status for s in shells] == ["killed", "killed"]


async def test_ctrl_b_sends_the_running_foreground_command_to_the_background(
    fake_api: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    sig = tmp_path / "sig"
    command = f"echo before; while [ ! -e {sig} ]; do sleep 0.02; done; echo after"
    fake_api.push(
        call("toolu_fg", "Bash", command=command),
        Reply([text("it moved")]),
        call("toolu_out", "BashOutput", bash_id="bash_1"),
        Reply([text("read")]),
    )
    session, events = make_session(fake_api, tmp_path / "ws")
    session.submit(ops.SubmitPrompt("build"))
    await events.wait_until(lambda: any("before" in e.text for e in events.of(ev.ToolOutputDelta)))
    session.submit(ops.SendToBackground())
    await session.wait_idle()
    shell = session.shells.shells["bash_1"]
    assert shell.status == "running"
    sig.touch()
    await asyncio.wait_for(shell.done.wait(), 20)
    await prompt(session, "check it")
    await session.close()
    got = results(fake_api)
    moved = text_of(got["toolu_fg"])
    assert "sent this command to the background" in moved and "ID: bash_1" in moved
    assert moved.endswith("before") and not got["toolu_fg"].get("is_error")
    out = text_of(got["toolu_out"])
    assert "<status>completed</status>" in out and "<stdout>\nafter\n</stdout>" in out
    assert fake_api.violations == []
    # the call's record of its last directory, which its shell writes as it exits, went
    # with the shell (it was removed at the hand-over and written again at the exit)
    assert [p.name for p in temp.iterdir() if p.name.startswith("eddy-cwd-")] == []


async def test_ctrl_b_with_nothing_running_says_so(fake_api: FakeAnthropic, tmp_path: Path) -> None:
    session, events = make_session(fake_api, tmp_path / "ws")
    session.submit(ops.SendToBackground())
    assert "No command is running" in events.of(ev.Notice)[-1].text
    await session.close()


async def test_checkpoints_catch_what_a_background_shell_changed_by_the_next_prompt(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    go = tmp_path / "go"
    command = f"while [ ! -e {go} ]; do sleep 0.02; done; echo made > made.txt; rm old.txt"
    fake_api.push(
        call("toolu_bg", "Bash", command=command, run_in_background=True),
        Reply([text("it will write")]),
        Reply([text("second answer")]),
    )
    ws.mkdir()
    (ws / "old.txt").write_text("precious\n")
    session, _ = make_session(fake_api, ws, store=tmp_path / "store")
    await prompt(session, "write later")
    shell = session.shells.shells["bash_1"]
    go.touch()
    await asyncio.wait_for(shell.done.wait(), 20)
    assert (ws / "made.txt").exists() and not (ws / "old.txt").exists()
    await prompt(session, "next")  # the scan at this prompt records the shell's changes
    entries = session.checkpoints()
    assert entries[0].summary.startswith("2 files")
    session.submit(ops.Rewind(1, "code"))
    assert not (ws / "made.txt").exists()
    assert (ws / "old.txt").read_text() == "precious\n"
    await session.close()


async def test_a_background_command_passes_the_same_gate_as_a_foreground_one(
    fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    fake_api.push(
        call("toolu_bg", "Bash", command="touch made.txt", run_in_background=True),
        Reply([text("refused")]),
    )
    session, _ = make_session(fake_api, ws)
    session.config.policy.mode = "plan"  # plan mode refuses commands that change things
    await prompt(session, "make it")
    await session.close()
    refused = results(fake_api)["toolu_bg"]
    assert refused["is_error"] and "plan mode" in text_of(refused)
    assert session.shells.listing() == [] and not (ws / "made.txt").exists()


@needs_bwrap
async def test_a_background_command_runs_in_the_sandbox_its_grant_calls_for(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    ctx = sandboxed_ctx(ws)
    shells = ShellRegistry(ctx.limits, ctx.output_dir)
    ctx.shells = shells
    args = {"command": "touch made.txt; echo wrote $?", "run_in_background": True}
    started = await BashTool().run(args, ctx.for_call(lambda _t: None, "read_only"))
    assert "ID: bash_1" in str(started.content)
    shell = shells.shells["bash_1"]
    await asyncio.wait_for(shell.done.wait(), 20)
    out = shells.read("bash_1", None)
    await shells.close()
    assert "Read-only file system" in out and "wrote 1" in out
    assert not (ws / "made.txt").exists()
