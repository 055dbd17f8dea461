"""Real hook scripts (bash and python) written into a test's folder."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from tests.helpers.wait import until


def script(folder: Path, name: str, body: str) -> str:
    """Write an executable script; return the command line that runs it."""
    path = folder / name
    if name.endswith(".py"):
        path.write_text("import json, os, sys\n" + body)
        path.chmod(0o755)
        return f"{sys.executable} {path}"
    path.write_text("#!/bin/bash\n" + body)
    path.chmod(0o755)
    return str(path)


def hook_settings(folder: Path, hooks: dict) -> None:
    """Write ``{"hooks": hooks}`` as the project's settings."""
    target = folder / ".eddy" / "settings.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps({"hooks": hooks}))


def on(event: str, matcher: str, *commands: str, **extra: object) -> dict:
    """One event's config: one group running ``commands``."""
    return {
        event: [
            {
                "matcher": matcher,
                "hooks": [{"type": "command", "command": c, **extra} for c in commands],
            }
        ]
    }


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is gone for our purposes
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except OSError:
        return False


async def wait_for_file(path: Path, timeout: float = 20.0) -> str:
    """The file's text once it exists and is not empty (a condition wait, bounded)."""
    await until(lambda: path.exists() and path.read_text().strip(), timeout, str(path))
    return path.read_text()
