"""``respectGitignore: false`` (tools.ignore.respect_gitignore): Glob, Grep (both backends) and
the @ file index list what .gitignore hides; ``.ignore`` files still count, as with rg's
``--no-ignore-vcs``."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from frontend.fileindex import list_files
from tests.tools.test_search import BACKENDS, build, call, lines_of
from tools.base import ToolContext
from tools.glob import TOOL as GLOB
from tools.grep import GrepTool
from tools.ignore import respect_gitignore

FILES = {
    ".gitignore": "*.log\n",
    ".ignore": "private.txt\n",
    "a.py": "needle\n",
    "run.log": "needle\n",
    "private.txt": "needle\n",
}


@pytest.fixture
def ctx(tmp_path: Path) -> Iterator[ToolContext]:
    ws = tmp_path / "ws"
    build(ws, FILES)
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    yield ToolContext(ws)
    respect_gitignore(True)


@pytest.mark.parametrize("respect", [True, False])
async def test_glob_follows_respect_gitignore(ctx: ToolContext, respect: bool) -> None:
    respect_gitignore(respect)
    names = sorted(Path(p).name for p in lines_of(await call(GLOB, ctx, pattern="*")))
    shown = ["a.py"] if respect else ["a.py", "run.log"]
    assert [n for n in names if not n.startswith(".")] == shown


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("respect", [True, False])
async def test_grep_follows_respect_gitignore(
    ctx: ToolContext, backend: str, respect: bool
) -> None:
    respect_gitignore(respect)
    out = lines_of(await call(GrepTool(backend), ctx, pattern="needle"))
    names = sorted(Path(p).name for p in out if not p.startswith("Found "))
    assert names == (["a.py"] if respect else ["a.py", "run.log"])


@pytest.mark.parametrize("respect", [True, False])
def test_the_file_index_follows_respect_gitignore(ctx: ToolContext, respect: bool) -> None:
    respect_gitignore(respect)
    listed = list_files(ctx.workspace)
    assert ("run.log" in listed) is not respect
