"""Bash: run a shell command in the workspace, streaming its output.

Each call runs ``bash -c`` in a new session (so a new process group), stdin ``/dev/null``,
stdout and stderr merged into one pipe of its own (a killed command's output can never reach
the next call). The output is read as it comes, decoded incrementally (a UTF-8 sequence split
between reads is kept whole), passed to ``ctx.output`` chunk by chunk and kept in a bounded
head-and-tail buffer. ``cd`` persists: an EXIT trap writes ``pwd -P`` to a temporary file (not
to the output), and the next call starts there if it lies inside the workspace. The file goes
with the call; one that an eddy killed with SIGKILL left behind (its name holds the process
id) is removed by the next eddy's first call (``sweep_dead_cwd_files``).

On timeout or cancellation the whole group gets SIGTERM, then SIGKILL if anything survives half
a second, and is reaped (see :mod:`tools.procgroup`). When the shell exits but a background job
still holds the pipe, reading stops after a short drain and the job is left running.

``run_in_background`` hands the command to the session's background shells
(``ctx.shells``, :mod:`agent.session.shells`) after the same gate, sandbox and checkpoint
bracket, and returns its id at once; Ctrl+B hands a running foreground command over the same
way. Output past the cap is cut in the middle and saved whole to a file the result names
(:mod:`tools.spool`).

With ``ctx.sandbox`` set, the command line is wrapped in the OS sandbox the gate's grant calls
for (:mod:`agent.sandbox`); a sandboxed command's background jobs end with it (they live in
its PID namespace), and killing the group kills the namespace.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import shutil
import signal
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tools import procgroup
from tools.base import ResolvedPath, ShellWatch, ToolContext, ToolError, ToolLimits, ToolResult
from tools.outbuf import HeadTail
from tools.shellproc import DRAIN_S, ENV_EXTRA, PipeReader, spawn_in_group
from tools.spool import OutputSpool

_LIMITS = ToolLimits()
CWD_PREFIX = "eddy-cwd-"
"""The start of the temporary files the shells write their last directory into, followed by
the id of the eddy process that made one and a dash."""
_swept = False


def sweep_dead_cwd_files() -> int:
    """Remove the directory files of eddy processes that no longer run (killed with SIGKILL,
    before their ``finally`` could), this user's only; once per process. Returns how many."""
    global _swept
    if _swept:
        return 0
    _swept = True
    removed = 0
    try:
        entries = list(os.scandir(tempfile.gettempdir()))
    except OSError:
        return 0
    for entry in entries:
        pid_text, dash, _rest = entry.name.removeprefix(CWD_PREFIX).partition("-")
        if not (entry.name.startswith(CWD_PREFIX) and dash and pid_text.isdigit()):
            continue
        with contextlib.suppress(OSError):
            if entry.stat(follow_symlinks=False).st_uid != os.getuid() or _alive(int(pid_text)):
                continue
            os.unlink(entry.path)
            removed += 1
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process (EPERM): alive
        return True
    return True


def _shell() -> str:
    if os.access("/bin/bash", os.X_OK):
        return "/bin/bash"
    return shutil.which("bash") or "/bin/sh"


def _inside(ctx: ToolContext, path: Path) -> bool:
    return any(path == r or r in path.parents for r in ctx.roots())


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _seconds(ms: int) -> str:
    return f"{ms / 1000:g}s" if ms < 60_000 else f"{ms / 60_000:g} min"


def output_cap(limits: ToolLimits) -> int:
    """The characters of Bash output a result keeps (``BASH_MAX_OUTPUT_LENGTH``)."""
    return limits.bash_output_max_chars or limits.output_max_chars


@dataclass
class _Outcome:
    """How a foreground command ended."""

    code: int | None = None
    timed_out: bool = False
    survivors: str | None = None
    background_id: str | None = None
    """The shell id when the user sent the command to the background (Ctrl+B)."""
    watch: ShellWatch | None = None
    """The sandbox's watch over this command (finished when it ends, wherever it runs)."""
    refused: str | None = None
    """What the watch undid when the command ended (the result is then an error)."""


