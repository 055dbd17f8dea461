"""Running handlers: stdin JSON, the project dir in the environment, no TTY, own process group,
parallel, timeouts and cancellation kill the whole group."""

from __future__ import annotations

import asyncio
import json
import os

import pytest

from agent.hooks.config import HookHandler
from agent.hooks.runner import run_handler, run_handlers
from tests.agent.hooks.scripts import pid_alive, script, wait_for_file
from tests.helpers.starting import cancelled_as_it_starts


async def test_a_python_hook_reads_the_json_on_stdin_with_the_project_dir_and_no_tty(
    tmp_path,
) -> None:
    out = tmp_path / "seen.json"
    cmd = script(
        tmp_path,
        "probe.py",
        f"""
data = json.load(sys.stdin)
json.dump({{
    "input": data,
    "claude": os.environ.get("CLAUDE_PROJECT_DIR"),
    "eddy": os.environ.get("EDDY_PROJECT_DIR"),
    "tty": [os.isatty(i) for i in (0, 1, 2)],
    "leader": os.getsid(0) == os.getpgrp(),
    "key": os.environ.get("ANTHROPIC_API_KEY"),
    "cwd": os.getcwd(),
}}, open({str(out)!r}, "w"))
print("ok")
""",
    )
    run = await run_handler(HookHandler(cmd, 20), {"hook_event_name": "Stop", "x": 1}, tmp_path)
    assert (run.exit_code, run.stdout.strip(), run.error) == (0, "ok", "")
    seen = json.loads(out.read_text())
    assert seen["input"] == {"hook_event_name": "Stop", "x": 1}
    assert seen["claude"] == seen["eddy"] == str(tmp_path) == seen["cwd"]
    assert seen["tty"] == [False, False, False] and seen["leader"] is True
    assert seen["key"] is None  # eddy's secrets stay with eddy


async def test_a_bash_hook_exit_code_and_streams_are_kept(tmp_path) -> None:
    cmd = script(tmp_path, "two.sh", 'cat >/dev/null; echo out; echo "no rm -rf" >&2; exit 2\n')
    run = await run_handler(HookHandler(cmd, 20), {}, tmp_path)
    assert (run.exit_code, run.stdout, run.stderr, run.failed) == (2, "out\n", "no rm -rf\n", False)


async def test_a_missing_script_is_a_failure_even_when_python_exits_2(tmp_path) -> None:
    import sys

    run = await run_handler(HookHandler(f"{sys.executable} {tmp_path}/gone.py", 20), {}, tmp_path)
    assert run.missing and run.failed and "does not exist" in run.error


async def test_a_timeout_kills_the_hook_and_everything_it_started(tmp_path) -> None:
    pids = tmp_path / "pids"
    cmd = script(tmp_path, "hang.sh", f"sleep 1000 & echo $! $$ > {pids}; wait\n")
    run = await run_handler(HookHandler(cmd, 0.5), {}, tmp_path)
    assert run.timed_out and run.exit_code is None and "timed out after 0.5 s" in run.error
    assert not any(pid_alive(int(p)) for p in pids.read_text().split())


async def test_cancelling_a_running_hook_kills_its_process_group(tmp_path) -> None:
    pids = tmp_path / "pids"
    cmd = script(tmp_path, "slow.sh", f"sleep 1000 & echo $! $$ > {pids}; wait\n")
    task = asyncio.ensure_future(run_handler(HookHandler(cmd, 600), {}, tmp_path))
    text = await wait_for_file(pids)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not any(pid_alive(int(p)) for p in text.split())


async def test_matching_handlers_run_in_parallel(tmp_path) -> None:
    # each waits for the other's file: run one after the other, both would time out
    a, b = tmp_path / "a", tmp_path / "b"
    body = (
        "touch {mine}; for i in $(seq 2000); do [ -e {other} ] && exit 0; sleep 0.01; done\n"
        "exit 1\n"
    )
    one = script(tmp_path, "one.sh", body.format(mine=a, other=b))
    two = script(tmp_path, "two.sh", body.format(mine=b, other=a))
    runs = await run_handlers([HookHandler(one, 30), HookHandler(two, 30)], {}, tmp_path)
    assert [r.exit_code for r in runs] == [0, 0]


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="needs Linux's /proc")
async def test_esc_while_a_hook_starts_kills_its_whole_group(tmp_path) -> None:
    fifo = tmp_path / "started"
    os.mkfifo(fifo)
    cmd = f"sleep 300 >/dev/null 2>&1 & echo $$ > {fifo}; wait"  # not holding its pipes
    start = run_handler(HookHandler(cmd, 20), {}, tmp_path)
    assert await cancelled_as_it_starts(start, fifo), "the hook's background sleep outlived Esc"
