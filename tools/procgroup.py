"""Process groups: kill one whole, and reap what it leaves behind.

Bash runs each command as the leader of a new session (so of a new process group): killing
the group reaches every process the command started, however deep, unless it left the session
on purpose (``setsid``).

Killed processes must also be *reaped*, or they linger as zombies, and a zombie still counts
as a member of its group. The leader is our child and asyncio reaps it. Its descendants are
re-parented when their parent dies, normally to init, which reaps them; but in a container
PID 1 is often a program that never does. So on Linux this process makes itself a *child
subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``): orphans from the shells' groups come to us, and
:func:`reap_group` collects them with ``waitpid(-pgid)`` (only ever for groups whose leader has
already been reaped, so asyncio's own wait for the leader is never robbed). Groups that outlive
their command (background jobs) are remembered and swept at later calls.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Coroutine
from typing import Any

TERM_GRACE_S = 0.5
"""How long the group gets to exit after SIGTERM before SIGKILL."""
KILL_WAIT_S = 0.45
"""How long to wait for the group to vanish after SIGKILL."""
_POLL_S = 0.01

_subreaper: bool | None = None
_lingering: set[int] = set()
_active: set[int] = set()
_background: set[asyncio.Task[None]] = set()


def enable_subreaper() -> bool:
    """Make this process a child subreaper (Linux; once). Returns whether it is one."""
    global _subreaper
    if _subreaper is None:
        _subreaper = False
        if sys.platform.startswith("linux"):
            try:
                import ctypes

                libc = ctypes.CDLL(None, use_errno=True)
                _subreaper = libc.prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
            except (OSError, AttributeError):
                _subreaper = False
    return _subreaper


def reap_group(pgid: int) -> None:
    """Collect the exited members of group ``pgid`` that are our children (no blocking).

    Only call it once the group's leader has been reaped (its ``returncode`` is set).
    """
    while True:
        try:
            pid, _status = os.waitpid(-pgid, os.WNOHANG)
        except ChildProcessError:
            return
        except OSError:
            return
        if pid == 0:
            return


def group_alive(pgid: int) -> bool:
    """Whether any process (a zombie included) is still in group ``pgid``."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _signal(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


async def _gone(proc: asyncio.subprocess.Process, pgid: int, seconds: float) -> bool:
    """Poll until the leader is reaped and the group is empty, for at most ``seconds``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while True:
        if proc.returncode is not None:
            reap_group(pgid)
            if not group_alive(pgid):
                return True
        if loop.time() >= deadline:
            return False
        await asyncio.sleep(_POLL_S)


async def kill_group(proc: asyncio.subprocess.Process, *, grace: bool = True) -> None:
    """SIGTERM the group led by ``proc``; SIGKILL it if anything survives the grace period.

    Returns once the group is gone and the leader reaped (within about a second in all).
    Without ``grace`` the SIGKILL goes at once. Cancelled during the grace period (the end of
    the event loop cancels what is left of an interrupted command's kill), it SIGKILLs the
    group before it goes: nothing of a command may outlive eddy.
    """
    pgid = proc.pid
    if grace:
        try:
            _signal(pgid, signal.SIGTERM)
            if await _gone(proc, pgid, TERM_GRACE_S):
                return
        except asyncio.CancelledError:
            _signal(pgid, signal.SIGKILL)
            raise
    _signal(pgid, signal.SIGKILL)
    if not await _gone(proc, pgid, KILL_WAIT_S):
        _lingering.add(pgid)


async def kill_group_shielded(proc: asyncio.subprocess.Process) -> None:
    """:func:`kill_group`, finishing in the background should the caller be cancelled again."""
    await _shielded(kill_group(proc))


async def _shielded(work: Coroutine[Any, Any, None]) -> None:
    """Await ``work`` in a task that a further cancellation of the caller does not stop."""
    task = asyncio.ensure_future(work)
    _background.add(task)
    task.add_done_callback(_background.discard)
    await asyncio.shield(task)


async def start(
    create: Coroutine[Any, Any, asyncio.subprocess.Process],
) -> asyncio.subprocess.Process:
    """Await ``create`` (an asyncio subprocess creation whose process leads a new group) and
    note the leader (:func:`started`).

    Should the caller be cancelled meanwhile, the process is created all the same and its
    whole group SIGKILLed; the cancellation goes on once the group is gone (on a further
    cancellation the kill finishes in the background). asyncio's own clean-up of a cancelled
    creation kills the leader's pid alone, and what the leader started by then stays:
    bubblewrap's pid 1 of a sandbox, waiting for the killed bubblewrap to let it go on,
    waits forever (and ignores SIGTERM, as the init of a pid namespace does).

    Raises:
        OSError: the process could not be started.
    """
    creating = asyncio.ensure_future(create)
    try:
        proc = await asyncio.shield(creating)
    except asyncio.CancelledError:
        await _shielded(_kill_once_created(creating))
        raise
    started(proc)
    return proc


async def _kill_once_created(creating: asyncio.Future[asyncio.subprocess.Process]) -> None:
    """SIGKILL the group of a process whose creation was cancelled (it ran for no one)."""
    try:
        proc = await creating
    except (OSError, asyncio.CancelledError):
        return
    started(proc)
    try:
        await kill_group(proc, grace=False)
    finally:
        if proc.returncode is not None:
            finished(proc)


def kill_running_groups() -> None:
    """SIGKILL the group of every command still running, at once and without waiting: for
    an exit that cannot wait for :func:`kill_group` (eddy's hard exit on a second SIGTERM).
    Lock-free, so safe from a thread while the main one is stuck anywhere."""
    for pgid in tuple(_active):
        _signal(pgid, signal.SIGKILL)


def note_survivors(proc: asyncio.subprocess.Process) -> bool:
    """After the leader exited: reap, and remember the group if processes remain in it."""
    pgid = proc.pid
    reap_group(pgid)
    if group_alive(pgid):
        _lingering.add(pgid)
        return True
    return False


def started(proc: asyncio.subprocess.Process) -> None:
    """Note a leader asyncio is waiting for: :func:`sweep` must not touch its group."""
    _active.add(proc.pid)


def finished(proc: asyncio.subprocess.Process) -> None:
    """The leader has been reaped."""
    _active.discard(proc.pid)


def sweep() -> None:
    """Reap what remembered groups left since, and forget the groups that are now empty."""
    for pgid in list(_lingering):
        if pgid in _active:  # the number was reused by a running command's leader
            _lingering.discard(pgid)
            continue
        reap_group(pgid)
        if not group_alive(pgid):
            _lingering.discard(pgid)
