"""``cleanupPeriodDays``: transcripts not touched for that many days are deleted at start-up,
as Claude Code does, for every project (``data_dir()/projects/*/sessions``).

A transcript another eddy holds open (its file lock, agent/store/transcript.py) is kept, and so
is anything that is not a transcript; a session's checkpoint folder goes with it.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import time
from pathlib import Path

from agent.paths import data_dir
from agent.store.load import SUFFIX


def _in_use(path: Path) -> bool:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def remove_old_sessions(days: int, now: float | None = None) -> int:
    """Delete transcripts (and their checkpoints) last changed more than ``days`` days ago.

    Args:
        days: the period; below 1 nothing is deleted.
        now: the current time (tests).

    Returns:
        How many sessions were deleted. Errors are skipped (a file another user owns ...).
    """
    if days < 1:
        return 0
    cutoff = (time.time() if now is None else now) - days * 86400
    removed = 0
    for path in (data_dir() / "projects").glob(f"*/sessions/*{SUFFIX}"):
        try:
            if path.stat().st_mtime >= cutoff or _in_use(path):
                continue
            path.unlink()
        except OSError:
            continue
        removed += 1
        checkpoints = path.with_name(path.name[: -len(SUFFIX)] + ".checkpoints")
        shutil.rmtree(checkpoints, ignore_errors=True)
    return removed
