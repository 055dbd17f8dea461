"""Running ripgrep for Grep: finding the binary, the command lines, ordering the output.

The command line makes rg's output comparable with :mod:`tools.grep_fallback`'s: no config
file, no colour, no headings, file names always, hidden files searched, .gitignore honoured
outside git repositories too, ``.git`` skipped. Results come in path order (rg's
``--sort=path``: directory by directory, names compared as bytes) whatever the run, so the same
tree gives the same output, and a cut at ``head_limit``, ``offset`` or the character cap keeps
the same lines every time:

- rg searches with its parallel walk (``--sort`` would make it single-threaded). Its output is
  gathered line by line with each line's file (content lines carry it before a NUL field
  separator, which is dropped again) and, once rg has finished, ordered in eddy: each file's
  lines stay together, as rg printed them, and the files are sorted by path.
- When what is gathered already overflows what the result can show, the result is cut, and the
  cut must keep the first lines in path order, which only the whole output, sorted, would tell.
  So rg is stopped and runs again with ``--sort=path``, its output streamed into the result
  until that is full and rg is killed. A search whose output is cut thus costs about as much
  as one sorted search of the files up to the cut; one that is not cut, one parallel search.

Output is decoded as UTF-8 (undecodable bytes as U+FFFD) and fed to a
:class:`~tools.outbuf.LineCollector`.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import signal
from collections.abc import Callable
from pathlib import Path

from tools.base import ToolError
from tools.childenv import child_env
from tools.grep_fallback import GrepOptions
from tools.ignore import respect_gitignore
from tools.outbuf import LineCollector

_CHUNK = 1 << 16
_MATCH_SEPARATOR = "\\x00:"
_CONTEXT_SEPARATOR = "\\x00-"
"""rg's field separators in content mode (rg decodes the escapes): a NUL marks the end of the
file's path, which may itself hold ``:`` or ``-``."""

Sink = Callable[[bytes], bool]
"""Takes a chunk of rg's output; False once it wants no more."""


def rg_command(rg: str, opts: GrepOptions, root: Path, *, sort: bool) -> list[str]:
    """The ripgrep command line for ``opts``.

    Args:
        rg: the executable.
        opts: the search.
        root: the file or directory searched.
        sort: with ``--sort=path`` (single-threaded, output in its final order); otherwise
            the parallel walk, whose output :class:`Gathered` orders.
    """
    cmd = [rg, "--no-config", "--color=never", "--no-heading", "--with-filename"]
    cmd += ["--no-messages", "--hidden", "--no-require-git", "--glob=!.git"]
    if sort:
        cmd.append("--sort=path")
    if not respect_gitignore():
        cmd.append("--no-ignore-vcs")
    if opts.mode == "files_with_matches":
        cmd.append("--files-with-matches")
    elif opts.mode == "count":
        cmd.append("--count")
    else:
        cmd.append("--line-number" if opts.line_numbers else "--no-line-number")
        cmd += [f"--before-context={opts.before}", f"--after-context={opts.after}"]
        cmd += [f"--field-match-separator={_MATCH_SEPARATOR}"]
        cmd += [f"--field-context-separator={_CONTEXT_SEPARATOR}"]
    if opts.ignore_case:
        cmd.append("--ignore-case")
    if opts.multiline:
        cmd += ["--multiline", "--multiline-dotall"]
    cmd += [f"--glob={g}" for g in opts.globs]
    if opts.type:
        cmd.append(f"--type={opts.type}")
    return [*cmd, "--regexp", opts.pattern, "--", str(root)]


