"""Is an OS sandbox available here? Probed once per process (per binary), then cached.

Linux: bubblewrap must be installed AND work: a container without user namespaces has the
binary but every call fails, so the probe runs it the way eddy will (``--unshare-all``). macOS:
``sandbox-exec`` with a trivial profile. ``EDDY_SANDBOX_BWRAP`` names the bwrap binary to use
(tests point it at a missing file to see eddy without a sandbox); nothing else reads it.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from typing import Literal

from tools.childenv import child_env

BWRAP_ENV = "EDDY_SANDBOX_BWRAP"
"""Overrides the bubblewrap binary the detector probes and the sandbox runs."""
INSTALL_HINT = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap)"
_PROBE_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class Availability:
    """What the probe found.

    Attributes:
        backend: ``bwrap`` or ``seatbelt``, or None when no sandbox works here.
        binary: the program to run commands under.
        why: for None, a sentence saying why and what to do.
    """

    backend: Literal["bwrap", "seatbelt"] | None
    binary: str = ""
    why: str = ""


def bwrap_binary() -> str | None:
    """The bubblewrap binary: ``$EDDY_SANDBOX_BWRAP``, else ``bwrap`` on PATH."""
    override = os.environ.get(BWRAP_ENV)
    if override:
        return override
    return shutil.which("bwrap")


def _run_probe(argv: list[str]) -> str | None:
    """Run ``argv``; None if it exits 0, else what went wrong."""
    try:
        done = subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            env=child_env(),
            timeout=_PROBE_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return str(exc)
    if done.returncode != 0:
        err = done.stderr.decode(errors="replace").strip().splitlines()
        return err[-1] if err else f"exit status {done.returncode}"
    return None


@functools.cache
def _probe_bwrap(binary: str) -> Availability:
    if not os.access(binary, os.X_OK):
        return Availability(None, why=f"bubblewrap was not found ({binary}); {INSTALL_HINT}")
    problem = _run_probe(
        [binary, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-all"]
        + ["--die-with-parent", "--new-session", "--", "true"]
    )
    if problem:
        return Availability(
            None,
            why=f"bubblewrap does not work here ({problem}); user namespaces may be disabled",
        )
    return Availability("bwrap", binary)


@functools.cache
def _probe_seatbelt() -> Availability:
    binary = "/usr/bin/sandbox-exec"
    problem = _run_probe([binary, "-p", "(version 1)(allow default)", "true"])
    if problem:
        return Availability(None, why=f"sandbox-exec does not work here ({problem})")
    return Availability("seatbelt", binary)


def availability() -> Availability:
    """The sandbox this process can use (probed once per binary, then cached)."""
    if sys.platform == "darwin":
        return _probe_seatbelt()
    if not sys.platform.startswith("linux"):
        return Availability(None, why=f"eddy has no sandbox for {sys.platform}")
    binary = bwrap_binary()
    if binary is None:
        return Availability(None, why=f"bubblewrap is not installed; {INSTALL_HINT}")
    return _probe_bwrap(binary)
