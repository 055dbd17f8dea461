"""Red team: what a command the gate let through on its own can do to the machine.

Each attempt leaves a canary outside the workspace (a file, a secret in a fake HOME, a TCP
server on 127.0.0.1, a secret in the environment) and checks it after the run. The same
attempt as a command the user approved (grant ``user``) reaches the canary: that is what shows
each test can fail.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import select
import sys
import time
from pathlib import Path

import pytest

from tests.helpers.sandbox import (
    CanaryServer,
    needs_bwrap,
    processes_with,
    run_bash,
    sandboxed_ctx,
    wait_gone,
    wait_shown,
)
from tools import procgroup
from tools.base import ToolContext
from tools.bash import BashTool

pytestmark = needs_bwrap


@pytest.mark.parametrize("grant", ["read_only", "rule"])
async def test_a_sandboxed_command_cannot_write_outside_the_workspace(
    tmp_path: Path, outside: Path, grant: str
) -> None:
    ctx = sandboxed_ctx(tmp_path)
    target = outside / "planted"
    attempts = [
        f"echo x > {target}",
        f"touch {target}",
        f"cp /etc/hostname {target}",
        f'python3 -c \'open("{target}", "w").write("x")\'',
        f"mkdir {outside}/dir",
        f"ln -s /etc/passwd {outside}/link",
        f"rm -rf {outside}/*",
    ]
    (outside / "keep").write_text("keep")
    for command in attempts:
        await run_bash(ctx, command, grant)  # type: ignore[arg-type]
    assert sorted(p.name for p in outside.iterdir()) == ["keep"]
    await run_bash(ctx, f"touch {target}", "user")
    assert target.exists()  # approved by the user: outside the sandbox


async def test_the_read_only_profile_cannot_write_the_workspace_either(tmp_path: Path) -> None:
    ctx = sandboxed_ctx(tmp_path)
    (tmp_path / "a.txt").write_text("original")
    result = await run_bash(ctx, "echo changed > a.txt; touch new.txt", "read_only")
    assert result.is_error and "Read-only file system" in str(result.content)
    assert (tmp_path / "a.txt").read_text() == "original"
    assert not (tmp_path / "new.txt").exists()
    await run_bash(ctx, "echo changed > a.txt", "rule")
    assert (tmp_path / "a.txt").read_text() == "changed\n"


@pytest.mark.parametrize("grant", ["read_only", "rule"])
async def test_secrets_in_home_are_hidden(tmp_path: Path, fake_home: Path, grant: str) -> None:
    ctx = sandboxed_ctx(tmp_path)
    command = (
        "cat ~/.ssh/id_x ~/.aws/credentials ~/.netrc ~/.claude.json; ls -a ~/.ssh; "
        "grep -r CANARY ~ 2>/dev/null"
    )
    result = await run_bash(ctx, command, grant)  # type: ignore[arg-type]
    assert "CANARY" not in str(result.content)
    shown = await run_bash(ctx, "cat ~/.ssh/id_x", "user")
    assert "SSH-CANARY" in str(shown.content)


async def test_secrets_are_hidden_when_the_workspace_is_home(fake_home: Path) -> None:
    ctx = sandboxed_ctx(fake_home)
    result = await run_bash(ctx, "cat .ssh/id_x .aws/credentials .netrc; echo ok > note", "rule")
    assert "CANARY" not in str(result.content)
    assert (fake_home / "note").read_text() == "ok\n"
    assert (fake_home / ".ssh" / "id_x").read_text() == "SSH-CANARY\n"


@pytest.mark.parametrize("grant", ["read_only", "rule"])
async def test_no_network_inside_the_sandbox(
    tmp_path: Path, canary_server: CanaryServer, grant: str
) -> None:
    ctx = sandboxed_ctx(tmp_path)
    port = canary_server.port
    python = (
        'python3 -c \'import socket; s = socket.create_connection(("127.0.0.1", '
        f"{port}), 5); print(s.recv(99))'"
    )
    curl = f"curl -s --max-time 5 telnet://127.0.0.1:{port} </dev/null"
    bash_tcp = f"exec 3<>/dev/tcp/127.0.0.1/{port} && cat <&3"
    for command in (python, curl, bash_tcp):
        result = await run_bash(ctx, command, grant)  # type: ignore[arg-type]
        assert "CANARY-NET" not in str(result.content)
    assert canary_server.connections == 0
    reached = await run_bash(ctx, python, "user")
    assert "CANARY-NET" in str(reached.content) and canary_server.connections == 1


async def test_the_network_setting_shares_the_network(
    tmp_path: Path, canary_server: CanaryServer
) -> None:
    ctx = sandboxed_ctx(tmp_path, network=True)
    command = (
        'python3 -c \'import socket; s = socket.create_connection(("127.0.0.1", '
        f"{canary_server.port}), 5); print(s.recv(99))'"
    )
    result = await run_bash(ctx, command, "rule")
    assert "CANARY-NET" in str(result.content)


async def test_eddys_api_key_is_not_in_any_childs_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-CANARY")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "AWS-ENV-CANARY")
    ctx = sandboxed_ctx(tmp_path)
    for grant in ("read_only", "rule", "user"):
        result = await run_bash(
            ctx,
            "echo $ANTHROPIC_API_KEY $AWS_SECRET_ACCESS_KEY; env; cat /proc/self/environ",
            grant,  # type: ignore[arg-type]
        )
        assert "CANARY" not in str(result.content)


async def test_protected_workspace_files_stay_read_only_for_rule_allowed_commands(
    tmp_path: Path,
) -> None:
    (tmp_path / ".git" / "hooks").mkdir(parents=True)
    (tmp_path / ".git" / "config").write_text("[core]\n")
    (tmp_path / ".eddy").mkdir()
    ctx = sandboxed_ctx(tmp_path)
    command = (
        "echo '[core] fsmonitor = touch /tmp/pwned' >> .git/config; "
        "echo 'touch pwned' > .git/hooks/pre-commit; "
        'echo \'{"permissions": {"allow": ["Bash"]}}\' > .eddy/settings.json; '
        "echo fine > ordinary.txt"
    )
    await run_bash(ctx, command, "rule")
    assert (tmp_path / ".git" / "config").read_text() == "[core]\n"
    assert not (tmp_path / ".git" / "hooks" / "pre-commit").exists()
    assert not (tmp_path / ".eddy" / "settings.json").exists()
    assert (tmp_path / "ordinary.txt").read_text() == "fine\n"


async def test_timeout_kills_the_whole_tree_inside_the_sandbox(tmp_path: Path) -> None:
    ctx = sandboxed_ctx(tmp_path)
    marker = "987651"
    command = f"(setsid sleep {marker} &); sleep {marker}1 & sleep {marker}2"
    result = await run_bash(ctx, command, "rule", timeout_ms=1500)
    assert result.is_error and "timed out" in str(result.content)
    assert await wait_gone(marker) == []


async def test_esc_kills_the_whole_tree_inside_the_sandbox(tmp_path: Path) -> None:
    ctx = sandboxed_ctx(tmp_path)
    marker = "987652"
    started = asyncio.Event()

    def output(text: str) -> None:
        if "ready" in text:
            started.set()

    command = (
        f"(setsid sleep {marker} &); bash -c 'trap \"\" TERM; sleep {marker}1' & "
        f"echo ready; sleep {marker}2"
    )
    task = asyncio.ensure_future(
        BashTool().run({"command": command}, ctx.for_call(output, "read_only"))
    )
    await asyncio.wait_for(started.wait(), 20)
    assert processes_with(marker)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await wait_gone(marker) == []


async def test_cd_persists_through_the_sandbox(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    ctx = sandboxed_ctx(tmp_path)
    await run_bash(ctx, "cd sub", "read_only")
    result = await run_bash(ctx, "pwd", "read_only")
    assert str(result.content).strip() == str(tmp_path / "sub")


async def test_an_agent_socket_is_hidden_though_the_filesystem_is_readable(
    tmp_path: Path, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import socket

    path = outside / "agent.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.listen(4)
    monkeypatch.setenv("SSH_AUTH_SOCK", str(path))
    ctx = sandboxed_ctx(tmp_path)
    command = (
        "python3 -c 'import os, socket; s = socket.socket(socket.AF_UNIX); "
        's.connect(os.environ["SSH_AUTH_SOCK"]); print("CONNECTED")\''
    )
    try:
        for grant in ("read_only", "rule"):
            result = await run_bash(ctx, command, grant)  # type: ignore[arg-type]
            assert "CONNECTED" not in str(result.content)
        reached = await run_bash(ctx, command, "user")
        assert "CONNECTED" in str(reached.content)
    finally:
        server.close()


async def test_an_added_directory_that_went_away_does_not_stop_commands(tmp_path: Path) -> None:
    from agent.sandbox.runner import Sandbox

    ctx = ToolContext(tmp_path, extra_dirs=(tmp_path / "gone",), sandbox=Sandbox())
    result = await run_bash(ctx, "echo ran", "rule")
    assert not result.is_error and "ran" in str(result.content)


def _stat(pid: int) -> tuple[str, int, int]:
    """A process's name, parent and process group (/proc/PID/stat)."""
    with open(f"/proc/{pid}/stat") as f:
        head, _, rest = f.read().rpartition(")")
    fields = rest.split()
    return head.partition("(")[2], int(fields[1]), int(fields[2])


