"""The layers of STYLE.md, checked by import-linter (the contracts are in pyproject.toml).

The sys.modules test (tests/agent/test_import_hygiene.py) sees imports made at run time; these
contracts see every import statement, deferred ones inside functions included.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = (
    "cli",
    "tui",
    "plain",
    "headless",
    "acp_agent",
    "frontend",
    "agent",
    "tools",
    "themes",
    "tests",
)
LINT = Path(sys.executable).with_name("lint-imports")


def lint(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT), "--config", str(root / "pyproject.toml"), "--no-cache"],
        cwd=root,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
    )


def copy_tree(dest: Path) -> Path:
    shutil.copy(ROOT / "pyproject.toml", dest / "pyproject.toml")
    for pkg in PACKAGES:
        shutil.copytree(ROOT / pkg, dest / pkg, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def test_the_tree_keeps_every_contract() -> None:
    out = lint(ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "broken" not in out.stdout.lower().replace("0 broken", "")


@pytest.mark.parametrize(
    ("module", "imported"),
    [
        ("agent/paths.py", "tui.app"),  # the engine reaching up into a front end
        ("plain/status.py", "tui.app"),  # one front end into another
        ("frontend/launch.py", "headless.run"),  # the shared layer into a front end
        ("tools/base.py", "agent.turn.loop"),  # a tool into the engine
        ("acp_agent/prompts.py", "plain.app"),  # the ACP front end into another
        ("agent/paths.py", "acp"),  # the engine speaking ACP itself
    ],
)
def test_a_deferred_upward_import_breaks_a_contract(
    tmp_path: Path, module: str, imported: str
) -> None:
    root = copy_tree(tmp_path)
    with (root / module).open("a") as f:
        f.write(f"\n\ndef _late() -> None:\n    import {imported}  # noqa: F401\n")
    out = lint(root)
    assert out.returncode != 0
    assert "BROKEN" in out.stdout
