"""The ACP front end loads no UI library and no other front end (what import-linter cannot
see: imports made while modules load)."""

from __future__ import annotations

import subprocess
import sys

import pytest

FORBIDDEN = ("textual", "rich", "prompt_toolkit", "pygments", "tui", "plain", "headless")


@pytest.mark.parametrize(
    "module",
    [
        "acp_agent.main",
        "acp_agent.server",
        "acp_agent.live",
        "acp_agent.updates",
        "acp_agent.commands",
    ],
)
def test_the_acp_front_end_loads_no_ui_library(module: str) -> None:
    code = (
        "import importlib, sys\n"
        f"importlib.import_module({module!r})\n"
        f"bad = [m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r}]\n"
        "print(','.join(sorted(bad)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
