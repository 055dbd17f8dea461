"""Bash: run a shell command in the workspace, streaming its output.

Each call runs ``bash -c`` in a new session (so a new process group), stdin ``/dev/null``,
stdout and stderr merged into one pipe of its own (a killed command's output can never reach
the next call). The output is read as it comes, decoded incrementally (a UTF-8 sequence split
between reads is kept whole), passed to ``ctx.output`` chunk by chunk and kept in a bounded
head-and-tail buffer. ``cd`` persists: an EXIT trap writes ``pwd -P`` to a temporary file (not
to the output), and the next call starts there if it lies inside the workspace.

On timeout or cancellation the whole group gets SIGTERM, then SIGKILL if anything survives half
a second, and is reaped (see :mod:`tools.procgroup`). When the shell exits but a background job
still holds the pipe, reading stops after a short drain and the job is left running.

With ``ctx.sandbox`` set, the command line is wrapped in the OS sandbox the gate's grant calls
for (:mod:`agent.sandbox`); a sandboxed command's background jobs end with it (they live in
its PID namespace), and killing the group kills the namespace.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import shlex
import shutil
import signal
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tools import procgroup
from tools.base import ResolvedPath, ToolContext, ToolError, ToolLimits, ToolResult
from tools.childenv import child_env
from tools.outbuf import HeadTail

DRAIN_S = 0.25
"""After the shell exits, how long to wait for the end of its output (background jobs)."""
_READ = 1 << 16
_READS_PER_WAKEUP = 16
_F_SETPIPE_SZ = 1031
_LIMITS = ToolLimits()
ENV_EXTRA = {
    "EDDY": "1",
    "GIT_EDITOR": "true",
    "PAGER": "cat",
    "GIT_PAGER": "cat",
    "GIT_TERMINAL_PROMPT": "0",
}
"""Added to the inherited environment (secrets removed, see :mod:`tools.childenv`): no
editor or pager may wait for a terminal."""


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


class _PipeReader:
    """Reads a non-blocking pipe from the event loop, handing decoded text to ``on_text``."""

    def __init__(self, fd: int, on_text: Callable[[str], None]) -> None:
        self.fd = fd
        self.on_text = on_text
        self.eof: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._loop = asyncio.get_running_loop()
        os.set_blocking(fd, False)
        with contextlib.suppress(OSError):
            import fcntl

            fcntl.fcntl(fd, _F_SETPIPE_SZ, 1 << 20)  # fewer wake-ups for chatty commands
        self._loop.add_reader(fd, self._readable)

    def _readable(self) -> None:
        for _ in range(_READS_PER_WAKEUP):
            try:
                data = os.read(self.fd, _READ)
            except BlockingIOError:
                return
            except OSError:
                data = b""
            if not data:
                self._emit(self._decoder.decode(b"", final=True))
                self._loop.remove_reader(self.fd)
                if not self.eof.done():
                    self.eof.set_result(None)
                return
            self._emit(self._decoder.decode(data))

    def _emit(self, text: str) -> None:
        if text:
            self.on_text(text)

    def close(self) -> None:
        """Stop reading and close the pipe (a writer left behind gets EPIPE)."""
        self._loop.remove_reader(self.fd)
        with contextlib.suppress(OSError):
            os.close(self.fd)
        if not self.eof.done():
            self.eof.cancel()


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
        f"- Output beyond {_LIMITS.output_max_chars} characters is cut in the middle: the start "
        "and the end are kept. Redirect large outputs to a file and search it with Grep.\n"
        "- A non-zero exit status is reported as an error with the exit code.\n"
        "- To start a long-running process in the background, redirect its output "
        "(`cmd > log 2>&1 &`); its output is not captured otherwise.\n"
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
        limits = ctx.limits
        timeout_ms = int(args.get("timeout") or limits.bash_default_timeout_ms)
        timeout_ms = min(timeout_ms, limits.bash_max_timeout_ms)
        notes: list[str] = []
        cwd = self._start_dir(ctx, notes)
        procgroup.enable_subreaper()
        procgroup.sweep()
        fd, cwd_file = tempfile.mkstemp(prefix="eddy-cwd-")
        os.close(fd)
        script = f"trap 'pwd -P >| {shlex.quote(cwd_file)}' EXIT; {args['command']}"
        argv = [_shell(), "-c", script]
        if ctx.sandbox is not None:
            try:
                argv = ctx.sandbox.wrap(
                    argv,
                    cwd=cwd,
                    grant=ctx.grant,
                    command=str(args["command"]),
                    roots=ctx.roots(),
                    writable_files=(Path(cwd_file),),
                )
            except ToolError:
                os.unlink(cwd_file)
                raise
        if ctx.before_shell is not None:
            await ctx.before_shell()
        try:
            buf = HeadTail(limits.output_max_chars)
            if ctx.client_terminal is not None:  # the editor runs it (ACP terminal)
                status = await self._in_client(argv, cwd, timeout_ms / 1000, buf, ctx)
            else:
                status = await self._execute(argv, cwd, timeout_ms / 1000, buf, ctx)
            self._end_dir(ctx, cwd_file, notes)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(cwd_file)
            if ctx.after_shell is not None:
                await ctx.after_shell()
        return self._result(buf, status, timeout_ms, notes)

    async def _execute(
        self, argv: list[str], cwd: Path, timeout_s: float, buf: HeadTail, ctx: ToolContext
    ) -> tuple[int | None, bool, str | None]:
        """Run ``argv``; return (exit status or None on timeout, timed out, survivors note)."""
        sink = ctx.output

        def on_text(text: str) -> None:
            buf.feed(text)
            with contextlib.suppress(Exception):  # a broken sink must not lose the output
                sink(text)

        read_fd, write_fd = os.pipe()
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=write_fd,
                stderr=write_fd,
                cwd=cwd,
                env=child_env(ENV_EXTRA),
                start_new_session=True,
            )
        except OSError as exc:
            os.close(read_fd)
            raise ToolError(f"Could not start the shell: {exc}") from None
        finally:
            os.close(write_fd)
        procgroup.started(proc)
        reader = _PipeReader(read_fd, on_text)
        timed_out, survivors = False, None
        try:
            try:
                await asyncio.wait_for(proc.wait(), timeout_s)
            except TimeoutError:
                timed_out = True
                await procgroup.kill_group_shielded(proc)
            await asyncio.wait({reader.eof}, timeout=DRAIN_S)
            if not timed_out and procgroup.note_survivors(proc):
                survivors = "(Background processes started by the command are still running"
                survivors += (
                    "; their further output is not captured.)" if not reader.eof.done() else ".)"
                )
        except asyncio.CancelledError:
            await procgroup.kill_group_shielded(proc)
            raise
        finally:
            reader.close()
            if proc.returncode is not None:
                procgroup.finished(proc)
        return (None if timed_out else proc.returncode), timed_out, survivors

    async def _in_client(
        self, argv: list[str], cwd: Path, timeout_s: float, buf: HeadTail, ctx: ToolContext
    ) -> tuple[int | None, bool, str | None]:
        """Run ``argv`` in the editor's terminal; the same result as ``_execute``."""
        terminal = ctx.client_terminal
        assert terminal is not None
        sink = ctx.output

        def on_text(text: str) -> None:
            buf.feed(text)
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
        status: tuple[int | None, bool, str | None],
        timeout_ms: int,
        notes: list[str],
    ) -> ToolResult:
        code, timed_out, survivors = status
        parts = [buf.text().rstrip("\n")]
        if timed_out:
            parts.append(f"Command timed out after {_seconds(timeout_ms)} and was killed.")
        elif code:
            killed = f" (killed by {_signal_name(-code)})" if code < 0 else ""
            parts.append(f"Exit code {code if code > 0 else 128 - code}{killed}")
        if survivors:
            parts.append(survivors)
        parts.extend(notes)
        text = "\n".join(p for p in parts if p)
        return ToolResult(text or "(no output)", is_error=timed_out or bool(code))


TOOL = BashTool()
