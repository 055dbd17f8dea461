"""The engine is headless: no module of agent/, tools/ or frontend/ loads a UI library (STYLE.md).

The import-linter contracts in pyproject.toml check the same statically (deferred imports too);
this test sees what a static graph cannot (imports made by code at import time)."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
UI_LIBS = ("textual", "rich", "prompt_toolkit", "pygments")


def engine_modules() -> list[str]:
    names = []
    for pkg in ("agent", "tools", "frontend"):
        names.append(pkg)
        for info in pkgutil.walk_packages([str(ROOT / pkg)], prefix=f"{pkg}."):
            names.append(info.name)
    return names


def test_there_are_modules_to_check() -> None:
    mods = engine_modules()
    assert "agent.loop" in mods and "agent.session.core" in mods and "tools.base" in mods
    assert "agent.shell.parser" in mods and "frontend.commands" in mods


@pytest.mark.parametrize("module", engine_modules())
def test_module_does_not_load_ui_libraries(module: str) -> None:
    code = (
        "import importlib, sys\n"
        f"importlib.import_module({module!r})\n"
        f"bad = [m for m in sys.modules if m.split('.')[0] in {UI_LIBS!r}]\n"
        "print(','.join(sorted(bad)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "", f"{module} loaded {out.stdout.strip()}"


def test_headless_entry_point_loads_no_ui_and_no_sdk_before_use() -> None:
    code = (
        "import sys\n"
        "import cli.main, headless.run, frontend.session_open\n"
        f"bad = [m for m in sys.modules if m.split('.')[0] in {(*UI_LIBS, 'anthropic')!r}]\n"
        "print(','.join(sorted(bad)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""


def test_making_the_sdk_client_loads_no_ui_library() -> None:
    # httpx (the SDK's HTTP library before 2.0) imports rich and pygments for its CLI when they
    # are installed; eddy blocks that one import (agent/anthropic_model.py, _make_client).
    code = (
        "import sys\n"
        "from agent.anthropic_model import AnthropicModel\n"
        "AnthropicModel('claude-x', api_key='k', base_url='http://127.0.0.1:9').client()\n"
        f"bad = [m for m in sys.modules if m.split('.')[0] in {UI_LIBS!r}]\n"
        "print('anthropic' in sys.modules, ','.join(sorted(bad)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True"], out.stdout


def test_the_packages_export_their_public_names_lazily() -> None:
    code = (
        "import sys\n"
        "import agent, agent.paths, agent.store, agent.session\n"
        "lazy = 'agent.session.core' not in sys.modules and 'agent.loop' not in sys.modules\n"
        "from agent import CheckpointStore, Session, SessionConfig, Transcript, list_sessions\n"
        "from agent.store import SessionInfo, TranscriptError, find_session, fork\n"
        "from agent.checkpoints import CheckpointEntry\n"
        "from agent.permissions import Policy, Rule\n"
        "from agent.settings import build_policy, load_settings\n"
        "from agent.shell import parse, ShellParseError\n"
        "from agent.session import PermissionGate\n"
        "print(lazy, Session.__module__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "agent.session.core"]
