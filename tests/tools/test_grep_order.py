"""Grep with ripgrep's parallel walk: results in path order every run, a cut (head_limit, offset,
the character cap) that keeps the same lines every time, and paging with ``offset``."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import pytest

import tools.grep_rg as grep_rg
from tests.tools.test_search import BACKENDS, build, call, lines_of
from tools.base import ToolContext, ToolLimits
from tools.grep import GrepTool
from tools.search_files import find_rg

needs_rg = pytest.mark.skipif(find_rg() is None, reason="ripgrep is not available")


def spy_on_rg(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    """The command lines Grep starts from now on (they still run)."""
    ran: list[tuple[str, ...]] = []
    real = asyncio.create_subprocess_exec

    async def spawn(*args: Any, **kw: Any) -> Any:
        ran.append(tuple(str(a) for a in args))
        return await real(*args, **kw)

    monkeypatch.setattr(grep_rg.asyncio, "create_subprocess_exec", spawn)
    return ran


TREE: dict[str, str | bytes] = {
    # names whose order by component differs from their order as strings ("a-b" < "a/")
    **{f"a/{i:02d}/n.txt": "needle\nhay\nneedle 2\n" for i in range(12)},
    **{f"a-b/s{i}/m.txt": "hay\nneedle\n" for i in range(12)},
    **{f"z{i}.md": "needle\n" + "hay\n" * 5 + "needle again\n" for i in range(30)},
    "a.b": "needle\n",
    "with:colon-and-dash.txt": "needle\n",
}


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    build(tmp_path, TREE)
    with open(os.fsencode(tmp_path) + b"/\xe9-latin1.txt", "wb") as f:
        f.write(b"needle\n")
    (tmp_path / "\u00e9-utf8.txt").write_text("needle\n")
    return ToolContext(workspace=tmp_path, limits=ToolLimits(output_max_chars=200_000))


CASES: list[dict[str, Any]] = [
    {"pattern": "needle"},
    {"pattern": "needle", "output_mode": "count"},
    {"pattern": "needle", "output_mode": "content"},
    {"pattern": "needle", "output_mode": "content", "-C": 1},
    {"pattern": "needle", "output_mode": "content", "-B": 2, "-n": False},
    {"pattern": "needle", "output_mode": "content", "head_limit": 7},
    {"pattern": "needle", "output_mode": "content", "-A": 1, "head_limit": 9, "offset": 4},
    {"pattern": "needle", "head_limit": 5},
    {"pattern": "needle", "output_mode": "count", "offset": 20},
]


@needs_rg
@pytest.mark.parametrize("args", CASES, ids=lambda a: " ".join(f"{k}={v}" for k, v in a.items()))
async def test_rg_results_are_in_path_order_and_the_same_every_run(
    ctx: ToolContext, args: dict[str, Any]
) -> None:
    runs = {str((await call(GrepTool("rg"), ctx, **args)).content) for _ in range(4)}
    python = str((await call(GrepTool("python"), ctx, **args)).content)
    assert runs == {python}  # the Python search walks in --sort=path order


@needs_rg
async def test_files_are_ordered_by_path_components_then_bytes(ctx: ToolContext) -> None:
    out = lines_of(await call(GrepTool("rg"), ctx, pattern="needle"))[1:]
    names = [os.path.relpath(p, ctx.workspace) for p in out]
    assert names[:2] == ["a/00/n.txt", "a/01/n.txt"] and names[12] == "a-b/s0/m.txt"
    assert names[24:26] == ["a.b", "with:colon-and-dash.txt"]
    assert names[26:] == [f"z{i}.md" for i in sorted(range(30), key=str)] + [
        "\u00e9-utf8.txt",  # c3 a9: before the lone byte e9
        "\ufffd-latin1.txt",
    ]


@needs_rg
async def test_a_search_that_is_not_cut_runs_rg_once_with_its_parallel_walk(
    ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    ran = spy_on_rg(monkeypatch)
    out = lines_of(await call(GrepTool("rg"), ctx, pattern="needle", output_mode="count"))
    assert len(ran) == 1 and "--sort=path" not in ran[0] and out[-1].endswith(" in 58 files.")


@needs_rg
async def test_a_cut_search_keeps_the_first_lines_in_path_order(
    ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    full = lines_of(await call(GrepTool("rg"), ctx, pattern="needle", output_mode="content"))
    ran = spy_on_rg(monkeypatch)
    for _ in range(3):
        out = lines_of(
            await call(GrepTool("rg"), ctx, pattern="needle", output_mode="content", head_limit=5)
        )
        assert out[:5] == full[:5] and "head_limit=5" in out[-1]
    # the parallel run overflowed: the sorted run cut the result
    assert [("--sort=path" in cmd) for cmd in ran[:2]] == [False, True]


@needs_rg
async def test_the_character_cap_cuts_at_the_same_line_every_run(ctx: ToolContext) -> None:
    small = ToolContext(workspace=ctx.workspace, limits=ToolLimits(output_max_chars=3000))
    full = lines_of(await call(GrepTool("rg"), ctx, pattern="needle", output_mode="content"))
    for _ in range(3):
        out = lines_of(await call(GrepTool("rg"), small, pattern="needle", output_mode="content"))
        kept = out[: out.index("")]
        assert kept == full[: len(kept)] and "(the cap)" in out[-1]


@pytest.mark.parametrize("backend", BACKENDS)
async def test_offset_pages_through_the_results(ctx: ToolContext, backend: str) -> None:
    tool = GrepTool(backend)
    full = lines_of(await call(tool, ctx, pattern="needle"))[1:]
    page = lines_of(await call(tool, ctx, pattern="needle", offset=3, head_limit=4))
    assert page[0] == "[Skipped the first 3 files (offset).]"
    assert page[1:5] == full[3:7] and "head_limit=4" in page[-1]
    last = lines_of(await call(tool, ctx, pattern="needle", offset=len(full) - 1))
    assert last == ["[Skipped the first 57 files (offset).]", "Found 1 file", full[-1]]
    beyond = await call(tool, ctx, pattern="needle", offset=len(full))
    assert beyond.content == "No entries at this offset (58 files in all)"


@pytest.mark.parametrize("backend", BACKENDS)
async def test_head_limit_zero_means_no_limit(ctx: ToolContext, backend: str) -> None:
    out = lines_of(await call(GrepTool(backend), ctx, pattern="needle", head_limit=0))
    assert out[0] == "Found 58 files" and len(out) == 59


def test_the_bundled_ripgrep_is_preferred_to_one_on_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bundled = Path(sys.executable).parent / "rg"
    if not os.access(bundled, os.X_OK):
        pytest.skip("no rg beside the Python executable")
    other = tmp_path / "rg"
    other.write_text("#!/bin/sh\nexit 2\n")
    other.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert find_rg() == str(bundled)
