"""The headless signal matrix: Ctrl+C, SIGTERM and SIGHUP at every stage of ``eddy -p``.

Each run is a real ``eddy -p`` process against the fake API, signalled at a point chosen by
what happened, never by a sleep: the handlers installed (``/proc``), a line printed, a marker
file the tool wrote. Whatever the point: the exit status is the signal's (130 / 143 / 129),
or the result's once the result line is out; no traceback; no process left in the running
command's process group; the saved transcript loads and its history is valid.
"""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from agent.messages import ToolResultBlock, check_invariant
from agent.store.listing import latest_session
from agent.store.load import load
from tests.fakes.fake_api import FakeAnthropic, Reply, text, tool_use

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc, signals")

WAIT = 60.0
"""The most a run may take to reach a point or to end: generous, for a loaded machine."""

SIGNALS = [
    pytest.param(signal.SIGINT, 130, id="INT"),
    pytest.param(signal.SIGTERM, 143, id="TERM"),
    pytest.param(signal.SIGHUP, 129, id="HUP"),
]

# The command of the mid-tool point: a shell with a child that has a child of its own (all in
# the command's process group), which writes the group's id once they all run.
TREE = "sh -c 'sleep 300 & wait' & sleep 300 & echo $$ > group.tmp && mv group.tmp group; wait"


