"""SIGTERM and SIGHUP, for both front ends: a graceful exit first, a hard one if it hangs.

The first termination signal asks the UI to end the session the normal way (a running turn
interrupted, the session saved, the terminal restored). That path awaits things (closing the
session, the UI's own shutdown) which can get stuck; ``kill`` must still end the process, as
it ends any other program. So a second termination signal, or the graceful path not having
ended the process within ``grace`` seconds, puts the terminal back (best effort) and exits at
once with ``os._exit``: no further cleanup, which is what hung.

The hard exit is done by a daemon thread started at the first signal, not by the event loop:
it fires even when the loop is blocked. Once that first signal arrived, the termination
signals' Python-level handlers only write a byte to a pipe that thread waits on (no locks, so
they cannot deadlock whatever the main thread was doing when interrupted), and a second signal
works even when the loop never gets to run its handler. The hard exit SIGKILLs the process
groups of running shell commands first, so no tool process outlives eddy.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import select
import signal
import threading
from collections.abc import Callable
from types import FrameType

from tools import procgroup

GRACE_SECONDS = 5.0
"""How long the graceful path may take before the process is ended anyway. A normal exit
(interrupt the turn, append the last records to the transcript, restore the terminal) takes
well under a second; 5 s leaves room for a slow disk or a turn that takes a moment to stop
without making ``kill`` feel broken. It also fits the usual stop timeouts of supervisors
(systemd gives 90 s, docker stop 10 s, a closing terminal emulator a few seconds), so the
process ends on its own before they escalate to SIGKILL."""

RESTORE_SECONDS = 1.0
"""How long ``restore`` may take before the hard exit goes ahead without it (a write to a
terminal whose output is stopped, Ctrl+S, would block)."""

TERMINATION_CODES: tuple[tuple[str, int], ...] = (("SIGTERM", 143), ("SIGHUP", 129))
"""The signals handled, by name (SIGHUP does not exist on Windows), and the exit status each
gives: 128 + the signal's number, what a shell reports for a process the signal killed."""

INTERRUPT_CODES: tuple[tuple[str, int], ...] = (("SIGINT", 130), *TERMINATION_CODES)
"""The same with Ctrl+C, for a front end where it ends the program too (``eddy -p``)."""


class Termination:
    """The handlers ``handle_termination`` installed, and the hard exit they arm. The
    watcher thread is a daemon: a graceful exit that ends the process in time ends it too."""

    def __init__(
        self,
        on_signal: Callable[[int], None],
        restore: Callable[[], None] | None,
        grace: float,
        codes: dict[int, int],
    ) -> None:
        self.on_signal = on_signal
        self.restore = restore
        self.grace = grace
        self.codes = codes  # signal number -> exit status
        self.signalled = False
        self._pipe: tuple[int, int] | None = None  # the watcher's wake-up pipe (read, write)

    def handle(self, code: int) -> None:
        """The event loop's handler: the first signal starts the graceful path, and arms the
        hard exit before it so that an exception there cannot prevent the exit."""
        if self.signalled:
            if self._pipe is None:
                self._hard_exit(code)  # the watcher could not be started
            self._wake(code)
            return
        self.signalled = True
        try:
            self._arm(code)
        except (OSError, RuntimeError):
            pass  # no descriptor or thread left: a second signal still exits (above)
        self.on_signal(code)

    def _arm(self, code: int) -> None:
        read_fd, write_fd = os.pipe()
        os.set_blocking(write_fd, False)  # a signal handler must never block
        watcher = threading.Thread(
            target=self._watch, args=(read_fd, code), name="eddy-termination", daemon=True
        )
        try:
            watcher.start()
        except RuntimeError:
            os.close(read_fd)
            os.close(write_fd)
            raise
        self._pipe = (read_fd, write_fd)
        for signum in self.codes:
            try:
                signal.signal(signum, self._on_raw_signal)
            except (OSError, RuntimeError, ValueError):
                pass  # the loop's handler still catches a second signal

    def _on_raw_signal(self, signum: int, frame: FrameType | None) -> None:
        # Runs in the main thread between two bytecodes, even while the event loop is blocked
        # (the loop's own handler, still installed, also calls handle() when it can).
        self._wake(self.codes.get(signum, 143))

    def _wake(self, code: int) -> None:
        """Tell the watcher to exit with ``code`` now. Lock-free."""
        if self._pipe is None:
            return
        try:
            os.write(self._pipe[1], bytes((code,)))
        except OSError:
            pass  # the pipe is full: the watcher has been woken already

    def _watch(self, read_fd: int, code: int) -> None:
        # The pipe is not closed afterwards: a late signal handler would write to a closed (or
        # reused) descriptor. The process is ending; two descriptors do not matter.
        poller = select.poll()  # not select.select: it fails on descriptors above 1023
        poller.register(read_fd, select.POLLIN)
        if poller.poll(self.grace * 1000):
            code = os.read(read_fd, 1)[0]
        self._hard_exit(code)

    def _hard_exit(self, code: int) -> None:
        procgroup.kill_running_groups()  # lock-free; a command's processes must not outlive us
        if self.restore is not None:
            restorer = threading.Thread(target=_quietly, args=(self.restore,), daemon=True)
            try:
                restorer.start()
                restorer.join(RESTORE_SECONDS)
            except RuntimeError:
                pass  # no thread to be had: exit without it
        os._exit(code)