def _children(pid: int) -> list[int]:
    """The children of process ``pid`` (of its main thread)."""
    with contextlib.suppress(OSError), open(f"/proc/{pid}/task/{pid}/children") as f:
        return [int(p) for p in f.read().split()]
    return []


def _thread_children(tid: int) -> list[str]:
    """The children of thread ``tid`` of this process (an orphan comes to any of them)."""
    with contextlib.suppress(OSError), open(f"/proc/self/task/{tid}/children") as f:
        return f.read().split()
    return []


async def test_every_process_of_the_sandbox_stays_in_the_group_eddy_kills(
    tmp_path: Path,
) -> None:
    ctx = sandboxed_ctx(tmp_path)
    marker = "987653"
    started = asyncio.Event()

    def output(text: str) -> None:
        if "ready" in text:
            started.set()

    command = f"sleep {marker} & echo ready; wait"
    task = asyncio.ensure_future(BashTool().run({"command": command}, ctx.for_call(output, "rule")))
    try:
        await asyncio.wait_for(started.wait(), 20)
        # both bwraps, the shell, the sleep ("ready" can come while the sleep is mid-exec)
        inside = await wait_shown(marker, 4, bwrap=True)
        [leader] = [p for p in inside if _stat(p)[1] == os.getpid()]
        assert _stat(leader)[0] == "bwrap"
        # bubblewrap's pid 1 of the sandbox too: in a session of its own (--new-session), a
        # bwrap killed before that pid 1 armed --die-with-parent left the sandbox running
        assert len(inside) == 4 and {_stat(p)[2] for p in inside} == {leader}
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    assert await wait_gone(marker, bwrap=True) == []