class Gathered:
    """A parallel search's output, line by line with each line's file, until it overflows.

    Args:
        mode: the output mode (how a line names its file).
        probe: a collector with the result's caps (and ``skip``): once it is full, the
            result is certainly cut, whatever the order.
    """

    def __init__(self, mode: str, probe: LineCollector) -> None:
        self.mode = mode
        self.probe = probe
        self.records: list[tuple[bytes | None, str, int]] = []
        """``(file, text, length)``: the file's path (None for a ``--`` line), the line's text
        cut to the collector's line cap plus one, its full length."""
        self._pending = b""
        # a longer unfinished line overflows: the sorted run streams it with bounded memory
        self._max_pending = 4 * (probe.max_line_chars + 1) + 8192

    def feed(self, chunk: bytes) -> bool:
        """Take a chunk of output; False once the result is certainly cut (or a line too long
        to hold)."""
        lines = (self._pending + chunk).split(b"\n")
        self._pending = lines.pop()
        if len(self._pending) > self._max_pending:
            return False
        return all(self._line(raw) for raw in lines)

    def finish(self) -> bool:
        """Take a last line without a line break; False if that overflowed."""
        pending, self._pending = self._pending, b""
        return not pending or self._line(pending)

    def _line(self, raw: bytes) -> bool:
        file: bytes | None
        if self.mode == "content":
            end = raw.find(b"\0")
            file = None if raw == b"--" else raw[:end] if end >= 0 else raw
            raw = raw.replace(b"\0", b"")
        elif self.mode == "count":
            file = raw.rpartition(b":")[0]
        else:
            file = raw
        text = raw.decode("utf-8", errors="replace")
        cut = text[: self.probe.max_line_chars + 1]
        self.records.append((file, cut, len(text)))
        return self.probe.add(cut, len(text))

    def ordered(self, context: bool) -> list[tuple[str, int]]:
        """The lines (text, full length) in ``--sort=path`` order.

        Args:
            context: whether rg printed ``--`` between files (context lines were asked for).
        """
        blocks: list[tuple[bytes, list[tuple[str, int]]]] = []
        separator: tuple[str, int] | None = None
        for file, text, length in self.records:
            if file is None:
                separator = (text, length)
                continue
            if blocks and blocks[-1][0] == file:
                if separator is not None:  # between two groups of the same file: kept
                    blocks[-1][1].append(separator)
            else:  # a new file: a "--" before it separated files and is put back below
                blocks.append((file, []))
            separator = None
            blocks[-1][1].append((text, length))
        blocks.sort(key=lambda block: block[0].split(b"/"))
        out: list[tuple[str, int]] = []
        for i, (_file, lines) in enumerate(blocks):
            if i and context:
                out.append(("--", 2))
            out += lines
        return out


async def search(
    rg: str, opts: GrepOptions, root: Path, cwd: Path, collector: Callable[[], LineCollector]
) -> LineCollector:
    """Search with ripgrep; the result's lines in path order (see the module's docstring).

    Args:
        rg: the executable.
        opts: the search.
        root: the file or directory searched.
        cwd: where rg runs.
        collector: makes an empty collector with the result's caps.

    Raises:
        ToolError: when ripgrep fails without output (bad pattern, unknown type...).
        OSError: when ripgrep cannot be started.
    """
    gathered = Gathered(opts.mode, collector())
    complete, code, stderr = await _run(rg_command(rg, opts, root, sort=False), cwd, gathered.feed)
    if complete and gathered.finish():
        if code == 2 and not gathered.records:
            raise ToolError(_rg_complaint(stderr) or "ripgrep failed")
        out = collector()
        for text, length in gathered.ordered(context=bool(opts.before or opts.after)):
            if not out.add(text, length):
                break
        return out
    out = collector()
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def stream(chunk: bytes) -> bool:
        return out.feed(decoder.decode(chunk).replace("\0", ""))

    complete, code, stderr = await _run(rg_command(rg, opts, root, sort=True), cwd, stream)
    if complete:
        out.feed(decoder.decode(b"", final=True))
        out.close()
        if code == 2 and not out.lines:
            raise ToolError(_rg_complaint(stderr) or "ripgrep failed")
    return out


async def _run(cmd: list[str], cwd: Path, sink: Sink) -> tuple[bool, int | None, str]:
    """Run rg, feeding its output to ``sink`` until it ends or ``sink`` wants no more (then rg
    is killed).

    Returns:
        Whether all of the output went to ``sink``, rg's exit status, the start of its stderr.
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
    complete = False
    try:
        while chunk := await proc.stdout.read(_CHUNK):
            if not sink(chunk):
                break
        else:
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
    return complete, proc.returncode, stderr


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
