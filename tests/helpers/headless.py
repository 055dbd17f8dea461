"""``eddy`` as a real process (the installed script) against the fake Messages API server."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.fakes.fake_api import FakeAnthropic


def eddy(
    fake: FakeAnthropic,
    cwd: Path,
    *args: str,
    key: bool = True,
    timeout: float = 60,
    stdin: str | None = None,
    stdin_from: Any = None,
) -> subprocess.CompletedProcess[str]:
    """Run the installed ``eddy`` with ``args`` in ``cwd`` against ``fake``; its output
    (``stdin``: text piped in; ``stdin_from``: a file or descriptor to inherit as stdin;
    neither: /dev/null, so eddy never waits on whatever stdin pytest was given)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env["ANTHROPIC_BASE_URL"] = fake.base_url
    if key:
        env["ANTHROPIC_API_KEY"] = "test-key"
    exe = Path(sys.executable).with_name("eddy")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "cli.main"]
    return subprocess.run(
        [*cmd, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        input=stdin,
        stdin=stdin_from if stdin_from is not None or stdin is not None else subprocess.DEVNULL,
    )
