"""SIGTERM / SIGHUP (frontend/termination.py): the graceful path first, a hard exit if it hangs.

The signal tests run a small child process: the handlers are installed on its event loop, the
test sends it real signals and waits for it to end. The child says "ready" (and what its
``on_signal`` saw) on stdout, so the test never sleeps on luck.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from frontend.termination import GRACE_SECONDS, Termination, handle_termination

ROOT = Path(__file__).resolve().parents[2]
WAIT = 20.0
"""The most a test waits for the child: generous (a loaded CI machine), and far below the
long grace used where the test shows the exit did not wait for it."""
LONG_GRACE = 300.0

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

CHILD = textwrap.dedent(
    """
    import asyncio, os, sys, time
    from frontend.termination import handle_termination

    MODE, GRACE = sys.argv[1], float(sys.argv[2])

    def say(text):
        os.write(1, text.encode() + b"\\n")

    async def main():
        done = asyncio.get_running_loop().create_future()

        def on_signal(code):
            say(f"signal {code}")
            if MODE == "graceful":
                done.set_result(code)
            elif MODE == "blocked":
                time.sleep(3600)  # the loop itself is stuck: only the thread can end this
            # "hang": do nothing, as a shutdown stuck on something would

        handle_termination(
            on_signal, restore=lambda: say("restored"), grace=GRACE
        )
        say("ready")
        return await done

    sys.exit(asyncio.run(main()))
    """
)


def start_child(mode: str, grace: float) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, mode, str(grace)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert read_line(proc) == "ready"
    return proc


def read_line(proc: subprocess.Popen[str]) -> str:
    assert proc.stdout is not None
    return proc.stdout.readline().strip()


def output(proc: subprocess.Popen[str]) -> str:
    assert proc.stdout is not None
    text = proc.stdout.read()
    proc.stdout.close()
    return text


def wait_exit(proc: subprocess.Popen[str]) -> int:
    try:
        return proc.wait(timeout=WAIT)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise


def test_a_hung_graceful_exit_is_ended_after_the_grace() -> None:
    proc = start_child("hang", 0.3)
    proc.send_signal(signal.SIGTERM)
    assert read_line(proc) == "signal 143"  # the graceful path was asked first
    assert wait_exit(proc) == 143
    assert output(proc).split() == ["restored"]  # the terminal put back before the exit


def test_a_second_signal_exits_at_once() -> None:
    proc = start_child("hang", LONG_GRACE)
    proc.send_signal(signal.SIGTERM)
    assert read_line(proc) == "signal 143"
    started = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    assert wait_exit(proc) == 143
    assert time.monotonic() - started < WAIT < LONG_GRACE
    assert output(proc).split() == ["restored"]


def test_sighup_calls_on_signal_with_129_and_a_graceful_exit_is_left_alone() -> None:
    proc = start_child("graceful", LONG_GRACE)
    proc.send_signal(signal.SIGHUP)
    assert read_line(proc) == "signal 129"
    assert wait_exit(proc) == 129  # the status the graceful path chose
    assert output(proc) == ""  # no hard exit: restore was not called


def test_a_blocked_event_loop_is_ended_after_the_grace() -> None:
    proc = start_child("blocked", 0.3)
    proc.send_signal(signal.SIGHUP)
    assert read_line(proc) == "signal 129"
    assert wait_exit(proc) == 129
    assert output(proc).split() == ["restored"]


def test_a_second_signal_exits_even_while_the_event_loop_is_blocked() -> None:
    proc = start_child("blocked", LONG_GRACE)
    proc.send_signal(signal.SIGTERM)
    assert read_line(proc) == "signal 143"  # on_signal now sleeps, holding the loop
    proc.send_signal(signal.SIGHUP)
    assert wait_exit(proc) == 129  # the second signal's status
    assert output(proc).split() == ["restored"]


def test_the_grace_is_a_few_seconds() -> None:
    assert 2 <= GRACE_SECONDS <= 10


def test_no_handlers_outside_the_main_thread() -> None:
    """add_signal_handler refuses (RuntimeError/ValueError) off the main thread: tolerated."""
    result: list[Any] = []

    def run() -> None:
        async def install() -> Termination:
            return handle_termination(lambda code: None)

        try:
            result.append(asyncio.run(install()))
        except BaseException as exc:  # the assertion below shows it
            result.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(WAIT)
    (termination,) = result
    assert isinstance(termination, Termination)
    assert termination.codes == {}  # nothing installed, nothing armed


async def test_plain_catch_termination_ends_the_session(monkeypatch: pytest.MonkeyPatch) -> None:
    from plain import signals

    installed: dict[str, Any] = {}

    def fake_handle(on_signal: Any, *, restore: Any = None, grace: float = 0) -> None:
        installed.update(on_signal=on_signal, restore=restore)

    monkeypatch.setattr(signals, "handle_termination", fake_handle)

    class App:
        busy = True
        interactive = False
        exit_code = 0
        calls: list[str] = []

        def interrupt(self) -> None:
            self.calls.append("interrupt")

        def request_exit(self) -> None:
            self.calls.append("exit")

    app = App()
    signals.catch_termination(app)
    assert installed["restore"] is None  # line mode prints no escape codes
    installed["on_signal"](129)
    assert app.exit_code == 129 and app.calls == ["interrupt", "exit"]


async def test_tui_exits_with_the_signal_status(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import frontend.termination
    from tests.helpers.tui import SIZE, make_args
    from tui.app import EddyApp

    monkeypatch.setenv("EDDY_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("EDDY_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    installed: dict[str, Any] = {}

    def fake_handle(on_signal: Any, *, restore: Any = None, grace: float = 0) -> None:
        installed.update(on_signal=on_signal, restore=restore)

    monkeypatch.setattr(frontend.termination, "handle_termination", fake_handle)
    workspace = tmp_path / "project"
    workspace.mkdir()
    app = EddyApp(make_args(workspace), frozen_clock=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        installed["restore"]()  # headless: nothing to put back, and no error
        installed["on_signal"](143)
        await pilot.pause()
    assert app.return_value == 143 and app.return_code == 143


COMMAND_CHILD = textwrap.dedent(
    """
    import asyncio, os, sys
    from frontend.termination import handle_termination
    from tools import procgroup

    async def main():
        proc = await asyncio.create_subprocess_exec(
            "sh", "-c", "sleep 300 & sleep 300", start_new_session=True,
            stdout=asyncio.subprocess.DEVNULL,  # not our pipe: the test reads it to its end
        )
        procgroup.started(proc)  # as the Bash tool notes a running command
        # a graceful path that hangs
        handle_termination(lambda code: os.write(1, b"signal\\n"), grace=300)
        os.write(1, f"{proc.pid}\\n".encode())
        await asyncio.get_running_loop().create_future()

    asyncio.run(main())
    """
)


def test_the_hard_exit_kills_the_running_commands_process_group() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", COMMAND_CHILD], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    pgid = int(read_line(proc))
    try:
        proc.send_signal(signal.SIGTERM)
        assert read_line(proc) == "signal"
        proc.send_signal(signal.SIGTERM)  # the second: the hard exit, at once
        assert wait_exit(proc) == 143
        assert output(proc) == ""
        # the group is empty (its members may linger as zombies: nothing reaps them here).
        # SIGKILL was sent before the exit, but a killed process becomes a zombie only once
        # the kernel has run its exit, which a loaded machine may do a moment later: wait
        # for that state, not for a time.
        deadline = time.monotonic() + 30
        while not all(state == "Z" for state in group_states(pgid)):
            assert time.monotonic() < deadline, group_states(pgid)
            time.sleep(0.01)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGKILL)


def group_states(pgid: int) -> list[str]:
    """The process states ("S", "Z", ...) of the members of group ``pgid`` (from /proc)."""
    states = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid:
            states.append(fields[0])
    return states