async def test_a_sandboxed_command_cancelled_as_it_starts_leaves_no_process(
    tmp_path: Path,
) -> None:
    ctx = sandboxed_ctx(tmp_path)
    marker = "987654"
    command = f"sleep {marker}"
    task = asyncio.ensure_future(
        BashTool().run({"command": command}, ctx.for_call(lambda _t: None, "rule"))
    )
    deadline = time.monotonic() + 30
    while not (bwrap := sorted(set(_children(os.getpid())) & set(processes_with(marker, True)))):
        assert time.monotonic() < deadline, "bubblewrap did not start"
        await asyncio.sleep(0)  # the loop turns until bubblewrap runs, no further
    # the loop stands still (the start is pending) until bubblewrap has made its pid 1
    while not _children(bwrap[0]) and time.monotonic() < deadline:
        select.select([], [], [], 0.0005)
    assert _children(bwrap[0])
    task.cancel()  # asyncio's own clean-up of the start kills the outer bwrap's pid alone
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await wait_gone(marker, bwrap=True) == []


def _bwrap_zombies() -> set[int]:
    """This process's children that are bubblewrap zombies (an orphan comes to any thread)."""
    ours = [int(p) for t in os.listdir("/proc/self/task") for p in _thread_children(int(t))]
    found = set()
    for pid in ours:
        with contextlib.suppress(OSError):
            name, _, _ = _stat(pid)
            with open(f"/proc/{pid}/stat") as f:
                state = f.read().rpartition(")")[2].split()[0]
            if name == "bwrap" and state == "Z":
                found.add(pid)
    return found


