"""Running ripgrep for Grep: finding the binary, the command line, reading its output.

The command line makes rg's output comparable with :mod:`tools.grep_fallback`'s: no config
file, no colour, no headings, file names always, hidden files searched, .gitignore honoured
outside git repositories too, ``.git`` skipped, results sorted by path. Output is decoded
incrementally and fed to a :class:`~tools.outbuf.LineCollector`; once that is full rg is killed
rather than left to print the rest.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import shutil
import signal
import sys
from pathlib import Path

from tools.base import ToolError
from tools.childenv import child_env
from tools.grep_fallback import GrepOptions
from tools.ignore import respect_gitignore
from tools.outbuf import LineCollector

_CHUNK = 1 << 16


def find_rg() -> str | None:
    """The ripgrep executable: on PATH, else beside ``sys.executable``; None without one."""
    found = shutil.which("rg")
    if found:
        return found
    candidate = Path(sys.executable).parent / "rg"
    return str(candidate) if os.access(candidate, os.X_OK) else None


def rg_command(rg: str, opts: GrepOptions, root: Path) -> list[str]:
    """The ripgrep command line for ``opts`` (output comparable with the fallback's)."""
    cmd = [rg, "--no-config", "--color=never", "--no-heading", "--with-filename"]
    cmd += ["--no-messages", "--hidden", "--no-require-git", "--sort=path", "--glob=!.git"]
    if not respect_gitignore():
        cmd.append("--no-ignore-vcs")
    if opts.mode == "files_with_matches":
        cmd.append("--files-with-matches")
    elif opts.mode == "count":
        cmd.append("--count")
    else:
        cmd.append("--line-number" if opts.line_numbers else "--no-line-number")
        cmd += [f"--before-context={opts.before}", f"--after-context={opts.after}"]
    if opts.ignore_case:
        cmd.append("--ignore-case")
    if opts.multiline:
        cmd += ["--multiline", "--multiline-dotall"]
    cmd += [f"--glob={g}" for g in opts.globs]
    if opts.type:
        cmd.append(f"--type={opts.type}")
    return [*cmd, "--regexp", opts.pattern, "--", str(root)]


async def run_rg(cmd: list[str], cwd: Path, out: LineCollector) -> None:
    """Run ripgrep, feeding its output to ``out`` until it ends or ``out`` is full.

    Raises:
        ToolError: when ripgrep fails without output (bad pattern, unknown type...).
    """
    proc = await asyncio.create_subprocess_exec(
        *cmd,
        cwd=cwd,
        env=child_env(),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    errors = asyncio.ensure_future(_read_capped(proc.stderr))
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    complete = False
    try:
        while chunk := await proc.stdout.read(_CHUNK):
            if not out.feed(decoder.decode(chunk)):
                break
        else:
            out.feed(decoder.decode(b"", final=True))
            out.close()
            complete = True
    finally:
        if not complete and proc.returncode is None:
            # os.kill, not proc.kill(): Popen.send_signal polls, which can reap the process
            # behind asyncio's child watcher (which then reports exit status 255)
            with contextlib.suppress(ProcessLookupError):
                os.kill(proc.pid, signal.SIGKILL)
        # read what is left: a reader stopped with a full buffer has paused its pipe, so it
        # would never see the pipe's end, and wait() returns only once every pipe is closed
        # (it hung there about once in 400 capped searches under load)
        await asyncio.shield(_read_capped(proc.stdout))
        await asyncio.shield(proc.wait())
        stderr = (await asyncio.shield(errors)).decode("utf-8", errors="replace").strip()
    if complete and proc.returncode == 2 and not out.lines:
        raise ToolError(_rg_complaint(stderr) or "ripgrep failed")


async def _read_capped(stream: asyncio.StreamReader) -> bytes:
    kept = b""
    while chunk := await stream.read(_CHUNK):
        kept = (kept + chunk)[:_CHUNK]
    return kept


def _rg_complaint(stderr: str) -> str:
    stderr = stderr.removeprefix("rg: ")
    if "regex parse error" in stderr:
        return f"Invalid regex pattern: {stderr}"
    return stderr