def _quietly(fn: Callable[[], None]) -> None:
    with contextlib.suppress(Exception):
        fn()


def handle_termination(
    on_signal: Callable[[int], None],
    *,
    restore: Callable[[], None] | None = None,
    grace: float = GRACE_SECONDS,
    signals: tuple[tuple[str, int], ...] = TERMINATION_CODES,
) -> Termination:
    """Handle SIGTERM (exit status 143) and SIGHUP (129) on the running event loop.

    The first signal calls ``on_signal(code)``, which should end the program the normal way.
    A second termination signal, or the process still running ``grace`` seconds later, calls
    ``restore()`` (best effort: exceptions are swallowed, and it is given at most
    RESTORE_SECONDS) and then ``os._exit(code)``. ``restore`` runs in a thread while the main
    thread may be stuck anywhere: it must not take locks the main thread could hold (write to
    the terminal with ``os.write`` on its descriptor, not through ``sys.stdout``).

    ``signals`` names the signals and their exit statuses (``INTERRUPT_CODES`` adds SIGINT).
    Where the loop cannot install handlers (not the main thread, as in tests; a platform
    without them) nothing is installed and the signals keep their default action.
    """
    loop = asyncio.get_running_loop()
    codes = {int(getattr(signal, name)): code for name, code in signals if hasattr(signal, name)}
    termination = Termination(on_signal, restore, grace, codes)
    for signum, code in list(codes.items()):
        try:
            loop.add_signal_handler(signum, termination.handle, code)
        except (NotImplementedError, RuntimeError, ValueError):
            del codes[signum]  # not the main thread (tests), or a platform without them
    return termination


def end_process(code: int) -> None:
    """End an interactive front end's process once it has closed its session (transcript and
    checkpoint store fsynced and closed, the terminal restored): stdout and stderr flushed, the
    ``atexit`` callbacks run (e.g. the demo's workspace removal), running shell commands'
    groups killed, then ``os._exit``. Skipping the interpreter's teardown saves 0.1-1 s once
    the SDK and Textual are imported (thousands of modules and objects to free)."""
    import atexit
    import sys

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # a closed pipe: nothing more to say
            stream.flush()
    with contextlib.suppress(Exception):
        atexit._run_exitfuncs()
    with contextlib.suppress(Exception):
        procgroup.kill_running_groups()
    os._exit(code)