async def test_finished_sandboxed_commands_leave_no_bwrap_zombie_in_eddy(tmp_path: Path) -> None:
    ctx = sandboxed_ctx(tmp_path)
    await run_bash(ctx, "true", "rule")  # the sandbox probe's own bwrap is not counted
    before = _bwrap_zombies()  # what other tests in this process left
    for _ in range(3):
        result = await run_bash(ctx, "echo hi", "rule")
        assert str(result.content).strip() == "hi"
    # eddy is the subreaper of its commands: the pid 1 of each sandbox comes to it when the
    # outer bwrap ends, and is reaped with the command's group (it was in its own session).
    # One still tearing down when its command ended is reaped by the next call's sweep; the
    # test sweeps as that call would, until none is left (with --new-session: never). The
    # kernel tells no one when another process's child ends, so this polls /proc with a
    # deadline: load can only make it take longer, and the assertion below names what is left
    left = _bwrap_zombies() - before
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(10):
            while left:
                procgroup.sweep()
                await asyncio.sleep(0.05)
                left = _bwrap_zombies() - before
    assert not left, f"bubblewrap zombies left in eddy: {sorted(left)}"


async def test_a_sandboxed_background_job_ends_with_the_sandbox_and_is_no_survivor(
    tmp_path: Path,
) -> None:
    ctx = sandboxed_ctx(tmp_path)
    marker = "987655"
    for _ in range(3):  # the sandbox's pid 1 may still be in the group a moment: no matter
        result = await run_bash(ctx, f"sleep {marker} & echo started", "rule")
        assert str(result.content).strip() == "started"  # no "still running" note
        assert await wait_gone(marker, bwrap=True) == []


TIOCSTI_ATTEMPT = """\
import fcntl, os, sys, termios
word = sys.argv[1]
for path in ("/dev/tty", *(f"/proc/self/fd/{n}" for n in range(3))):
    try:
        fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
        for ch in word + chr(10):
            fcntl.ioctl(fd, termios.TIOCSTI, ch.encode())
        print("typed through", path)
    except OSError as exc:
        print("refused", path, exc.errno)
"""

EDDY_WITH_A_TERMINAL = """\
import asyncio, fcntl, os, sys, termios
from pathlib import Path
from tests.helpers.sandbox import run_bash, sandboxed_ctx
workspace, grant, word = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
canary = sys.argv[4]
tty = os.open("/dev/tty", os.O_RDWR)  # eddy's own terminal: it can type into it
for ch in canary:
    fcntl.ioctl(tty, termios.TIOCSTI, ch.encode())
command = f"python3 {workspace / 'attempt.py'} {word}"
result = asyncio.run(run_bash(sandboxed_ctx(workspace), command, grant))
print("RESULT", str(result.content).replace(chr(10), " | "), flush=True)
"""


def _in_a_terminal(workspace: Path, grant: str, word: str, canary: str) -> str:
    """Run eddy's Bash tool in a process whose controlling terminal is a pty; everything that
    reached the terminal (its output, and the echo of what was typed into it)."""
    import pty

    (workspace / "attempt.py").write_text(TIOCSTI_ATTEMPT)
    root = Path(__file__).resolve().parents[2]
    args = [str(workspace), grant, word, canary]
    pid, master = pty.fork()
    if pid == 0:  # the child: a session of its own with the pty as its terminal
        os.chdir(root)
        os.execv(sys.executable, [sys.executable, "-c", EDDY_WITH_A_TERMINAL, *args])
    seen = b""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 1)
        if ready:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the child ended: the pty is closed
                break
            if not chunk:
                break
            seen += chunk
    os.waitpid(pid, 0)
    os.close(master)
    return seen.decode(errors="replace")


@pytest.mark.parametrize("grant", ["read_only", "rule", "user"])
def test_a_sandboxed_command_cannot_type_into_eddys_terminal(tmp_path: Path, grant: str) -> None:
    """TIOCSTI pushes keys into a terminal as if the user typed them (the shell behind eddy
    would run them once eddy exits). eddy's process has a terminal here and can type into
    it (the canary); the sandboxed command finds no terminal to open, whether through
    /dev/tty or its own descriptors. A command the user approved runs outside the sandbox
    but in a session of its own with no terminal either."""
    word = "in" + "jected" + str(os.getpid())  # never written whole by the test's own text
    canary = "can" + "ary" + str(os.getpid())
    seen = _in_a_terminal(tmp_path, grant, word, canary)
    assert canary in seen, seen  # typing into a terminal works here
    assert "RESULT" in seen and "typed through" not in seen, seen
    assert word not in seen, seen  # nothing was typed (the terminal echoes what is)
