"""Background shells: commands that outlive their tool call, owned by the session.

Bash with ``run_in_background`` (after the same gate and sandbox as a foreground call) starts
its command here, in a new session and so a new process group, stdin closed, stdout and
stderr on one pipe; Ctrl+B hands a running foreground command over the same way (the pipe
reader keeps reading, into the shell instead of the call's result). BashOutput reads what came
since the last read, KillShell ends one group, ``/bashes`` lists them.

Esc does not touch them: they are not part of the turn's task. ``close()`` (the session's
close, so eddy's exit) kills every group that still has a process, so nothing is orphaned;
a hard exit's ``procgroup.kill_running_groups`` reaches them too, since their groups stay
registered as running until they are empty.

Checkpoints: eddy cannot bracket a command that runs between prompts, so while background
shells exist the session asks the checkpoint store to ``catch_up`` (diff the tree against its
last snapshot and record the changes) before each prompt and before each foreground command:
what a background shell changed belongs to the prompt during which it ran.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from agent.session.reports import BackgroundReports, shell_report
from tools import procgroup
from tools.base import ShellWatch, ToolError, ToolLimits
from tools.bash import output_cap
from tools.outbuf import HeadTail
from tools.shellproc import DRAIN_S, PipeReader, spawn_in_group
from tools.spool import OutputSpool

if TYPE_CHECKING:
    from agent.checkpoints.engine import CheckpointStore

ShellStatus = Literal["running", "completed", "failed", "killed"]
UNREAD_MAX_CHARS = 2_000_000
"""Unread output kept per shell; older unread output is dropped (the log file has it)."""


@dataclass
class BackgroundShell:
    """One background command and what it printed since the model last read it."""

    id: str
    command: str
    description: str
    proc: asyncio.subprocess.Process
    log: OutputSpool
    started_at: float = field(default_factory=time.time)
    status: ShellStatus = "running"
    exit_code: int | None = None
    done: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when the command's process has exited (or was killed)."""
    unread: list[str] = field(default_factory=list)
    unread_chars: int = 0
    dropped_chars: int = 0
    reader: PipeReader | None = None
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    """Set at each new output and at the exit (cleared by whoever waits on it)."""
    watch: ShellWatch | None = None
    """The sandbox's watch over it, finished once when its process exits."""
    leftovers: tuple[Path, ...] = ()
    """Files its command writes until it is over, removed then (a foreground call's
    record of its last directory, written by its shell's exit trap)."""

    def finish_watch(self) -> None:
        """Finish the sandbox's watch (once): what it undid is added to the output."""
        watch, self.watch = self.watch, None
        if watch is None:
            return
        note = watch.finish()
        if note:
            self.feed(f"\n{note}\n")

    @property
    def pgid(self) -> int:
        """Its process group (the leader's pid)."""
        return self.proc.pid

    def feed(self, text: str) -> None:
        """New output from the pipe."""
        self.log.feed(text)
        self.changed.set()
        self.unread.append(text)
        self.unread_chars += len(text)
        while self.unread_chars > UNREAD_MAX_CHARS and len(self.unread) > 1:
            old = self.unread.pop(0)
            self.unread_chars -= len(old)
            self.dropped_chars += len(old)

    def take_unread(self, keep_partial_line: bool) -> str:
        """The unread output, now read; a last line without its newline may stay unread."""
        text = "".join(self.unread)
        rest = ""
        if keep_partial_line and not text.endswith("\n") and self.status == "running":
            text, _, rest = text.rpartition("\n")
            text = text + "\n" if text else ""
        self.unread = [rest] if rest else []
        self.unread_chars = len(rest)
        return text


