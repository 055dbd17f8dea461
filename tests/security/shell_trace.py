"""Run a command under bash traced (strace) in a scratch directory, and say what it did.

Used by the differential test and the red-team suite: :func:`traced_run` runs ``bash -c``
inside bubblewrap (every path outside the scratch root read-only, no network) under
``strace -f``; :func:`read_trace` turns the log into the programs bash executed and the paths
it opened for writing, created, renamed or removed, and the files it read.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

STRACE = shutil.which("strace") or "/usr/bin/strace"
_CALLS = (
    "execve,openat,open,creat,rename,renameat,renameat2,unlink,unlinkat,mkdir,mkdirat,"
    "rmdir,link,linkat,symlink,symlinkat,truncate,chdir,fchdir,clone,clone3,fork,vfork"
)
_LINE = re.compile(r"^(\d+)\s+(\w+)\((.*)\)\s+=\s+(-?\d+|\?)")
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
_WRITE_FLAGS = re.compile(r"O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND")
_SINKS = ("/dev/null", "/dev/tty", "/dev/stdout", "/dev/stderr", "/dev/fd/", "/proc/self/fd/")


def sandbox_prefix(root: Path) -> list[str] | None:
    """The command that confines a run to ``root`` (bwrap, else ``unshare -n``), or None."""
    bwrap = shutil.which("bwrap")
    if bwrap:
        probe = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        probe += ["--unshare-net", "--die-with-parent", "true"]
        if subprocess.run(probe, capture_output=True).returncode == 0:
            return [*probe[:-1], "--bind", str(root), str(root)]
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "-n", "true"], capture_output=True).returncode == 0:
        return [unshare, "-n"]
    return None


def tracing_works(root: Path) -> bool:
    """Whether strace can trace a child here (ptrace may be forbidden in containers)."""
    prefix = sandbox_prefix(root)
    if prefix is None or not os.path.exists(STRACE):
        return False
    log = root / "probe.log"
    done = subprocess.run(
        [*prefix, STRACE, "-f", "-qq", "-e", "trace=execve", "-o", str(log), "/bin/true"],
        capture_output=True,
    )
    return done.returncode == 0 and log.exists() and "execve" in log.read_text()


@dataclass
class Trace:
    """What one traced run did."""

    programs: list[str] = field(default_factory=list)
    """The programs execve ran successfully (real paths), in order."""
    writes: list[str] = field(default_factory=list)
    """Absolute paths opened for writing, created, renamed, linked or removed."""
    reads: list[str] = field(default_factory=list)
    """Absolute paths opened for reading."""
    output: str = ""


def read_trace(log: str, start: str) -> Trace:
    """Parse an ``strace -f`` log of a run that started in directory ``start``."""
    cwd: dict[str, str] = {}
    pending: dict[str, str] = {}
    out = Trace()
    first: str | None = None
    for raw in log.splitlines():
        pid = raw.split(" ", 1)[0]
        if "<unfinished ...>" in raw:
            pending[pid] = raw.split("<unfinished ...>")[0]
            continue
        m_resumed = re.match(r"^(\d+)\s+<\.\.\. \w+ resumed>(.*)$", raw)
        if m_resumed:
            raw = pending.pop(pid, "") + m_resumed.group(2)
        m = _LINE.match(raw)
        if m is None:
            continue
        pid, call, args, result = m.groups()
        first = first or pid
        here = cwd.get(pid, start)
        strings = [s.encode().decode("unicode_escape") for s in _STRING.findall(args)]
        ok = result != "?" and int(result) >= 0

        def absolute(path: str, base: str = here) -> str:
            return os.path.normpath(os.path.join(base, path))

        if call in ("clone", "clone3", "fork", "vfork") and ok:
            cwd[result] = here
        elif call == "chdir" and ok and strings:
            cwd[pid] = absolute(strings[0])
        elif call == "fchdir" and ok:
            cwd[pid] = "?"  # unknown: relative paths after it are reported as such
        elif call == "execve" and ok and strings:
            out.programs.append(absolute(strings[0]))
        elif call in ("open", "openat") and strings:
            path = absolute(strings[0])
            if _WRITE_FLAGS.search(args):
                out.writes.append(path)
            elif ok:
                out.reads.append(path)
        elif call in ("creat", "truncate", "mkdir", "mkdirat", "rmdir", "unlink", "unlinkat"):
            out.writes.extend(absolute(s) for s in strings[:1])
        elif call.startswith(("rename", "link", "symlink")):
            out.writes.extend(absolute(s) for s in strings[:2])
    return out


def traced_run(command: str, root: Path, workspace: Path, home: Path, prefix: list[str]) -> Trace:
    """Run ``bash -c command`` in ``workspace`` under strace, confined by ``prefix``."""
    log = root / "trace.log"
    log.unlink(missing_ok=True)
    env = ["env", "-i", "PATH=/usr/bin:/bin", f"HOME={home}", "LANG=C", f"TMPDIR={root}/tmp"]
    (root / "tmp").mkdir(exist_ok=True)
    argv = [*prefix, STRACE, "-f", "-qq", "-e", f"trace={_CALLS}", "-o", str(log)]
    argv += [*env, "bash", "-c", command]
    try:
        done = subprocess.run(
            argv, cwd=workspace, capture_output=True, timeout=20, stdin=subprocess.DEVNULL
        )
    except subprocess.TimeoutExpired:
        return Trace(programs=["<timeout>"])
    trace = read_trace(log.read_text(errors="replace") if log.exists() else "", str(workspace))
    trace.output = (done.stdout + done.stderr).decode(errors="replace")
    return trace


def harmless_write(path: str, root: Path) -> bool:
    """Writes every bash run makes that are not the command's: /dev/null, the tty, and
    here-document temporary files in ``$TMPDIR``."""
    return path.startswith(_SINKS) or path.startswith(f"{root}/tmp/")