class BashTool:
    """The Bash tool (Claude Code's name and input fields)."""

    name = "Bash"
    description = (
        "Executes a bash command and returns its output (stdout and stderr merged).\n"
        "- The command runs in the workspace; the working directory persists between calls "
        "(cd works) as long as it stays inside the workspace. Prefer absolute paths or paths "
        "relative to the workspace root, and avoid cd unless the user asks for it.\n"
        "- Quote paths that contain spaces with double quotes.\n"
        "- stdin is closed: interactive commands (editors, prompts, git rebase -i, less) cannot "
        "be used. Pagers are disabled.\n"
        f"- timeout is in milliseconds, at most {_LIMITS.bash_max_timeout_ms} "
        f"({_seconds(_LIMITS.bash_max_timeout_ms)}); without it the command is killed after "
        f"{_seconds(_LIMITS.bash_default_timeout_ms)}.\n"
        f"- Output beyond {output_cap(_LIMITS)} characters is cut in the middle: the start "
        "and the end are kept, and the whole output is saved to a file the result names.\n"
        "- A non-zero exit status is reported as an error with the exit code.\n"
        "- run_in_background: true starts a long-running command (a server, a watcher, a long "
        "build) and returns at once with a shell id: read its new output with BashOutput, "
        "stop it with KillShell. No '&' is needed then. Background shells outlive the turn and "
        "end when eddy exits.\n"
        "- Use the dedicated tools instead of shell equivalents: Glob (not find or ls -R), Grep "
        "(not grep or rg), Read (not cat, head or tail), Edit/Write (not sed, awk or echo >).\n"
        "- Run independent commands as separate calls, or chain dependent ones with '&&'.\n"
        "- Give a short description (5-10 words) of what the command does."
    )
    input_schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "command": {"type": "string", "minLength": 1, "description": "The command to execute"},
            "timeout": {
                "type": "integer",
                "minimum": 1,
                "description": f"Optional timeout in milliseconds (max "
                f"{_LIMITS.bash_max_timeout_ms})",
            },
            "description": {
                "type": "string",
                "description": "Clear, concise description of what this command does in 5-10 "
                "words, e.g. 'Run the unit tests' or 'Show git status'",
            },
            "run_in_background": {
                "type": "boolean",
                "description": "Set to true to run this command in the background. Use "
                "BashOutput to read the output later.",
            },
        },
        "required": ["command"],
        "additionalProperties": False,
    }
    read_only = False

    def paths(self, args: dict[str, Any], ctx: ToolContext) -> list[ResolvedPath]:
        """None: the permission layer parses the command itself."""
        return []

    def summary(self, args: dict[str, Any]) -> str:
        """The command."""
        return str(args.get("command", ""))

    def _start_dir(self, ctx: ToolContext, notes: list[str]) -> Path:
        cwd = ctx.shell.cwd
        if cwd is None:
            return ctx.workspace
        problem = None
        if not cwd.is_dir():
            problem = "no longer exists"
        elif not _inside(ctx, Path(os.path.realpath(cwd))):
            problem = "is outside the workspace"
        if problem:
            notes.append(f"Shell cwd was reset to {ctx.workspace} ({cwd} {problem}).")
            ctx.shell.cwd = None
            return ctx.workspace
        return cwd

    def _end_dir(self, ctx: ToolContext, cwd_file: str, notes: list[str]) -> None:
        try:
            with open(cwd_file, encoding="utf-8", errors="surrogateescape") as f:
                text = f.read().rstrip("\n")
        except OSError:
            return
        if not text:
            return
        path = Path(os.path.realpath(text))
        if _inside(ctx, path):
            ctx.shell.cwd = None if path == ctx.workspace else path
        else:
            ctx.shell.cwd = None
            notes.append(
                f"Shell cwd was reset to {ctx.workspace} ({path} is outside the workspace)."
            )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Run the command; see the description."""
        notes: list[str] = []
        cwd = self._start_dir(ctx, notes)
        procgroup.enable_subreaper()
        procgroup.sweep()
        if args.get("run_in_background"):
            return await self._run_in_background(args, ctx, cwd, notes)
        sweep_dead_cwd_files()
        fd, cwd_file = tempfile.mkstemp(prefix=f"{CWD_PREFIX}{os.getpid()}-")
        os.close(fd)
        outcome = _Outcome()
        try:  # the file goes with the call, whatever ends it (Esc included), or with its shell
            return await self._run_writing_cwd(args, ctx, cwd, cwd_file, outcome, notes)
        finally:
            if outcome.background_id is None:
                with contextlib.suppress(OSError):
                    os.unlink(cwd_file)

    async def _run_writing_cwd(
        self,
        args: dict[str, Any],
        ctx: ToolContext,
        cwd: Path,
        cwd_file: str,
        outcome: _Outcome,
        notes: list[str],
    ) -> ToolResult:
        """Run the command in the foreground; its shell writes its last directory into
        ``cwd_file`` as it exits. ``outcome`` is filled in as it ends."""
        timeout_ms = int(args.get("timeout") or ctx.limits.bash_default_timeout_ms)
        timeout_ms = min(timeout_ms, ctx.limits.bash_max_timeout_ms)
        ctx.shell.command = str(args["command"])
        script = f"trap 'pwd -P >| {shlex.quote(cwd_file)}' EXIT; {args['command']}"
        argv = bare = [_shell(), "-c", script]
        watch = None
        if ctx.sandbox is not None:
            argv = ctx.sandbox.wrap(
                argv,
                cwd=cwd,
                grant=ctx.grant,
                command=str(args["command"]),
                roots=ctx.roots(),
                writable_files=(Path(cwd_file),),
                own_session=ctx.client_terminal is None,  # else the editor starts it
            )
            watch = ctx.sandbox.watch(ctx.grant, str(args["command"]), ctx.roots())
        # A read-only grant runs in the read-only sandbox: it cannot change what checkpoints keep.
        records = not (ctx.grant == "read_only" and ctx.sandbox is not None)
        if records and ctx.before_shell is not None:
            await ctx.before_shell()
        buf = HeadTail(output_cap(ctx.limits))
        spool = OutputSpool(output_cap(ctx.limits), ctx.output_dir)
        try:
            if ctx.client_terminal is not None:  # the editor runs it (ACP terminal)
                code, timed_out, survivors = await self._in_client(
                    argv, cwd, timeout_ms / 1000, buf, spool, ctx
                )
                outcome.code, outcome.timed_out, outcome.survivors = code, timed_out, survivors
            else:
                await self._execute(
                    argv,
                    cwd,
                    timeout_ms / 1000,
                    buf,
                    spool,
                    ctx,
                    outcome,
                    watch,
                    boxed=argv is not bare,
                    cwd_file=Path(cwd_file),
                )
            if outcome.background_id is None:  # a command sent on keeps no cwd
                self._end_dir(ctx, cwd_file, notes)
        finally:
            spool.close()
            if watch is not None and outcome.background_id is None:
                outcome.refused = watch.finish()  # before anything else sees the tree
            if records and ctx.after_shell is not None:
                await ctx.after_shell()
        return self._result(buf, spool, outcome, timeout_ms, notes)

    async def _run_in_background(
        self, args: dict[str, Any], ctx: ToolContext, cwd: Path, notes: list[str]
    ) -> ToolResult:
        """Start the command as a background shell; its id at once."""
        if ctx.shells is None:
            raise ToolError(
                "Background shells are not available here; run the command without "
                "run_in_background."
            )
        command = str(args["command"])
        argv = [_shell(), "-c", command]
        watch = None
        if ctx.sandbox is not None:
            argv = ctx.sandbox.wrap(
                argv,
                cwd=cwd,
                grant=ctx.grant,
                command=command,
                roots=ctx.roots(),
                own_session=True,  # the shells start it with spawn_in_group
            )
            watch = ctx.sandbox.watch(ctx.grant, command, ctx.roots())
        if ctx.before_shell is not None:
            await ctx.before_shell()
        try:
            shell_id = await ctx.shells.start(
                argv, cwd, command, str(args.get("description") or ""), watch
            )
        finally:
            if ctx.after_shell is not None:  # what it changes later: the next prompt's scan
                await ctx.after_shell()
        text = (
            f"Command running in background with ID: {shell_id}. You will be told when it "
            f"finishes; meanwhile read its output with BashOutput (bash_id {shell_id!r}); stop "
            "it with KillShell."
        )
        return ToolResult("\n".join([text, *notes]))

    async def _execute(
        self,
        argv: list[str],
        cwd: Path,
        timeout_s: float,
        buf: HeadTail,
        spool: OutputSpool,
        ctx: ToolContext,
        out: _Outcome,
        watch: ShellWatch | None = None,
        *,
        boxed: bool = False,
        cwd_file: Path,
    ) -> None:
        """Run ``argv`` until it exits, times out or the user sends it to the background (its
        sandbox ``watch`` and ``cwd_file``, which its shell writes as it exits, go with it);
        how it ended goes into ``out``. ``boxed``: it runs in the sandbox, whose processes all
        end with it (bubblewrap's pid 1, still in the group a moment, is no survivor)."""
        sink = ctx.output

        def on_text(text: str) -> None:
            buf.feed(text)
            spool.feed(text)
            with contextlib.suppress(Exception):  # a broken sink must not lose the output
                sink(text)

        proc, read_fd = await spawn_in_group(argv, cwd)
        reader = PipeReader(read_fd, on_text)
        out.watch = watch
        to_background = ctx.shells.foreground() if ctx.shells is not None else None
        try:
            if await self._wait(proc, timeout_s, to_background) == "background":
                assert ctx.shells is not None
                out.background_id = ctx.shells.adopt(
                    proc, reader, ctx.shell.command, out.watch, leftovers=(cwd_file,)
                )
                return
            if proc.returncode is None:
                out.timed_out = True
                await procgroup.kill_group_shielded(proc)
            await asyncio.wait({reader.eof}, timeout=DRAIN_S)
            if not out.timed_out and procgroup.note_survivors(proc) and not boxed:
                survivors = "(Background processes started by the command are still running"
                survivors += (
                    "; their further output is not captured.)" if not reader.eof.done() else ".)"
                )
                out.survivors = survivors
        except asyncio.CancelledError:
            await procgroup.kill_group_shielded(proc)
            raise
        finally:
            if to_background is not None and ctx.shells is not None:
                ctx.shells.release_foreground(to_background)
            if out.background_id is None:
                reader.close()
                if proc.returncode is not None:
                    procgroup.finished(proc)
        out.code = None if out.timed_out else proc.returncode

    @staticmethod
    async def _wait(
        proc: asyncio.subprocess.Process, timeout_s: float, to_background: asyncio.Event | None
    ) -> str:
        """Wait for the exit, the timeout or Ctrl+B: "exit", "timeout" or "background"."""
        exited = asyncio.ensure_future(proc.wait())
        waiters: set[asyncio.Future[Any]] = {exited}
        moved = None
        if to_background is not None:
            moved = asyncio.ensure_future(to_background.wait())
            waiters.add(moved)
        try:
            await asyncio.wait(waiters, timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waiters:
                w.cancel()
        if exited.done() and not exited.cancelled():
            return "exit"
        if moved is not None and moved.done() and not moved.cancelled():
            return "background"
        return "timeout"

    async def _in_client(
        self,
        argv: list[str],
        cwd: Path,
        timeout_s: float,
        buf: HeadTail,
        spool: OutputSpool,
        ctx: ToolContext,
    ) -> tuple[int | None, bool, str | None]:
        """Run ``argv`` in the editor's terminal; the same result as ``_execute``."""
        terminal = ctx.client_terminal
        assert terminal is not None
        sink = ctx.output

        def on_text(text: str) -> None:
            buf.feed(text)
            spool.feed(text)
            with contextlib.suppress(Exception):  # a broken sink must not lose the output
                sink(text)

        try:
            code, timed_out = await terminal.run(argv, cwd, dict(ENV_EXTRA), timeout_s, on_text)
        except OSError as exc:
            raise ToolError(f"The editor could not run the command: {exc}") from None
        return code, timed_out, None

    def _result(
        self,
        buf: HeadTail,
        spool: OutputSpool,
        outcome: _Outcome,
        timeout_ms: int,
        notes: list[str],
    ) -> ToolResult:
        code, timed_out, survivors = outcome.code, outcome.timed_out, outcome.survivors
        parts = [buf.text().rstrip("\n")]
        if outcome.background_id is not None:
            shell_id = outcome.background_id
            parts.insert(
                0,
                f"The user sent this command to the background; it runs on with ID: {shell_id}. "
                f"Read its further output with BashOutput (bash_id {shell_id!r}); stop it with "
                "KillShell. Output so far:",
            )
        if buf.truncated:
            parts.append(spool.note())
        if timed_out:
            parts.append(f"Command timed out after {_seconds(timeout_ms)} and was killed.")
        elif code:
            killed = f" (killed by {_signal_name(-code)})" if code < 0 else ""
            parts.append(f"Exit code {code if code > 0 else 128 - code}{killed}")
        if survivors:
            parts.append(survivors)
        parts.extend(notes)
        if outcome.refused:
            parts.append(outcome.refused)
        text = "\n".join(p for p in parts if p)
        failed = timed_out or bool(code) or bool(outcome.refused)
        return ToolResult(text or "(no output)", is_error=failed)


TOOL = BashTool()