class Run:
    """A running ``eddy -p``: stdout and stderr merged, read line by line in a thread."""

    def __init__(self, fake: FakeAnthropic, cwd: Path, *args: str, **env: str) -> None:
        environ = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
        environ |= {"ANTHROPIC_BASE_URL": fake.base_url, "ANTHROPIC_API_KEY": "test-key", **env}
        exe = Path(sys.executable).with_name("eddy")
        cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "cli.main"]
        self.proc = subprocess.Popen(
            [*cmd, "-p", *args, "--output-format", "eddy-events"],
            cwd=cwd,
            env=environ,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.lines: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def wait_line(self, matches: Callable[[str], bool]) -> str:
        """The first new line ``matches`` accepts (each line read is kept in ``lines``)."""
        deadline = time.monotonic() + WAIT
        while True:
            line = self._queue.get(timeout=max(0.0, deadline - time.monotonic()))
            if line is None:
                pytest.fail("eddy ended first:\n" + "\n".join(self.lines))
            self.lines.append(line)
            if matches(line):
                return line

    def wait_event(self, kind: str) -> dict:
        """The next eddy-events event of type ``kind``."""
        return json.loads(self.wait_line(lambda line: f'"type": "{kind}"' in line))

    def finish(self) -> int:
        """Wait for the exit; all output is then in ``lines``."""
        try:
            code = self.proc.wait(timeout=WAIT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise
        while (line := self._queue.get(timeout=WAIT)) is not None:
            self.lines.append(line)
        return code

    @property
    def output(self) -> str:
        return "\n".join(self.lines)


def wait_until(condition: Callable[[], bool], what: str) -> None:
    """Poll ``condition`` (a state of the child process or of a file) until it holds."""
    deadline = time.monotonic() + WAIT
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.001)


def catches(pid: int, signum: int) -> bool:
    """Whether process ``pid`` has a handler for ``signum`` (its ``SigCgt`` mask)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    mask = re.search(r"^SigCgt:\s*([0-9a-f]+)$", status, re.MULTILINE)
    return mask is not None and bool(int(mask.group(1), 16) >> (signum - 1) & 1)


def live_members(pgid: int) -> list[int]:
    """The processes of group ``pgid`` that are alive (zombies excluded: PID 1 here may never
    reap what it inherits, and a zombie runs nothing)."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()  # after "pid (comm)": state ppid pgrp ...
        if int(fields[2]) == pgid and fields[0] != "Z":
            members.append(int(entry.name))
    return members


@pytest.fixture
def workspace(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path
    group = tmp_path / "group"
    if group.exists():  # a failed run must not leave its sleeps behind
        try:
            os.killpg(int(group.read_text()), signal.SIGKILL)
        except (ProcessLookupError, ValueError):
            pass


def assert_ended_cleanly(run: Run, code: int, expected: int, workspace: Path) -> None:
    """The exit status, no traceback, and a saved session that loads valid."""
    assert code == expected, run.output
    assert "Traceback" not in run.output and "KeyboardInterrupt" not in run.output, run.output
    path = latest_session(workspace)
    if path is None:
        return  # ended before the session existed: nothing to save
    loaded = load(path)
    assert not loaded.problems, loaded.problems
    check_invariant(list(loaded.history), at_rest=True)
    if loaded.history:
        assert "the task" in [p for _, p in loaded.prompts]


@pytest.mark.parametrize(("signum", "expected"), SIGNALS)
def test_a_signal_at_start_up_ends_quietly(
    fake_api: FakeAnthropic, workspace: Path, signum: int, expected: int
) -> None:
    """Signalled as soon as the handlers are in place, during the imports that follow."""
    fake_api.push(Reply([text("too late")]))
    run = Run(fake_api, workspace, "the task")
    wait_until(lambda: catches(run.proc.pid, signal.SIGTERM), "the handlers")
    run.proc.send_signal(signum)
    assert_ended_cleanly(run, run.finish(), expected, workspace)


@pytest.mark.parametrize(("signum", "expected"), SIGNALS)
def test_a_signal_during_the_sdk_import_acts_at_once(
    fake_api: FakeAnthropic, workspace: Path, signum: int, expected: int
) -> None:
    """The first model call imports the SDK (seconds): the signal must not wait for it.
    ``-X importtime`` prints a line when ``anthropic`` is imported; the run must have ended
    its turn before that line."""
    fake_api.push(Reply([text("too late")]))
    run = Run(fake_api, workspace, "the task", PYTHONPROFILEIMPORTTIME="1")
    run.wait_event("model_call_started")
    run.proc.send_signal(signum)
    result = run.wait_event("result")
    imported = [line for line in run.lines if re.search(r"\|\s*anthropic$", line)]
    assert imported == [], "the signal waited for the SDK import"
    assert result["subtype"] == "interrupted"
    assert fake_api.requests == []
    assert_ended_cleanly(run, run.finish(), expected, workspace)


@pytest.mark.parametrize(("signum", "expected"), SIGNALS)
def test_a_signal_mid_stream_stops_the_response(
    fake_api: FakeAnthropic, workspace: Path, signum: int, expected: int
) -> None:
    fake_api.push(Reply([text("word " * 400)], delay=0.02))
    run = Run(fake_api, workspace, "the task")
    run.wait_event("text_delta")
    run.proc.send_signal(signum)
    result = run.wait_event("result")
    assert result["subtype"] == "interrupted"
    assert_ended_cleanly(run, run.finish(), expected, workspace)
    assert len(fake_api.requests) == 1 and fake_api.violations == []


@pytest.mark.parametrize(("signum", "expected"), SIGNALS)
def test_a_signal_mid_tool_kills_the_commands_process_group(
    fake_api: FakeAnthropic, workspace: Path, signum: int, expected: int
) -> None:
    fake_api.push(
        Reply([tool_use("toolu_tree", "Bash", {"command": TREE})], "tool_use"),
        Reply([text("never asked for")]),
    )
    # approved by the user (bypass): outside the sandbox, so the command's process group is
    # visible from here (inside, it has its own PID namespace, which dies with bwrap:
    # tests/security covers that path); a background tree is unmodelled and would ask
    run = Run(fake_api, workspace, "the task", "--permission-mode", "bypassPermissions")
    marker = workspace / "group"
    wait_until(marker.exists, "the command's marker file")
    pgid = int(marker.read_text())
    # bash, sh, and the two sleeps (the inner one may start after the marker is written)
    wait_until(lambda: len(live_members(pgid)) >= 4, "the whole tree running")
    run.proc.send_signal(signum)
    code = run.finish()
    assert live_members(pgid) == []
    assert_ended_cleanly(run, code, expected, workspace)
    assert json.loads(run.lines[-1])["subtype"] == "interrupted"
    loaded = load(latest_session(workspace))  # type: ignore[arg-type]
    (result,) = [b for m in loaded.history for b in m.content if isinstance(b, ToolResultBlock)]
    assert result.is_error
    assert len(fake_api.requests) == 1


@pytest.mark.parametrize(("signum", "expected"), SIGNALS)
def test_a_signal_after_the_result_keeps_the_results_status(
    fake_api: FakeAnthropic, workspace: Path, signum: int, expected: int
) -> None:
    fake_api.push(Reply([text("all done")]))
    run = Run(fake_api, workspace, "the task")
    result = run.wait_event("result")
    assert result["subtype"] == "success"
    # Signals until it exits, so that some land while the interpreter shuts down (which takes
    # about a second after the SDK was imported): each must leave the result's status.
    while run.proc.poll() is None:
        run.proc.send_signal(signum)
        time.sleep(0.005)  # paces the signals; no outcome depends on it
    assert_ended_cleanly(run, run.finish(), 0, workspace)
