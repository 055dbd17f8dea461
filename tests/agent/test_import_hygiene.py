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
    assert "agent.turn.loop" in mods and "agent.session.core" in mods and "tools.base" in mods
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
    # are installed; eddy blocks that one import (agent/model/anthropic.py, _make_client).
    code = (
        "import sys\n"
        "from agent.model.anthropic import AnthropicModel\n"
        "AnthropicModel('claude-x', api_key='k', base_url='http://127.0.0.1:9').client()\n"
        f"bad = [m for m in sys.modules if m.split('.')[0] in {UI_LIBS!r}]\n"
        "print('anthropic' in sys.modules, ','.join(sorted(bad)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True"], out.stdout


def test_no_package_re_exports_a_name_every_caller_imports_from_its_module() -> None:
    """A package's ``__init__`` holds its docstring (and, for memory and tools, code of its
    own): a name it imports is one it uses, never a second address for a module's name."""
    import ast

    offenders = []
    for init in sorted([*(ROOT / "agent").rglob("__init__.py"), ROOT / "tools" / "__init__.py"]):
        tree = ast.parse(init.read_text())
        imported = {
            (a.asname or a.name).split(".")[0]
            for node in ast.walk(tree)
            if isinstance(node, (ast.Import, ast.ImportFrom))
            for a in node.names
        }
        used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        used |= {
            n.value.id
            for n in ast.walk(tree)
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
        }
        unused = sorted(imported - used - {"annotations"})
        if unused or any(
            isinstance(n, ast.FunctionDef) and n.name == "__getattr__" for n in tree.body
        ):
            offenders.append(f"{init.relative_to(ROOT)}: {unused}")
    assert offenders == []