class ShellRegistry:
    """The session's background shells (the :class:`tools.base.BackgroundShells` the tools
    use).

    Args:
        limits: the tools' limits (how much of a shell's output is kept in memory).
        output_dir: where a shell's whole output is logged (None: a temporary directory).
        on_change: called when a shell starts or ends (front ends refresh what they show).
        reports: the session's reports (agent/session/reports.py): each shell is expected
            to report from its start, and reports when its command ends or is killed (until
            ``close``).
    """

    def __init__(
        self,
        limits: ToolLimits,
        output_dir: Path | None = None,
        on_change: Callable[[], None] | None = None,
        reports: BackgroundReports | None = None,
    ) -> None:
        self.limits = limits
        self.output_dir = output_dir
        self.on_change = on_change
        self.reports = reports
        self.shells: dict[str, BackgroundShell] = {}
        self.store: CheckpointStore | None = None
        self._count = 0
        self._foreground: set[asyncio.Event] = set()
        self._watchers: set[asyncio.Task[None]] = set()
        self._unscanned = False
        """Some shell ran since the checkpoint store last caught up."""

    # -- starting ---------------------------------------------------------------------------
    async def start(
        self,
        argv: list[str],
        cwd: Path,
        command: str,
        description: str,
        watch: ShellWatch | None = None,
    ) -> str:
        """Start ``argv`` in a new process group; its shell id (``watch``: the sandbox's, over
        the command, finished when it exits)."""
        proc, read_fd = await spawn_in_group(argv, cwd)
        shell = self._register(proc, command, description)
        shell.watch = watch
        shell.reader = PipeReader(read_fd, shell.feed)
        self._watch(shell)
        return shell.id

    def adopt(
        self,
        proc: asyncio.subprocess.Process,
        reader: Any,
        command: str,
        watch: ShellWatch | None = None,
        leftovers: tuple[Path, ...] = (),
    ) -> str:
        """Take over a running foreground command (Ctrl+B) with its pipe reader (and the
        sandbox's watch over it, and the ``leftovers`` removed when its group is gone)."""
        shell = self._register(proc, command, "")
        shell.watch = watch
        shell.leftovers = leftovers
        shell.reader = reader
        reader.on_text = shell.feed
        self._watch(shell)
        return shell.id

    def _register(
        self, proc: asyncio.subprocess.Process, command: str, description: str
    ) -> BackgroundShell:
        self._count += 1
        shell_id = f"bash_{self._count}"
        log = OutputSpool(0, self.output_dir, prefix=shell_id)
        shell = BackgroundShell(shell_id, command, description, proc, log)
        self.shells[shell_id] = shell
        if self.reports is not None:
            self.reports.expect(shell_id)
        self._unscanned = True
        self._changed()
        return shell

    def _watch(self, shell: BackgroundShell) -> None:
        task = asyncio.get_running_loop().create_task(self._wait(shell))
        self._watchers.add(task)
        task.add_done_callback(self._watchers.discard)

    async def _wait(self, shell: BackgroundShell) -> None:
        """Note the exit; keep reading what the group's other processes still print."""
        code = await shell.proc.wait()
        ended = shell.status == "running"
        if ended:
            shell.exit_code = code
            shell.status = "completed" if code == 0 else "failed"
        shell.finish_watch()
        shell.done.set()
        shell.changed.set()
        self._changed()
        reader = shell.reader
        if reader is not None:
            await asyncio.wait({reader.eof}, timeout=DRAIN_S)
            procgroup.reap_group(shell.pgid)
            if not procgroup.group_alive(shell.pgid):
                self._release(shell)
        if ended:  # after the last output was read: the model may read it all then
            self._report(shell)

    def _release(self, shell: BackgroundShell) -> None:
        """The group is empty: stop reading, close the log, remove the leftovers, forget the
        group."""
        if shell.reader is not None:
            shell.reader.close()
            shell.reader = None
        shell.log.close()
        for path in shell.leftovers:
            with contextlib.suppress(OSError):
                path.unlink()
        procgroup.finished(shell.proc)

    def _report(self, shell: BackgroundShell) -> None:
        """Tell the session that ``shell`` ended (its report: Claude Code's words)."""
        if self.reports is None:
            return
        label = shell.description or " ".join(shell.command.split())
        if len(label) > 80:
            label = label[:79] + "…"
        path = str(shell.log.path) if shell.log.path is not None else ""
        self.reports.add(shell_report(shell.id, label, shell.status, shell.exit_code, path))

    def _changed(self) -> None:
        if self.on_change is not None:
            with contextlib.suppress(Exception):
                self.on_change()

    # -- Ctrl+B -----------------------------------------------------------------------------
    def foreground(self) -> asyncio.Event:
        """Register a running foreground command; its event is set by ``detach_foreground``."""
        event = asyncio.Event()
        self._foreground.add(event)
        return event

    def release_foreground(self, event: asyncio.Event) -> None:
        """The foreground command of ``event`` ended or was handed over."""
        self._foreground.discard(event)

    def detach_foreground(self) -> bool:
        """Send the running foreground command(s) to the background; whether there was one."""
        for event in self._foreground:
            event.set()
        return bool(self._foreground)

    # -- reading and killing ----------------------------------------------------------------
    def _get(self, shell_id: str) -> BackgroundShell:
        shell = self.shells.get(str(shell_id).strip())
        if shell is None:
            known = ", ".join(self.shells) or "none"
            raise ToolError(f"No shell found with ID: {shell_id} (background shells: {known}).")
        return shell

    def read(self, shell_id: str, pattern: str | None) -> str:
        """New output of ``shell_id`` since the last read, with its status (BashOutput)."""
        shell = self._get(shell_id)
        rx = None
        if pattern:
            try:
                rx = re.compile(pattern)
            except re.error as exc:
                raise ToolError(f"Invalid filter regex {pattern!r}: {exc}.") from None
        text = shell.take_unread(keep_partial_line=rx is not None)
        if rx is not None:
            text = "".join(line for line in text.splitlines(True) if rx.search(line))
        buf = HeadTail(output_cap(self.limits))
        buf.feed(text)
        parts = [f"<status>{shell.status}</status>"]
        if shell.exit_code is not None:
            parts.append(f"<exit_code>{shell.exit_code}</exit_code>")
        body = buf.text().rstrip("\n")
        if body:
            parts.append(f"<stdout>\n{body}\n</stdout>")
        notes = []
        if shell.dropped_chars:
            notes.append(f"{shell.dropped_chars} characters of older unread output were dropped.")
            shell.dropped_chars = 0
        if buf.truncated and shell.log.path is not None:
            notes.append(f"The whole output is saved in {shell.log.path}.")
        if notes:
            parts.append(" ".join(notes))
        stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
        parts.append(f"<timestamp>{stamp}</timestamp>")
        return "\n\n".join(parts)

    async def kill(self, shell_id: str) -> str:
        """Kill the whole group of ``shell_id`` (KillShell, ``/bashes kill``)."""
        shell = self._get(shell_id)
        if shell.status != "running":
            code = f", exit code {shell.exit_code}" if shell.exit_code is not None else ""
            raise ToolError(f"Shell {shell.id} is not running (status: {shell.status}{code}).")
        shell.status = "killed"
        await procgroup.kill_group_shielded(shell.proc)
        self._release(shell)
        shell.done.set()
        self._report(shell)
        self._changed()
        return f"Successfully killed shell: {shell.id} ({shell.command})"

    def number_after(self, used: list[str]) -> None:
        """New shells get ids after ``used`` (a resumed history's): one id, one shell."""
        for shell_id in used:
            number = shell_id.removeprefix("bash_")
            if number.isdigit():
                self._count = max(self._count, int(number))

    def listing(self) -> list[BackgroundShell]:
        """Every shell of the session, oldest first (``/bashes``)."""
        return list(self.shells.values())

    def running(self) -> list[BackgroundShell]:
        """The shells whose command still runs."""
        return [s for s in self.shells.values() if s.status == "running"]

    # -- checkpoints and the end --------------------------------------------------------------
    def attach_checkpoints(self, store: CheckpointStore) -> None:
        """Record what background shells change in ``store``, through ``catch_up``: before
        each foreground command (agent/session/checkpoint_hooks.py) and each prompt."""
        self.store = store

    async def catch_up(self) -> None:
        """Record in the checkpoint store what background shells changed since its last scan."""
        if self.store is None or not self._unscanned:
            return
        self._unscanned = bool(self.running())
        await self.store.catch_up()

    async def close(self) -> None:
        """Kill every group that still has a process (eddy's exit: no orphans)."""
        self.reports = None  # nobody reads a report any more
        for shell in list(self.shells.values()):
            if shell.status == "running":
                shell.status = "killed"
            if shell.reader is not None or procgroup.group_alive(shell.pgid):
                await procgroup.kill_group_shielded(shell.proc)
                self._release(shell)
            shell.finish_watch()  # what it made must not outlive eddy either
            shell.done.set()
        for task in list(self._watchers):
            task.cancel()
        await asyncio.gather(*self._watchers, return_exceptions=True)
